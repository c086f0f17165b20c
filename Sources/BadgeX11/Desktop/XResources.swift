import CXCB
import Glibc

/// Reads the X resource database (the root window's RESOURCE_MANAGER string) for the desktop's
/// scale: `Xft.dpi` / 96, as GTK and Qt do.
package enum XResources {
    /// The device scale from Xft.dpi, or nil when the resource is absent or unusable.
    package static func deviceScale(connection x: XConnection, atoms: Atoms) -> Double? {
        x.textProperty(atoms.resourceManager, of: x.root, maximumBytes: 1 << 18).flatMap(scale(fromResources:))
    }

    /// Parses "Xft.dpi: 144" out of a resource database string into a scale (1.5); nil if absent or
    /// out of the range XSETTINGS' DPI is held to (``DesktopSettings/scale(dpi:)``).
    package static func scale(fromResources database: String) -> Double? {
        for line in database.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].filter { $0 != " " && $0 != "\t" }
            guard key == "Xft.dpi" else { continue }
            let value = line[line.index(after: colon)...].filter { $0 != " " && $0 != "\t" }
            return Double(value).flatMap(DesktopSettings.scale(dpi:))
        }
        return nil
    }
}
