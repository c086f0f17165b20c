// badge-icon-masks: renders the bundled SVG icons with librsvg into the alpha masks that ship in
// Resources/IconMasks (`make icon-masks`). The masks spare the demo from loading librsvg at
// start-up; BadgeDrawingTests checks that they still equal librsvg's rendering of the SVGs.
import BadgeDrawing
import BadgeResources
import Glibc

let directory = CommandLine.arguments.dropFirst().first ?? "Resources/IconMasks"
do {
    let icons = try IconLibrary()
    for name in BundledIcons.names {
        for pixels in BundledIcons.maskSizes {
            let mask = try icons.renderMaskWithLibrsvg(name, pixels: pixels)
            let path = "\(directory)/\(name)-\(pixels).a8"
            guard let file = fopen(path, "wb") else { throw DrawingError("cannot write \(path)") }
            let written = mask.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            guard written == mask.count else { throw DrawingError("short write to \(path)") }
            print(path)
        }
    }
} catch {
    print("badge-icon-masks: \(error)")
    exit(1)
}
