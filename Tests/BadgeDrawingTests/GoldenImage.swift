import BadgeDrawing
import Glibc
import Testing
import XvfbHarness

/// Compares rendered images with the golden PNGs in Tests/BadgeDrawingTests/Golden.
///
/// Tolerance: a pixel matches when every channel differs by at most `channelTolerance` (16 of 255:
/// absorbs anti-aliasing and hinting differences between FreeType/pixman builds), and an image
/// matches when at most `outlierFraction` (0.2 %) of its pixels do not. Sizes must be equal.
/// On a mismatch the actual image and a diff image (mismatching pixels in red) are written under
/// .build/test-artifacts/golden/ and their paths printed. BADGE_UPDATE_GOLDENS=1 rewrites the
/// goldens instead: regenerating is deliberate, never silent.
enum GoldenImage {
    static let channelTolerance = 16
    static let outlierFraction = 0.002

    static var goldenDirectory: String {
        let file = #filePath
        let directory = file[..<(file.lastIndex(of: "/") ?? file.endIndex)]
        return String(directory) + "/Golden"
    }

    static var updating: Bool {
        guard let value = getenv("BADGE_UPDATE_GOLDENS") else { return false }
        let flag = String(cString: value)
        return !flag.isEmpty && flag != "0"
    }

    /// Asserts that `image` matches the golden `name`.png.
    static func assertMatches(_ image: ImageSurface, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let goldenPath = "\(goldenDirectory)/\(name).png"
        if updating {
            try image.writePNG(to: goldenPath)
            return
        }
        guard access(goldenPath, R_OK) == 0 else {
            let actual = try writeArtifact(image, name: "\(name).actual")
            Issue.record("no golden image \(goldenPath); the rendering is at \(actual). Run with BADGE_UPDATE_GOLDENS=1 to create it.",
                         sourceLocation: sourceLocation)
            return
        }
        let golden = try ImageSurface(contentsOfPNG: goldenPath)
        guard golden.width == image.width, golden.height == image.height else {
            let actual = try writeArtifact(image, name: "\(name).actual")
            Issue.record("\(name): size \(image.width)×\(image.height) differs from the golden's \(golden.width)×\(golden.height); actual image: \(actual)",
                         sourceLocation: sourceLocation)
            return
        }
        let diff = try ImageSurface(width: image.width, height: image.height)
        var outliers = 0
        var worst = 0
        try diff.draw { _ in }
        for y in 0..<image.height {
            for x in 0..<image.width {
                let a = image.pixel(x: x, y: y), b = golden.pixel(x: x, y: y)
                let da: Int = abs(Int(a.alpha) - Int(b.alpha)), dr: Int = abs(Int(a.red) - Int(b.red))
                let dg: Int = abs(Int(a.green) - Int(b.green)), db: Int = abs(Int(a.blue) - Int(b.blue))
                let delta = max(max(da, dr), max(dg, db))
                worst = max(worst, delta)
                if delta > channelTolerance {
                    outliers += 1
                    diff.setPixel(x: x, y: y, alpha: 255, red: 255, green: 0, blue: 0)
                } else {
                    let brightness: Int = (Int(a.red) + Int(a.green) + Int(a.blue)) / 3
                    let grey = UInt8(200 + brightness * 55 / 255)
                    diff.setPixel(x: x, y: y, alpha: 255, red: grey, green: grey, blue: grey)
                }
            }
        }
        let allowed = Int(Double(image.width * image.height) * outlierFraction)
        if outliers > allowed {
            let actual = try writeArtifact(image, name: "\(name).actual")
            let diffPath = try writeArtifact(diff, name: "\(name).diff")
            Issue.record("\(name): \(outliers) pixels differ from the golden by more than \(channelTolerance) (allowed \(allowed), worst \(worst)). actual: \(actual) diff: \(diffPath) golden: \(goldenPath)",
                         sourceLocation: sourceLocation)
        }
    }

    private static func writeArtifact(_ image: ImageSurface, name: String) throws -> String {
        // The harness's artifact folder (.build/test-artifacts, or BADGE_TEST_ARTIFACTS), under golden/.
        let file = try Artifacts.path(for: "golden/\(name).png")
        try image.writePNG(to: file)
        print("golden test artifact: \(file)")
        return file
    }
}
