import CXCB

/// A property read back from a window.
public struct WindowProperty: Equatable, Sendable {
    /// The property's type atom name, e.g. "STRING" or "UTF8_STRING".
    public let typeName: String
    /// 8, 16 or 32.
    public let format: Int
    /// The raw value.
    public let bytes: [UInt8]
    /// The value decoded as UTF-8.
    public var string: String { String(decoding: bytes, as: UTF8.self) }
}
