import BadgeCore
import BadgeControl
import Glibc
import Testing
import XvfbHarness

/// Every sentence in the user's language (issue 39): the app and `msg` run in German, with no
/// BADGEKIT_LOCALEDIR (the binary finds the catalogues `make locale` built beside it, as the
/// release binary does after `make release`), and nothing they say to people holds an English
/// sentence: explain (a command's and an IMAP account's errors), the tooltip's and screen reader's
/// description of a source, the peek, a config warning on standard error, msg's own errors (with
/// `--start`'s), and the instance's error replies (a refusal to mark read among them).
@Suite("E2E: every word in German", .endToEnd(minutes: 1))
struct GermanWordsTests {
    /// English words that no German sentence here holds (the control verbs, "in", "hand", "option" are
    /// left out: they are German words too, or names the German text keeps, as "buttons" in a JSON path).
    static let englishWords: Set<String> = [
        "the", "from", "ago", "unknown", "expected", "is", "are", "not", "no", "by", "and", "or", "of", "to", "source",
        "command", "button", "key", "did", "you", "mean", "reading", "yet", "until", "its", "changed",
        "overridden", "running", "instance", "file", "keeping", "toolbar", "unread", "again", "more", "than",
        "connect", "connection", "refused", "trying", "marked", "cannot", "runs", "failed", "item", "has",
    ]

    /// The English words in `text` (words are runs of letters, compared in lower case).
    static func english(in text: String) -> [String] {
        text.split(whereSeparator: { !$0.isLetter }).map { $0.lowercased() }.filter { englishWords.contains($0) }
    }

    static let german = ["LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8", "LANGUAGE": "de"]

    /// Runs `badge-demo msg ARGUMENTS` in German to its end: its status and standard error's lines.
    static func msg(_ arguments: [String], runtime: String) throws -> (status: ProcessTermination?, lines: [String]) {
        let client = try ChildProcess(executable: try BuiltProducts.executable(named: "badge-demo"), arguments: ["msg"] + arguments,
                                      environment: .inherited(adding: german.merging(["XDG_RUNTIME_DIR": runtime]) { $1 },
                                                              removing: ["DISPLAY", "BADGEKIT_LOCALEDIR", "DBUS_SESSION_BUS_ADDRESS"]))
        client.closeStdin()
        while try client.readLine(timeout: 30) != nil {}
        let status = client.waitForExit(timeout: 10)
        return (status, client.stderrText.split(separator: "\n").map(String.init))
    }

