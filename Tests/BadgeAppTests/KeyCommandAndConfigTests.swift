import BadgeCore
import Testing
import BadgeX11
@testable import BadgeApp

@Suite struct KeyCommandTests {
    func press(_ symbol: UInt32, _ text: String = "", control: Bool = false, shift: Bool = false) -> KeyPress {
        KeyPress(symbol: symbol, text: text, control: control, shift: shift)
    }

    @Test func demoKeysComeBeforeTheToolbarKeys() {
        #expect(KeyCommand.command(for: press(KeySymbol.escape)) == .quit)
        #expect(KeyCommand.command(for: press(KeySymbol.q, "q", control: true)) == .quit)
        #expect(KeyCommand.command(for: press(KeySymbol.capitalQ, "Q", control: true, shift: true)) == .quit)
        #expect(KeyCommand.command(for: press(KeySymbol.q, "q")) == nil)
        #expect(KeyCommand.command(for: press(0x74, "t", control: true)) == nil)
        #expect(KeyCommand.command(for: press(0x74, "t")) == .cycleChatText)
        #expect(KeyCommand.command(for: press(0x62, "b")) == .toggleBlink)
        #expect(KeyCommand.command(for: press(0x6f, "o")) == .toggleOverflow)
        #expect(KeyCommand.command(for: press(0x72, "r")) == .toggleReducedMotion)
        #expect(KeyCommand.command(for: press(0x61, "a")) == nil)
        // The toolbar's own keys are not the demo's: the shell answers them.
        for symbol in [KeySymbol.tab, KeySymbol.space, KeySymbol.minus, KeySymbol.delete] {
            #expect(KeyCommand.command(for: press(symbol)) == nil)
        }
    }

    @Test func cyclesChatTexts() {
        #expect(KeyCommand.nextChatText(after: "New") == "一个信息")
        #expect(KeyCommand.nextChatText(after: "Super long text badge") == "New")
        #expect(KeyCommand.nextChatText(after: nil) == "New")
    }
}

@Suite struct ToolbarConfigTests {
    func parse(_ text: String) -> Result<ToolbarConfig, ToolbarConfig.Error> {
        Result { () throws(ToolbarConfig.Error) in try ToolbarConfig.parse(Array(text.utf8), file: "t.json") }
    }

    @Test func parsesAFullConfig() throws {
        let config = try parse("""
            {"theme": "dark", "scale": 2, "buttons": [
              {"id": "a", "icon": "bell", "label": "A", "content": {"kind": "count", "count": 5},
               "style": {"background": "#102030", "textColor": "#FFFFFF", "fontSize": 13, "maximumCount": 9, "maximumTextLength": 4}},
              {"id": "b", "icon": "/x/y.svg", "content": {"kind": "dot", "blink": true}},
              {"id": "c", "content": {"kind": "text", "text": "hi"}}]}
            """).get()
        #expect(config.theme == .dark && config.scale == 2)
        #expect(config.buttons.map(\.id) == ["a", "b", "c"])
        #expect(config.buttons[0].content == .count(5) && config.buttons[0].format.maximumCount == 9)
        #expect(config.buttons[0].style.backgroundColor == Color(hex: "#102030") && config.buttons[0].style.font.size == 13)
        #expect(config.buttons[1].iconPath == "/x/y.svg" && config.buttons[1].blinks)
        #expect(config.buttons[2].label == "c" && config.buttons[2].iconName == "c")
    }

