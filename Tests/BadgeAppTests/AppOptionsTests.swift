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
