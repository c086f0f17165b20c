import BadgeCore
import Testing

@Suite struct ColorTests {
    @Test func parsesHex() throws {
        let color = try #require(Color(hex: "#E53935"))
        #expect(color == Color.badgeRed)
        #expect(color.alpha == 1)
        let translucent = try #require(Color(hex: "#ff000080"))
        #expect(translucent.red == 1 && translucent.green == 0 && translucent.blue == 0)
        #expect(translucent.alpha == 128.0 / 255)
        #expect(Color(hex: "#FFFFFF") == .white)
        #expect(Color(hex: "#000000") == .black)
    }

    @Test(arguments: ["", "#", "E53935", "#E5393", "#E539355", "#GG0000", "#E53935FFF", "# 53935", "#ｅ53935", "#E53935\u{301}"])
    func rejectsMalformedHex(text: String) {
        #expect(Color(hex: text) == nil)
    }

    @Test func sanitizedClampsAndReplacesNonFinite() {
        let color = Color(red: 2, green: -1, blue: .nan, alpha: .infinity).sanitized(default: .badgeRed)
        #expect(color == Color(red: 1, green: 0, blue: Color.badgeRed.blue, alpha: 1))
    }
}
