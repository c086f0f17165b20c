/// Names for core X protocol errors and the requests the demo sends, for one-line messages such as
/// "BadPixmap (4) in FreePixmap (54), resource 0x0".
package enum XErrorDescription {
    /// Core error code 3.
    package static let badWindow: UInt8 = 3
    /// Core error code 9.
    package static let badDrawable: UInt8 = 9

    /// The core protocol's name for an error code ("BadWindow"), or "error N" for others (extensions).
    package static func errorName(_ code: UInt8) -> String {
        let names = ["BadRequest", "BadValue", "BadWindow", "BadPixmap", "BadAtom", "BadCursor", "BadFont", "BadMatch",
                     "BadDrawable", "BadAccess", "BadAlloc", "BadColor", "BadGC", "BadIDChoice", "BadName", "BadLength",
                     "BadImplementation"]
        let index = Int(code) - 1
        return names.indices.contains(index) ? "\(names[index]) (\(code))" : "error \(code)"
    }

    /// The core request's name for a major opcode the demo uses ("PutImage"), or "request N".
    package static func requestName(_ major: UInt8) -> String {
        let names: [UInt8: String] = [
            1: "CreateWindow", 2: "ChangeWindowAttributes", 3: "GetWindowAttributes", 4: "DestroyWindow",
            8: "MapWindow", 10: "UnmapWindow", 12: "ConfigureWindow", 14: "GetGeometry", 15: "QueryTree",
            16: "InternAtom", 18: "ChangeProperty", 20: "GetProperty", 25: "SendEvent", 40: "TranslateCoordinates",
            43: "GetInputFocus", 53: "CreatePixmap", 54: "FreePixmap", 55: "CreateGC", 60: "FreeGC", 72: "PutImage",
        ]
        return names[major].map { "\($0) (\(major))" } ?? "request \(major)"
    }

    /// One line for a refused request: "BadPixmap (4) in FreePixmap (54), resource 0x0".
    package static func describe(code: UInt8, major: UInt8, minor: UInt16, resource: UInt32) -> String {
        let request = major >= 128 ? "extension request \(major).\(minor)" : requestName(major)
        return "\(errorName(code)) in \(request), resource 0x\(String(resource, radix: 16))"
    }
}
