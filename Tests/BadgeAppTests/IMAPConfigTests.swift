@testable import BadgeApp
import BadgeSources
import Testing

/// `"imap"` in the config file: the defaults, the password never in the file, cleartext only on
/// loopback, and every mistake a clear message naming the field.
@Suite("IMAP in the config file")
struct IMAPConfigTests {
    func parse(_ source: String) -> Result<ToolbarConfig, ToolbarConfig.Error> {
        let text = #"{"buttons": [{"id": "mail", "source": {"imap": \#(source)}}]}"#
        return Result { () throws(ToolbarConfig.Error) in try ToolbarConfig.parse(Array(text.utf8), file: "t.json") }
    }

    @Test("Defaults: implicit TLS on 993, INBOX, the password from a command, 4 min keepalive")
    func defaults() throws {
        let config = try parse(#"{"host": "imap.example.org", "user": "me", "password": {"command": ["pass", "show", "mail"]}}"#).get()
        guard case .imap(let account, let password, let timing, let open)? = config.buttons.first?.source else {
            Issue.record("\(String(describing: config.buttons.first?.source))"); return
        }
        #expect(account == IMAPAccount(host: "imap.example.org", port: 993, security: .implicitTLS, user: "me", folders: ["INBOX"]))
        #expect(password == .command(["pass", "show", "mail"]) && timing == IMAPTiming() && open == nil && config.warnings.isEmpty)
        #expect(account.summary == "me@imap.example.org INBOX")
    }

    @Test("STARTTLS on 143, folders, a CA file, the Secret Service, keepalive and timeout")
    func everything() throws {
        let config = try parse(#"""
            {"host": "mail.home.lan", "security": "starttls", "user": "me", "folders": ["INBOX", "Lists/rust"],
             "caFile": "~/ca.pem", "keepalive": 60, "timeout": 5,
             "password": {"secretService": {"service": "imap", "user": "me"}}}
            """#).get()
        guard case .imap(let account, let password, let timing, _)? = config.buttons.first?.source else { Issue.record("no imap"); return }
        #expect(account.port == 143 && account.security == .startTLS && account.folders == ["INBOX", "Lists/rust"] && account.caFile == "~/ca.pem")
        #expect(password == .secretService(["service": "imap", "user": "me"]))
        #expect(timing.keepalive == 60 && timing.reply == 5)
        #expect(config.warnings.isEmpty)
    }

    @Test(arguments: [
        (#"{"host": "h", "user": "me", "password": "hunter2"}"#, "a password never goes in the config file"),
        (#"{"host": "h", "user": "me"}"#, "password: expected"),
        (#"{"user": "me", "password": {"command": ["p"]}}"#, "imap.host"),
        (#"{"host": "h", "password": {"command": ["p"]}}"#, "imap.user"),
        (#"{"host": "imap.example.org", "user": "me", "security": "none", "password": {"command": ["p"]}}"#, "allowed only for a host on loopback"),
        (#"{"host": "h", "user": "me", "security": "ssl", "password": {"command": ["p"]}}"#, "imap.security"),
        (#"{"host": "h", "user": "me", "port": 0, "password": {"command": ["p"]}}"#, "imap.port"),
        (#"{"host": "h", "user": "me", "keepalive": 3600, "password": {"command": ["p"]}}"#, "28 min"),
        (#"{"host": "h", "user": "me", "password": {"secretService": {}}}"#, "1 to 16 attributes"),
    ])
    func refuses(text: String, expected: String) {
        switch parse(text) {
        case .success: Issue.record("\(text) should be refused")
        case .failure(let error):
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(!error.message.contains("hunter2"), "the refused password is not repeated")
        }
    }

    @Test("Cleartext is taken for loopback; a misspelled key is warned about")
    func loopbackAndTypos() throws {
        let config = try parse(#"{"host": "127.0.0.1", "port": 1143, "security": "none", "user": "me", "pasword": 1, "password": {"command": "pass show mail"}}"#).get()
        guard case .imap(let account, let password, _, _)? = config.buttons.first?.source else { Issue.record("no imap"); return }
        #expect(account.security == .cleartext && account.port == 1143 && password == .command(["pass", "show", "mail"]))
        #expect(config.warnings == [#"t.json: buttons[0].source.imap.pasword: unknown key; did you mean "password"?"#])
    }

    @Test("\"open\" beside \"imap\" (as the docs show it) is taken without a warning; inside \"imap\" it is taken with a warning naming its place")
    func openPlace() throws {
        let beside = #"{"buttons": [{"id": "mail", "source": {"imap": {"host": "h", "user": "me", "password": {"command": ["p"]}}, "open": ["neomutt", "{uid}"]}}]}"#
        let config = try ToolbarConfig.parse(Array(beside.utf8), file: "t.json")
        guard case .imap(_, _, _, let open)? = config.buttons.first?.source else { Issue.record("no imap"); return }
        #expect(open == ["neomutt", "{uid}"] && config.warnings.isEmpty, "\(config.warnings)")
        let inside = try parse(#"{"host": "h", "user": "me", "password": {"command": ["p"]}, "open": ["neomutt", "{uid}"]}"#).get()
        guard case .imap(_, _, _, let taken)? = inside.buttons.first?.source else { Issue.record("no imap"); return }
        #expect(taken == ["neomutt", "{uid}"])
        #expect(inside.warnings == [#"t.json: buttons[0].source.imap.open: belongs beside "imap" (as source.open), not inside it; "#
            + "it is taken from here this time, but move it"], "\(inside.warnings)")
        #expect(!inside.warnings.contains { $0.contains("unknown key") })
    }

    @Test("A misspelled key that leaves a required one missing says \"did you mean\" in the error itself (the warnings of a refused file are never shown)")
    func didYouMeanInErrors() {
        let cases = [
            (#"{"host": "h", "user": "me", "pasword": {"command": ["p"]}}"#,
             #"buttons[0].source.imap.pasword: unknown key, did you mean "password"?"#),
            (#"{"host": "h", "user": "me", "password": {"comand": ["p"]}}"#,
             #"buttons[0].source.imap.password.comand: unknown key, did you mean "command"?"#),
            (#"{"hots": "h", "user": "me", "password": {"command": ["p"]}}"#,
             #"buttons[0].source.imap.hots: unknown key, did you mean "host"?"#),
        ]
        for (text, expected) in cases {
            switch parse(text) {
            case .success: Issue.record("\(text) should be refused")
            case .failure(let error): #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        // An unrelated unknown key is not dragged into the error.
        if case .failure(let error) = parse(#"{"host": "h", "user": "me", "colour": 1}"#) {
            #expect(!error.message.contains("colour"), "\(error.message)")
        }
    }

    @Test("\"auth\": xoauth2 or oauthbearer takes the password command's output as an OAuth2 token; another value is refused")
    func oauth() throws {
        let config = try parse(#"{"host": "outlook.office365.com", "user": "me@outlook.com", "auth": "xoauth2", "password": {"command": ["oama", "access", "me@outlook.com"]}}"#).get()
        guard case .imap(let account, let password, _, _)? = config.buttons.first?.source else { Issue.record("no imap"); return }
        #expect(account.mechanism == .xoauth2 && password == .command(["oama", "access", "me@outlook.com"]) && config.warnings.isEmpty)
        let bearer = try parse(#"{"host": "h", "user": "me", "auth": "oauthbearer", "password": {"command": ["t"]}}"#).get()
        guard case .imap(let other, _, _, _)? = bearer.buttons.first?.source else { Issue.record("no imap"); return }
        #expect(other.mechanism == .oauthBearer)
        switch parse(#"{"host": "h", "user": "me", "auth": "oauth", "password": {"command": ["t"]}}"#) {
        case .success: Issue.record("auth oauth was taken")
        case .failure(let error): #expect(error.message.contains("imap.auth: expected \"password\" (the default), \"xoauth2\" or \"oauthbearer\""), "\(error.message)")
        }
    }

    @Test("A list of accounts is one summed source, each named (by default user@host); names must differ; unknown keys inside are warned about with their index")
    func accounts() throws {
        let config = try parse(#"[{"name": "work", "host": "imap.work.example", "user": "me", "password": {"command": ["p"]}}, {"host": "imap.home.example", "user": "me", "pasword": 1, "password": {"command": ["q"]}}]"#).get()
        guard case .sum(let parts)? = config.buttons.first?.source else { Issue.record("\(String(describing: config.buttons.first?.source))"); return }
        #expect(parts.map(\.name) == ["work", "me@imap.home.example"])
        guard case .imap(let home, _, _, _) = parts[1].config else { Issue.record("no imap"); return }
        #expect(home.host == "imap.home.example")
        #expect(config.warnings == [#"t.json: buttons[0].source.imap[1].pasword: unknown key; did you mean "password"?"#], "\(config.warnings)")
        switch parse(#"[{"name": "a", "host": "h", "user": "me", "password": {"command": ["p"]}}, {"name": "a", "host": "g", "user": "me", "password": {"command": ["p"]}}]"#) {
        case .success: Issue.record("two accounts named a were taken")
        case .failure(let error): #expect(error.message.contains("imap[1].name: each account needs a name of its own"), "\(error.message)")
        }
        switch parse("[]") {
        case .success: Issue.record("no account was taken")
        case .failure(let error): #expect(error.message.contains("expected 1 to 8 accounts"), "\(error.message)")
        }
    }
}
