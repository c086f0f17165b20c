import BadgeCore
import Testing

@Suite struct ClockTests {
    @Test func manualClockAdvances() {
        let clock = ManualClock()
        #expect(clock.now == 0)
        clock.advance(by: 0.5)
        #expect(clock.now == 0.5)
        clock.advance(by: -1)
        clock.advance(by: .nan)
        clock.advance(by: .infinity)
        #expect(clock.now == 0.5)
        clock.now = 3
        #expect(clock.now == 3)
        #expect(ManualClock(now: .nan).now == 0)
        #expect(ManualClock(now: 7).now == 7)
    }

    @Test func systemClockIsMonotonic() {
        let clock = SystemClock()
        let first = clock.now
        let second = clock.now
        #expect(first >= 0 && first < 60)
        #expect(second >= first)
    }
}
