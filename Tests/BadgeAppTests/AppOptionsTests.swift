import BadgeControl
import BadgeCore
import BadgeX11
@testable import BadgeApp
import Testing

@Suite struct AppOptionsTests {
    @Test func defaults() throws {
        let options = try AppOptions.parse([]).get()
        #expect(options.counts.isEmpty && !options.control && !options.reduceMotion && options.scale == nil)
        #expect(options.theme == .light)
    }

    @Test func countsAndFlags() throws {
        let options = try AppOptions.parse(["--count", "bell=7", "--count=mail=0", "--control", "--scale", "2",
                                             "--theme=dark", "--reduce-motion", "--screenshot", "x.png"]).get()
        #expect(options.counts == ["bell": 7, "mail": 0])
        #expect(options.control && options.reduceMotion && options.scale == 2 && options.theme == .dark)
        #expect(options.screenshotPath == "x.png")
    }

    @Test func environmentEnablesReducedMotion() throws {
        #expect(try AppOptions.parse([], environment: ["BADGE_REDUCE_MOTION": "1"]).get().reduceMotion)
        #expect(try !AppOptions.parse([], environment: ["BADGE_REDUCE_MOTION": "0"]).get().reduceMotion)
    }

    @Test(arguments: [
        ["--bogus"], ["--count"], ["--count", "bell"], ["--count", "bell=abc"], ["--count", "bell=-1"],
        ["--count", "bell=99999999999999999999999"], ["--scale", "0"], ["--scale", "nan"],
        ["--scale", "abc"], ["--theme", "pink"], ["--screenshot"], ["--control=yes"], ["--icon", "bell"],
    ])
    func badArgumentsAreRejectedWithAMessage(arguments: [String]) {
        // (An id no button has is checked against the config that runs: DemoToolbar.make.)
        switch AppOptions.parse(arguments) {
        case .success: Issue.record("\(arguments) should be rejected")
        case .failure(let error): #expect(!error.message.isEmpty && !error.message.contains("\n"))
        }
    }
}

@Suite struct CountIDTests {
    @Test("--count with an id of the user's config file parses: the buttons that run decide, not the bundled ids")
    func countIDsAreLeftToTheToolbar() throws {
        #expect(try AppOptions.parse(["--count", "inbox=3"]).get().counts == ["inbox": 3])
    }
}

@Suite struct LineReaderTests {
    @Test func splitsLinesAndBoundsLength() {
        var reader = LineReader(maximumLineLength: 8)
        let bytes: [UInt8] = Array("abc\nde".utf8) + Array("f\n0123456789\nok\n".utf8) + [0xff, 0x0a]
        let items = bytes.withUnsafeBytes { reader.feed($0) }
        #expect(items == [.line("abc", valid: true), .line("def", valid: true), .tooLong,
                          .line("ok", valid: true), .line("\u{FFFD}", valid: false)])
    }

    @Test("A line past the limit is told at once, before its newline; a part line is counted and can be dropped")
    func tellsTooLongAtOnceAndHoldsPartLines() {
        var reader = LineReader(maximumLineLength: 4)
        #expect(Array("abcdefgh".utf8).withUnsafeBytes { reader.feed($0) } == [.tooLong])
        #expect(reader.partialLength == 0)
        #expect(Array("ij\nset".utf8).withUnsafeBytes { reader.feed($0) } == [])
        #expect(reader.partialLength == 3)
        reader.dropPartialLine()
        #expect(Array("ok\n".utf8).withUnsafeBytes { reader.feed($0) } == [.line("ok", valid: true)])
    }
}

@Suite("Usage texts and msg's own checks")
struct UsageTextTests {
    @Test("--help and msg --help list every control command, hello, --watch and --format")
    func usageListsEverything() {
        for text in [AppOptions.usage, MessageClient.usage] {
            for form in ControlCommand.forms + ["hello", "--watch", "--format"] {
                #expect(text.contains(form), "\(form) missing from:\n\(text)")
            }
            #expect(text.split(separator: "\n").allSatisfy { $0.count <= 100 }, "a line wider than 100 columns")
        }
    }

    /// A man page line as it reads: the macro's arguments (quoted or not) joined as troff joins
    /// them (alternating fonts: no space; `.B`, `.I`: spaces), font changes and escapes removed.
    static func manText(_ line: String) -> String {
        var text = line
        if line.hasPrefix(".") {
            let macro = String(line.prefix { $0 != " " })
            var arguments: [String] = []
            var current = "", quoted = false, inArgument = false
            for character in line.dropFirst(macro.count) {
                if character == "\"", !quoted, !inArgument { quoted = true; inArgument = true; continue }
                if character == "\"", quoted { quoted = false; arguments.append(current); current = ""; inArgument = false; continue }
                if character == " ", !quoted {
                    if inArgument { arguments.append(current); current = ""; inArgument = false }
                    continue
                }
                current.append(character)
                inArgument = true
            }
            if inArgument { arguments.append(current) }
            text = arguments.joined(separator: [".B", ".I"].contains(macro) ? " " : "")
        }
        for (escape, plain) in [("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\fP", ""), ("\\-", "-"), ("\\~", " "), ("\\&", "")] {
            text = text.replacingAll(escape, with: plain)
        }
        return text
    }

    @Test("One list of commands: the man page's CONTROL CHANNEL and docs/control.md's table list exactly ControlCommand.forms")
    func manPageAndDocsListEveryForm() throws {
        let man = String(decoding: readFile(packageRoot() + "/Resources/badge-demo.1"), as: UTF8.self)
        let lines = man.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: ".SH CONTROL CHANNEL"))
        // The commands are the tagged paragraphs before the first .PP (the events follow it).
        let end = try #require(lines[start...].firstIndex(of: ".PP"))
        var tags: [String] = []
        for index in start..<end where lines[index].hasPrefix(".TP") && index + 1 < end {
            tags.append(Self.manText(lines[index + 1]))
        }
        #expect(tags == ControlCommand.forms, "the man page's commands, in order:\n\(tags.joined(separator: "\n"))")
        let docs = String(decoding: readFile(packageRoot() + "/docs/control.md"), as: UTF8.self)
        let table = docs.split(separator: "\n").map(String.init)
            .drop { $0 != "### Every command" }.prefix { !$0.hasPrefix("The socket adds") }
            .filter { $0.hasPrefix("| `") }
            .map { String($0.dropFirst(3).prefix { $0 != "`" }).replacingAll("\\|", with: "|") }
        #expect(Array(table) == ControlCommand.forms, "docs/control.md's table, in order:\n\(table.joined(separator: "\n"))")
        // Both usages, too, and the man page's msg synopsis has --start.
        #expect(AppOptions.usage.contains(MessageClient.usage) && MessageClient.usage.contains("--start"))
        #expect(lines.contains { Self.manText($0).contains("[--start | --profile NAME") })
    }

    @Test("msg checks a command line before it connects: a negative or malformed number is its own error",
          arguments: [("dec mail -3", "dec: the step must be 0 or more, not -3"), ("set mail x", "\"x\" is not a whole number"),
                      ("frob", nil), ("hello", nil), ("subscribe", nil), ("inc mail", nil), ("refresh all", nil)] as [(String, String?)])
    func msgChecksCommands(line: String, reason: String?) {
        let problem = MessageClient.problem(with: line)
        if line == "frob" {
            #expect(problem?.english.contains("unknown command") == true)
        } else {
            #expect(problem?.english == reason)
        }
    }
}
