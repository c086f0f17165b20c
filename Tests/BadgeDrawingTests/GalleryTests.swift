import BadgeCore
import BadgeDrawing
import TestSupport
import Testing

/// The contact sheet covers every content kind × scale × theme × direction and each animation's
/// frames; comparing it with its golden checks all of them at once.
@Suite(.drawsWithCairo) struct GalleryTests {
    @Test func galleryMatchesGolden() throws {
        let sheet = try BadgeGallery.renderImage()
        #expect(sheet.width > 1000 && sheet.height > 1000)
        try GoldenImage.assertMatches(sheet, named: "gallery")
    }
}