    @Test("The app and msg in German: explain, description, peek, a config warning, msg's errors and the instance's")
    func everythingSaidIsGerman() throws {
        #expect(access(LocaleTests.catalogues + "/de/LC_MESSAGES/badge-demo.mo", R_OK) == 0, "run `make locale` first (make test does)")
        #expect(getenv("BADGEKIT_LOCALEDIR") == nil, "the test finds the catalogues as the binary does")
        let runtime = try BarStreamTests.runtimeFolder("german")
        defer { removeTree(runtime) }
        let config = try Artifacts.path(for: "german-words-\(getpid()).json")
        defer { unlink(config) }
        // An IMAP server that refuses: a port bound on loopback that does not listen (connect is refused at once).
        let (refusing, port) = try Self.boundPortNotListening()
        defer { close(refusing) }
        let file = fopen(config, "w")
        fputs(#"{"buttons": [{"id": "mail", "icon": "mail", "label": "Post", "lable": "x", "source": {"command": ["printf", "3"]}},"#
              + #" {"id": "ci", "icon": "chat", "label": "CI", "source": {"command": ["sh", "-c", "exit 3"]}},"#
              + #" {"id": "imap", "icon": "mail", "label": "IMAP", "source": {"imap": {"host": "127.0.0.1", "port": \#(port), "user": "alice","#
              + #" "security": "none", "timeout": 2, "password": {"command": ["printf", "pw"]}}}}]}"#, file)
        fclose(file)

        let s = try DemoSession("german-words", arguments: ["--config", config, "--no-state"],
                                environment: Self.german.merging(["XDG_RUNTIME_DIR": runtime]) { $1 })
        // The config warning, on standard error in German.
        let warnings = s.app.stderrText.split(separator: "\n").map(String.init)
        #expect(warnings.count == 1 && warnings.first?.contains("buttons[0].lable: unbekannter Schlüssel; war \"label\" gemeint?") == true,
                "stderr: \(s.app.stderrText)")
        for line in warnings { #expect(Self.english(in: line).isEmpty, "English in \(line)") }

        // explain and the description (tooltip, screen reader) once the command has answered.
        let deadline = Deadline(seconds: 10)
        var explained = JSONValue.null
        repeat {
            try s.command("explain mail")
            explained = try s.app.readEvent(named: "explain", timeout: 10)
        } while explained["source"]?["updated"] == nil && !deadline.hasPassed
        let text = explained["text"]?.string ?? ""
        #expect(text.hasPrefix("Post, 3 ungelesen, aus Befehl printf 3, vor ") && text.hasSuffix(" s"), "\(text)")
        #expect(Self.english(in: text).isEmpty, "English in explain: \(text)")
        let description = try s.state().button("mail").description
        #expect(description == "Post, 3 ungelesen, aus Befehl printf 3", "\(description)")
        #expect(explained["source"]?["description"]?.string == "command printf 3", "state and explain's JSON stay English")

        // A source that fails: why, in German.
        var failing = ""
        repeat {
            try s.command("explain ci")
            failing = try s.app.readEvent(named: "explain", timeout: 10)["text"]?.string ?? ""
        } while !failing.contains("Status") && !deadline.hasPassed
        #expect(failing.contains("aus Befehl sh -c exit 3") && failing.contains("nicht aktuell: sh endete mit Status 3"), "\(failing)")
        #expect(Self.english(in: failing).isEmpty, "English in explain: \(failing)")

        // An IMAP error: the refused connection and the retry, in German (the system's own words,
        // strerror's, come from glibc's German catalogue).
        var imap = ""
        repeat {
            try s.command("explain imap")
            imap = try s.app.readEvent(named: "explain", timeout: 10)["text"]?.string ?? ""
        } while !imap.contains("Versuch") && !deadline.hasPassed
        #expect(imap.contains("aus alice@127.0.0.1:\(port) INBOX") && imap.contains("nicht aktuell: keine Verbindung zu 127.0.0.1 möglich (127.0.0.1:\(port): ")
                && imap.contains("; neuer Versuch in "), "\(imap)")
        #expect(Self.english(in: imap).isEmpty, "English in explain: \(imap)")

        // The peek of a button with a source: its header says where the count comes from.
        try s.click(MouseButton.right, on: "mail")
        _ = try s.peekEvent("opened")
        let rows = try s.peek()?["rows"]?.array ?? []
        let said = rows.flatMap { [$0["title"]?.string, $0["detail"]?.string].compactMap { $0 } }
        #expect(said.contains("Neu lesen") && said.contains { $0.hasPrefix("aus Befehl printf 3, vor ") }, "\(said)")
        for line in said { #expect(Self.english(in: line).isEmpty, "English in the peek: \(line)") }

        // msg: its own check of a command, the instance's refusal, a bad option (the usage after
        // it is the reference text, in English like the man page).
        let unknown = try Self.msg(["frobnicate"], runtime: runtime)
        #expect(unknown.status == .exited(2))
        #expect(unknown.lines.first?.hasPrefix("badge-demo msg: unbekannter Befehl \"frobnicate\"; erwartet wird set, inc,") == true,
                "\(unknown.lines)")
        let refused = try Self.msg(["set", "nosuch", "3"], runtime: runtime)
        #expect(refused.status == .exited(2))
        #expect(refused.lines == ["badge-demo msg: unbekannte Schaltfläche \"nosuch\"; die Schaltflächen sind mail, ci, imap"], "\(refused.lines)")
        // A refusal to mark read: the item is not on the badge.
        let unmarked = try Self.msg(["act", "imap", "nosuch", "read"], runtime: runtime)
        #expect(unmarked.status == .exited(2))
        #expect(unmarked.lines == ["badge-demo msg: imap hat keinen Eintrag \"nosuch\""], "\(unmarked.lines)")
        let negative = try Self.msg(["dec", "mail", "-3"], runtime: runtime)
        #expect(negative.lines == ["badge-demo msg: dec: der Schritt muss 0 oder mehr sein, nicht -3"], "\(negative.lines)")
        let json = try Self.msg(["add", "mail", "{\"key\": 1"], runtime: runtime)
        #expect(json.lines.first?.hasPrefix("badge-demo msg: add: der Eintrag ist kein gültiges JSON: ") == true
                && json.lines.first?.hasSuffix("unerwartetes Ende des Textes in einem Objekt in Zeile 1, Spalte 10") == true, "\(json.lines)")
        let option = try Self.msg(["--frob"], runtime: runtime)
        #expect(option.lines.first == "badge-demo msg: unbekannte Option \"--frob\"", "\(option.lines)")
        for line in unknown.lines + refused.lines + unmarked.lines + negative.lines + json.lines + option.lines.prefix(1) {
            #expect(Self.english(in: line.replacingOccurrences(of: "badge-demo msg", with: "")).isEmpty, "English in \(line)")
        }
        let gone = try Self.msg(["state"], runtime: runtime + "/elsewhere")
        #expect(gone.status == .exited(1))
        #expect(gone.lines.first?.hasPrefix("badge-demo msg: keine Instanz läuft (niemand hört auf ") == true, "\(gone.lines)")
        // Activation: --start with no session bus to ask.
        let unstarted = try Self.msg(["--start", "state"], runtime: runtime + "/elsewhere")
        #expect(unstarted.status == .exited(1))
        #expect(unstarted.lines == ["badge-demo msg: keine Instanz läuft, und --start kann keine starten: DBUS_SESSION_BUS_ADDRESS ist nicht gesetzt"],
                "\(unstarted.lines)")
        for line in gone.lines + unstarted.lines {
            #expect(Self.english(in: line.replacingOccurrences(of: "badge-demo msg", with: "")).isEmpty, "English in \(line)")
        }
    }

    @Test("A binary whose catalogues are not where it looks says once, in English, where it looked")
    func missingCatalogueIsSaidOnce() throws {
        // Outside .build (which leads to .build/locale): a prefix with bin/ and no share/locale.
        var template = Array("/tmp/badgekit-no-catalogue-XXXXXX".utf8CString)
        let prefix = try #require(template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } })
        defer { removeTree(prefix) }
        #expect(mkdir(prefix + "/bin", 0o755) == 0)
        let binary = prefix + "/bin/badge-demo"
        let built = try BuiltProducts.executable(named: "badge-demo")
        #expect(link(built, binary) == 0 || Self.copyExecutable(built, to: binary), "cannot place the binary in \(prefix)/bin")
        let out = prefix + "/shot.png"
        let run = try ChildProcess(executable: binary, arguments: ["--screenshot", out],
                                   environment: .inherited(adding: Self.german, removing: ["DISPLAY", "BADGEKIT_LOCALEDIR"]))
        run.closeStdin()
        while try run.readLine(timeout: 30) != nil {}
        #expect(run.waitForExit(timeout: 30) == .exited(0))
        let lines = run.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "said once: \(run.stderrText)")
        #expect(lines.first?.contains("no catalogue for de at \(prefix)/share/locale/de/LC_MESSAGES/badge-demo.mo") == true,
                "\(run.stderrText)")
    }

    /// A TCP socket bound to a free loopback port and not listening (a connect to it is refused),
    /// and its port; the caller closes it.
    static func boundPortNotListening() throws -> (Int32, Int) {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socketFD >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0 }
        }
        try #require(bound, "cannot bind a loopback port")
        return (socketFD, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Copies `source` to `destination` (executable), for a temporary folder on another file system.
    static func copyExecutable(_ source: String, to destination: String) -> Bool {
        guard let input = fopen(source, "r"), let output = fopen(destination, "w") else { return false }
        defer { fclose(input); fclose(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&buffer, 1, buffer.count, input)
            if count <= 0 { break }
            guard fwrite(buffer, 1, count, output) == count else { return false }
        }
        return chmod(destination, 0o755) == 0
    }
}