    @Test(arguments: [
        ("[1]", "t.json: top level"),
        ("{\"buttons\": [{\"id\": \"a b\"}]}", "buttons[0].id"),
        ("{\"buttons\": [{\"id\": \"all\"}]}", "buttons[0].id"),
        // An id is echoed in messages: a C1 control, a line separator or a bidi control is refused.
        ("{\"buttons\": [{\"id\": \"a\\u0085b\"}]}", "buttons[0].id"),
        ("{\"buttons\": [{\"id\": \"a\\u2028b\"}]}", "buttons[0].id"),
        ("{\"buttons\": [{\"id\": \"a\\u202Eb\"}]}", "buttons[0].id"),
        ("{\"buttons\": [{\"id\": \"a\", \"style\": {\"textColor\": \"#12345\"}}]}", "buttons[0].style.textColor"),
        ("{\"buttons\": [{\"id\": \"a\", \"style\": {\"maximumCount\": 0}}]}", "buttons[0].style.maximumCount"),
        ("{\"buttons\": [{\"id\": \"a\", \"content\": {\"kind\": \"blob\"}}]}", "buttons[0].content.kind"),
        ("{\"buttons\": [{\"id\": \"a\", \"content\": {\"kind\": \"count\", \"count\": -2}}]}", "buttons[0].content.count"),
        ("{\"buttons\": [{\"id\": 7}]}", "buttons[0].id: expected a string"),
    ])
    func rejectsWithFileFieldAndReason(text: String, expected: String) {
        switch parse(text) {
        case .success: Issue.record("\(text) should be rejected")
        case .failure(let error):
            #expect(error.message.hasPrefix("t.json: ") && error.message.contains(expected), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }

    @Test("Every unknown key anywhere gets a warning with its path and the nearest known key; the file still loads")
    func unknownKeysAreWarnedAbout() throws {
        let config = try parse("""
            {"thme": "dark", "control": {"allowroot": true},
             "buttons": [{"id": "a", "lable": "A", "icn": "bell"},
                         {"id": "b", "sorce": {"maildir": "~/M"}, "style": {"fontsize": 12, "zzz": 1}},
                         {"id": "c", "source": {"maildir": "~/M", "foldres": ["INBOX"]}, "click": {"rn": "x"}},
                         {"id": "d", "source": {"notifications": {"aps": ["x"]}}}]}
            """).get()
        #expect(config.warnings == [
            #"t.json: thme: unknown key; did you mean "theme"?"#,
            #"t.json: control.allowroot: unknown key; did you mean "allowRoot"?"#,
            #"t.json: buttons[0].lable: unknown key; did you mean "label"?"#,
            #"t.json: buttons[0].icn: unknown key; did you mean "icon"?"#,
            #"t.json: buttons[1].sorce: unknown key; did you mean "source"?"#,
            #"t.json: buttons[1].style.fontsize: unknown key; did you mean "fontSize"?"#,
            "t.json: buttons[1].style.zzz: unknown key",
            #"t.json: buttons[2].source.foldres: unknown key; did you mean "folders"?"#,
            #"t.json: buttons[2].click.rn: unknown key; did you mean "run"?"#,
            #"t.json: buttons[3].source.notifications.aps: unknown key; did you mean "apps"?"#,
        ])
        #expect(config.buttons.map(\.id) == ["a", "b", "c", "d"])
        #expect(config.theme == nil && config.buttons[0].label == "a" && config.buttons[1].source == nil)
        #expect(config.buttons[2].source == .maildir(paths: ["~/M"], folders: [], newOnly: false) && config.buttons[2].click == nil)
        #expect(try parse(#"{"buttons": [{"id": "a"}]}"#).get().warnings.isEmpty)
    }

    @Test("click: run, raise, launch, or count (the demo's +1 kept on a bound button)")
    func clickActions() throws {
        let config = try parse(#"""
            {"buttons": [{"id": "a", "click": {"count": true}, "source": {"maildir": "~/M"}},
                         {"id": "b", "click": {"launch": "application://org.telegram.desktop.desktop"}},
                         {"id": "c", "source": {"launcher": "org.telegram.desktop"}}]}
            """#).get()
        #expect(config.buttons.map(\.click) == [.count, .launch(desktopID: "application://org.telegram.desktop.desktop"),
                                                .launch(desktopID: "org.telegram.desktop")])
        #expect(throws: ToolbarConfig.Error.self) { try parse(#"{"buttons": [{"id": "a", "click": {"count": 1}}]}"#).get() }
    }

    @Test("A file with only settings keeps the bundled buttons and their sources")
    func settingsOnly() throws {
        let config = try parse(#"{"theme": "dark", "monitors": {"HDMI-1": 1.5}}"#).get()
        #expect(config.theme == .dark && !config.listsButtons && config.warnings.isEmpty)
        #expect(config.buttons.map(\.id) == ["bell", "mail", "chat", "updates"])
        #expect(config.monitorScales.perMonitor == ["HDMI-1": 1.5])
    }

    @Test func defaultToolbarHasEveryBadgeKind() {
        let config = DemoToolbar.defaultConfig
        #expect(config.buttons.map(\.id) == AppOptions.buttonIDs)
    }

}
