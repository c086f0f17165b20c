import BadgeCore
import Glibc
import Testing
import XvfbHarness

/// A small deterministic generator (SplitMix64) so a failing fuzz run can be repeated.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The control channel under hostile input.
@Suite("E2E: control channel fuzzing", .endToEnd(minutes: 2))
struct ControlFuzzTests {
    @Test("Random bytes, a 1 MB line, invalid UTF-8, unknown ids, huge numbers and a 10,000-command burst")
    func fuzz() throws {
        let s = try DemoSession("fuzz")
        try s.moveAwayAndSync()
        let rss0 = try s.app.residentKilobytes()
        var lines = 0
        var errorsExpected = 0

        // Random bytes, newline-separated: every line is an error (none can be a valid command).
        var random = SplitMix64(state: 0x5EED)
        var bytes: [UInt8] = []
        for _ in 0..<500 {
            let length = Int(random.next() % 200) + 1
            for _ in 0..<length {
                var b = UInt8(truncatingIfNeeded: random.next())
                if b == 0x0A { b = 0x0B }
                bytes.append(b)
            }
            // A leading 0xFF byte makes the line invalid UTF-8 or an unknown verb, never a command.
            bytes[bytes.count - length] = 0xFF
            bytes.append(0x0A)
            lines += 1
            errorsExpected += 1
        }
        // A 1 MB line, then invalid UTF-8, unknown ids, numbers beyond Int64, empty and blank lines.
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20) + [0x0A]
        lines += 1; errorsExpected += 1
        bytes += [0x69, 0x6E, 0x63, 0x20, 0xC3, 0x28, 0x0A]  // "inc \xC3(" invalid UTF-8
        lines += 1; errorsExpected += 1
        for line in ["inc nosuch", "set \u{1F600} 3", "set bell 99999999999999999999", "inc bell -99999999999999999999999",
                     "set bell 1e3", "dec bell 18446744073709551616", "", "   ", "text", "dot bell nope", "clear", "sync",
                     "set bell 9223372036854775807", "inc bell 9223372036854775807"] {
            bytes += Array((line + "\n").utf8)
            lines += 1
            if !line.hasPrefix("set bell 9223372036854775807") && !line.hasPrefix("inc bell 9223372036854775807") { errorsExpected += 1 }
        }
        try s.app.writeDraining(bytes)
        try s.sync()
        let errors = s.app.takePendingEvents(named: "error")
        #expect(errors.count == errorsExpected, "expected \(errorsExpected) errors, got \(errors.count)")
        #expect(errors.allSatisfy { ($0["line"]?.int ?? 0) >= 1 && ($0["line"]?.int ?? 0) <= lines && !($0["reason"]?.string ?? "").isEmpty })
        let saturated = s.unconsumedChanges()
        #expect(saturated.count == 2, "set and inc at Int64.max: \(saturated.count) changes")
        #expect(try s.state().button("bell").text == "99+")

        // The window still answers clicks.
        try s.command("set bell 1")
        _ = try s.nextChange()
        try s.click(MouseButton.left, on: "bell")
        #expect(try s.nextChange()["cause"]?.string == "click")

        // Ten thousand commands in one burst: each has its effect (one change event each).
        var burst: [UInt8] = []
        for i in 0..<10_000 { burst += Array((i % 2 == 0 ? "inc mail\n" : "dec mail\n").utf8) }
        try s.app.writeDraining(burst)
        try s.sync(timeout: 60)
        let changes = s.unconsumedChanges()
        #expect(changes.count == 10_000, "10,000 commands gave \(changes.count) change events")
        #expect(try s.state().button("mail").text == "12")
        try s.moveAwayAndSync()
        try s.click(MouseButton.left, on: "mail")
        #expect(try s.nextChange()["text"]?.string == "13")

        let rss1 = try s.app.residentKilobytes()
        // Under AddressSanitizer freed memory sits in quarantine: resident memory says nothing there.
        #expect(addressSanitizerIsActive || rss1 - rss0 < 20_000, "resident memory grew from \(rss0) kB to \(rss1) kB")
        #expect(s.app.waitForExit(timeout: 0) == nil)
    }
}
