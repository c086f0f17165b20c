import BadgeControl

/// The JSON events a child prints on stdout, one a line (badge-demo's `--control` channel): read
/// by name, with the others kept in order for later.
extension ChildProcess {
    /// Reads JSON lines until one whose "event" field equals `name` (and that satisfies `matching`)
    /// appears, and returns it. Events already read and not yet returned are searched first; other
    /// events read on the way stay in `pendingEvents`. Throws on timeout or end of stdout, listing
    /// what was received.
    package func readEvent(named name: String, timeout: Double = 10,
                          matching: (JSONValue) -> Bool = { _ in true }) throws -> JSONValue {
        if let i = pendingEvents.firstIndex(where: { $0["event"]?.string == name && matching($0) }) {
            return pendingEvents.remove(at: i)
        }
        let deadline = Deadline(seconds: timeout)
        while true {
            let line: String?
            do {
                line = try readLine(timeout: Double(deadline.remainingMilliseconds) / 1000)
            } catch {
                throw HarnessError("timed out after \(timeout) s waiting for event \"\(name)\" from \(executable); "
                    + "unconsumed events: \(pendingEvents.map(\.description)); other lines: \(otherLines); "
                    + "stderr: '\(stderrText)'")
            }
            guard let line else {
                throw HarnessError("\(executable) closed stdout before event \"\(name)\" (\(exitDescription)); "
                    + "unconsumed events: \(pendingEvents.map(\.description)); stderr: '\(stderrText)'")
            }
            guard let value = try? JSONValue(parsing: line), value["event"]?.string != nil else {
                otherLines.append(line)
                continue
            }
            if recordsAllEvents { allEvents.append(value) }
            if value["event"]?.string == name && matching(value) { return value }
            pendingEvents.append(value)
        }
    }

    /// Removes and returns the unconsumed events named `name` (all of them when `name` is nil).
    package func takePendingEvents(named name: String? = nil) -> [JSONValue] {
        let taken = pendingEvents.filter { name == nil || $0["event"]?.string == name }
        pendingEvents.removeAll { name == nil || $0["event"]?.string == name }
        return taken
    }
}
