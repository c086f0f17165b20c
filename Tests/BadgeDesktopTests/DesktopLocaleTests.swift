import Testing
@testable import BadgeDesktop

@Suite struct DesktopLocaleTests {
    @Test("Catalogues: installed share/locale first; an uninstalled binary in .build finds .build/locale")
    func localeDirectory() {
        let installed = DesktopLocale.localeDirectory(forExecutable: "/usr/local/bin/badge-demo") { $0 == "/usr/local/share/locale" }
        #expect(installed == "/usr/local/share/locale")
        let built = DesktopLocale.localeDirectory(forExecutable: "/src/badgekit/.build/x86_64-unknown-linux-gnu/release/badge-demo") {
            $0 == "/src/badgekit/.build/locale"
        }
        #expect(built == "/src/badgekit/.build/locale")
        let neither = DesktopLocale.localeDirectory(forExecutable: "/opt/x/bin/badge-demo") { _ in false }
        #expect(neither == "/opt/x/share/locale")
    }

    @Test func translatedFormatsAreFilledWithoutPrintf() {
        #expect(DesktopLocale.substitute("%s unread", ["3"]) == "3 unread")
        #expect(DesktopLocale.substitute("%1$s、%2$s", ["メール", "未読 3 件"]) == "メール、未読 3 件")
        #expect(DesktopLocale.substitute("%2$s — %1$s", ["a", "b"]) == "b — a")
        // A bad translation never crashes and never reads past the values.
        #expect(DesktopLocale.substitute("%s %s %s %n %9$s 100%%", ["x"]) == "x   %n  100%")
        #expect(DesktopLocale.substitute("%", []) == "%")
    }

    @Test func digitsAreGroupedByThree() {
        #expect(DesktopLocale.group(12345, separator: ".") == "12.345")
        #expect(DesktopLocale.group(1234567, separator: "\u{202F}") == "1\u{202F}234\u{202F}567")
        #expect(DesktopLocale.group(999, separator: ".") == "999")
        #expect(DesktopLocale.group(12345, separator: "") == "12345")
        #expect(DesktopLocale.group(Int.min, separator: ",") == "-9,223,372,036,854,775,808")
    }

    @Test func languagesAndDirections() {
        #expect(DesktopLocale.language(of: "de_DE.UTF-8") == "de" && DesktopLocale.language(of: "C") == nil)
        #expect(DesktopLocale.language(of: "C.UTF-8") == nil && DesktopLocale.language(of: "POSIX") == nil)
        #expect(DesktopLocale.rightToLeftLanguages.contains("ar") && DesktopLocale.rightToLeftLanguages.contains("he"))
        #expect(!DesktopLocale.rightToLeftLanguages.contains("de"))
    }
}

@Suite struct MissingCatalogueTests {
    static func locale(_ name: String, directory: String? = "/opt/x/share/locale") -> DesktopLocale {
        DesktopLocale(name: name, unavailable: nil, language: DesktopLocale.language(of: name), groupingSeparator: "",
                      direction: .leftToRight, localeDirectory: directory)
    }

    @Test("A missing catalogue is named with the place it was looked for; found by the locale's name or language; none in English or C")
    func missingCatalogue() {
        let german = Self.locale("de_DE.UTF-8")
        #expect(german.missingCatalogue(domain: "badge-demo") { _ in false } == "/opt/x/share/locale/de/LC_MESSAGES/badge-demo.mo")
        #expect(german.missingCatalogue(domain: "badge-demo") { $0 == "/opt/x/share/locale/de/LC_MESSAGES/badge-demo.mo" } == nil)
        #expect(german.missingCatalogue(domain: "badge-demo") { $0 == "/opt/x/share/locale/de_DE/LC_MESSAGES/badge-demo.mo" } == nil)
        #expect(Self.locale("en_GB.UTF-8").missingCatalogue(domain: "badge-demo") { _ in false } == nil)
        #expect(Self.locale("C").missingCatalogue(domain: "badge-demo") { _ in false } == nil)
        #expect(Self.locale("de_DE.UTF-8", directory: nil).missingCatalogue(domain: "badge-demo") { _ in false } == nil)
    }
}
