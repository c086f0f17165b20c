/// A JSON value written by hand, so the core can emit control-protocol events without Foundation.
package indirect enum JSONValue: Hashable, Sendable {
    /// A string.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A number; non-finite values are written as null (JSON has no NaN).
    case double(Double)
    /// true or false.
    case bool(Bool)
    /// null.
    case null
    /// An array.
    case array([JSONValue])
    /// An object whose keys keep the given order.
    case object([(String, JSONValue)])

    /// Compares two values; object keys compare in order.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized == rhs.serialized }

    /// Hashes the serialized form.
    package func hash(into hasher: inout Hasher) { hasher.combine(serialized) }

    /// The compact JSON text of this value (no newlines, so it fits on one line of a JSON-lines stream).
    package var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .string(let text): Self.writeString(text, to: &output)
        case .int(let number): output += String(number)
        case .double(let number):
            if !number.isFinite { output += "null" }
            else if number == number.rounded(), abs(number) < 1e15 { output += String(Int(number)) }
            else { output += String(number) }
        case .bool(let flag): output += flag ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
