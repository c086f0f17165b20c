/// A D-Bus value as it goes into or comes out of a message: the basic types the shell's services
/// use, and the containers (struct, array, dict entry, variant). Pure Swift: replies are built and
/// checked as values, without a bus; ``DBusWire`` writes and reads them.
package indirect enum DBusValue: Hashable, Sendable {
    /// `y`
    case byte(UInt8)
    /// `b`
    case bool(Bool)
    /// `n`
    case int16(Int16)
    /// `q`
    case uint16(UInt16)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `s`
    case string(String)
    /// `o`
    case objectPath(String)
    /// `g`
    case signature(String)
    /// `(…)`
    case structure([DBusValue])
    /// `a…`: the element signature is given, so an empty array is typed too.
    case array(element: String, [DBusValue])
    /// `{…}`: only inside an array.
    case dictEntry(DBusValue, DBusValue)
    /// `v`
    case variant(DBusValue)

    /// The value's type signature ("s", "(so)", "a{sv}"…).
    package var signature: String {
        switch self {
        case .byte: return "y"
        case .bool: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        case .array(let element, _): return "a" + element
        case .dictEntry(let key, let value): return "{" + key.signature + value.signature + "}"
        case .variant: return "v"
        }
    }

    /// The signature of a message body made of `values`.
    package static func signature(of values: [DBusValue]) -> String {
        values.map(\.signature).joined()
    }

    /// A string-keyed dictionary of variants (`a{sv}`).
    package static func dictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(element: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// The string inside `s`, `o` or a variant of either.
    package var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): return text
        case .variant(let inner): return inner.stringValue
        default: return nil
        }
    }

    /// The integer inside any integer type (or a variant of one).
    package var integerValue: Int64? {
        switch self {
        case .byte(let value): return Int64(value)
        case .int16(let value): return Int64(value)
        case .uint16(let value): return Int64(value)
        case .int32(let value): return Int64(value)
        case .uint32(let value): return Int64(value)
        case .int64(let value): return value
        case .uint64(let value): return Int64(exactly: value)
        case .variant(let inner): return inner.integerValue
        default: return nil
        }
    }
}

extension DBusValue {
    /// The boolean, through variants; nil for anything else.
    package var boolValue: Bool? {
        switch self {
        case .bool(let flag): return flag
        case .variant(let inner): return inner.boolValue
        default: return nil
        }
    }

    /// The entries of an `a{sv}` (or any string-keyed dictionary), values unwrapped from their
    /// variants; nil for anything else.
    package var stringKeyedEntries: [String: DBusValue]? {
        guard case .array(let element, let items) = self, element.hasPrefix("{s") else { return nil }
        var entries: [String: DBusValue] = [:]
        for item in items {
            guard case .dictEntry(let key, let value) = item, let name = key.stringValue else { continue }
            if case .variant(let inner) = value { entries[name] = inner } else { entries[name] = value }
        }
        return entries
    }
}
