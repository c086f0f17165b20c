import BadgeCore

/// A parsed JSON value, as written by the app's control channel (one object per line), in the shape
/// tests find convenient (numbers as doubles, objects as dictionaries). Parsing is BadgeCore's.
public enum JSONValue: Equatable, Sendable, CustomStringConvertible {
    /// null.
    case null
    /// true or false.
    case bool(Bool)
    /// Any number (whole numbers too).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (a repeated key keeps its first value).
    case object([String: JSONValue])

    /// Parses one JSON text; throws `HarnessError` with the reason and offset of the first syntax error.
    public init(parsing text: String) throws {
        do {
            self.init(try BadgeCore.JSONValue.parse(Array(text.utf8)))
        } catch {
            throw HarnessError("invalid JSON: \(error)")
        }
    }

    /// The same value from the app's own parser (BadgeCore), with numbers as doubles and objects as dictionaries.
    init(_ value: BadgeCore.JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .number(Double(number))
        case .double(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let members):
            self = .object(Dictionary(members.map { ($0.0, JSONValue($0.1)) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// The member `key` of an object, or nil (also nil when this is not an object).
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or nil.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, if this is a string.
    public var string: String? { if case .string(let s) = self { return s }; return nil }
    /// The number, if this is a number.
    public var double: Double? { if case .number(let d) = self { return d }; return nil }
    /// The number as an integer, if this is a number with no fractional part.
    public var int: Int? {
        if case .number(let d) = self, d.rounded() == d, abs(d) < 9e15 { return Int(d) }
        return nil
    }
    /// The boolean, if this is a boolean.
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The elements, if this is an array.
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members, if this is an object.
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
    /// Whether this is JSON `null`.
    public var isNull: Bool { self == .null }

    /// Compact JSON text (object keys sorted), for messages; written by BadgeCore's serializer.
    public var description: String { coreValue.serialized }

    /// This value as BadgeCore's JSON type, with object keys sorted.
    var coreValue: BadgeCore.JSONValue {
        switch self {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .double(number)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(\.coreValue))
        case .object(let members): return .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value.coreValue) })
        }
    }
}
