// The D-Bus decoder's string step (Sources/BadgeIO/DBus) before (String(decoding:)) and after issue 38 (a NUL check and
// String(validating:)), on the strings a notification monitor sees, interleaved rounds.
import Glibc
let samples: [[UInt8]] = ["org.freedesktop.Notifications", "/org/freedesktop/Notifications", "Notify", "notify-send",
    "You have 3 new messages from Alice, Bob and Carol", "dialog-information", "urgency", ":1.42",
    "Eine Nachricht mit Umlauten: äöü ß", "通知のテキスト"].map { Array($0.utf8) }
@inline(never) func before(_ b: [UInt8]) -> Int { String(decoding: b, as: UTF8.self).utf8.count }
@inline(never) func after(_ b: [UInt8]) -> Int {
    guard !b.contains(0), let s = String(validating: b, as: UTF8.self) else { return -1 }
    return s.utf8.count
}
@inline(never) func onlyValidating(_ b: [UInt8]) -> Int { String(validating: b, as: UTF8.self)?.utf8.count ?? -1 }
@inline(never) func onlyContains(_ b: [UInt8]) -> Int { b.contains(0) ? -1 : String(decoding: b, as: UTF8.self).utf8.count }
func now() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }
var resultsB: [Double] = [], resultsA: [Double] = [], resultsV: [Double] = [], resultsC: [Double] = []
var sink = 0
for _ in 0..<15 {
    for which in 0..<4 {
        let t0 = now()
        for _ in 0..<100_000 { for s in samples { sink &+= which == 0 ? before(s) : which == 1 ? after(s) : which == 2 ? onlyValidating(s) : onlyContains(s) } }
        let ns = (now() - t0) / 1e6 * 1e9
        if which == 0 { resultsB.append(ns) } else if which == 1 { resultsA.append(ns) } else if which == 2 { resultsV.append(ns) } else { resultsC.append(ns) }
    }
}
func median(_ x: [Double]) -> Double { let s = x.sorted(); return s[s.count / 2] }
print("validating only \(median(resultsV)) ns, contains only \(median(resultsC)) ns")
print("per string: before \(median(resultsB)) ns, after \(median(resultsA)) ns, ratio \(median(resultsA) / median(resultsB)) (sink \(sink))")
