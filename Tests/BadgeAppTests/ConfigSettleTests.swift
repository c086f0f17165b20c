@testable import BadgeApp
import Testing

/// The settle of a half-saved config file (issue 39, part 6): which readings wait, which are
/// reported, and when.
@Suite("Config settle: a half-saved file is read again, reported only if it stays bad")
struct ConfigSettleTests {
    @Test("a cut reading waits; the next change's good reading applies, and nothing is left waiting")
    func cutThenGood() {
        var settle = ConfigSettle()
        let r1 = settle.verdict(on: .cut, asked: false, now: 10)
        #expect(r1 == .wait)
        #expect(abs((settle.timeUntilDue(now: 10) ?? 0) - ConfigSettle.period) < 1e-9)
        let r2 = settle.verdict(on: .good, asked: false, now: 10.15)
        #expect(r2 == .apply)
        #expect(settle.timeUntilDue(now: 10.15) == nil, "no wakeup left")
        let r3 = settle.takeIfDue(now: 11)
        #expect(!r3)
    }

    @Test("a file that stays cut: more cut readings wait without moving the deadline; the deadline's reading reports, once")
    func staysCut() {
        var settle = ConfigSettle()
        let r4 = settle.verdict(on: .cut, asked: false, now: 10)
        #expect(r4 == .wait)
        let r5 = settle.verdict(on: .cut, asked: false, now: 10.2)
        #expect(r5 == .wait)
        #expect(settle.due == 10 + ConfigSettle.period, "not pushed back by a writer that keeps writing")
        let r6 = settle.takeIfDue(now: 10.2)
        #expect(!r6)
        let r7 = settle.takeIfDue(now: 10.35)
        #expect(r7)
        let r8 = settle.takeIfDue(now: 10.4)
        #expect(!r8, "once")
        let r9 = settle.verdict(on: .cut, asked: true, now: 10.35)
        #expect(r9 == .report)
        #expect(settle.timeUntilDue(now: 10.4) == nil)
    }

    @Test("a change seen after the deadline, before the loop's own reading, reports")
    func cutPastTheDeadline() {
        var settle = ConfigSettle()
        let r10 = settle.verdict(on: .cut, asked: false, now: 10)
        #expect(r10 == .wait)
        let r11 = settle.verdict(on: .cut, asked: false, now: 10.4)
        #expect(r11 == .report)
        #expect(settle.due == nil)
    }

    @Test("bad before its end, or read on SIGHUP: reported at once, and a waiting reading is dropped")
    func badAndAsked() {
        var settle = ConfigSettle()
        let r12 = settle.verdict(on: .bad, asked: false, now: 10)
        #expect(r12 == .report)
        let r13 = settle.verdict(on: .cut, asked: true, now: 10)
        #expect(r13 == .report, "SIGHUP asks now")
        let r14 = settle.verdict(on: .cut, asked: false, now: 10)
        #expect(r14 == .wait)
        let r15 = settle.verdict(on: .bad, asked: false, now: 10.1)
        #expect(r15 == .report)
        #expect(settle.due == nil)
        let r16 = settle.verdict(on: .cut, asked: false, now: 11)
        #expect(r16 == .wait)
        settle.cancel()
        #expect(settle.timeUntilDue(now: 11) == nil, "a removed file: nothing waits")
    }

    @Test("the config's errors: empty and cut files are cut, a mistake in the middle or a bad field is not",
          arguments: [("", true), ("  \n", true), (#"{"buttons": [{"id": "ma"#, true), (#"{"theme": "da"#, true),
                      (#"{"theme" "dark"}"#, false), (#"{"theme": "dark",, }"#, false), (#"{"theme": "purple"}"#, false),
                      (#"{"buttons": []}"#, false), (#"[1]"#, false)] as [(String, Bool)])
    func cutOrBad(text: String, cut: Bool) {
        do {
            _ = try ToolbarConfig.parse(Array(text.utf8), file: "c.json")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.isCut == cut, "\(text): \(error)")
        }
    }
}
