import CXvfbHarness
import Glibc

/// The environment a child gets.
public struct ChildEnvironment: Sendable {
    let base: [String: String]?
    let adding: [String: String]
    let removing: [String]

    /// This process's environment, with `adding` set (replacing same-named variables) and the
    /// names in `removing` unset.
    public static func inherited(adding: [String: String] = [:], removing: [String] = []) -> ChildEnvironment {
        ChildEnvironment(base: nil, adding: adding, removing: removing)
    }

    /// Exactly these variables and nothing else.
    public static func exactly(_ variables: [String: String]) -> ChildEnvironment {
        ChildEnvironment(base: variables, adding: [:], removing: [])
    }

    /// The final `NAME=value` list.
    func entries() -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        let skip = Set(removing).union(adding.keys)
        if let base {
            for (k, v) in base.sorted(by: { $0.key < $1.key }) where !skip.contains(k) { result.append("\(k)=\(v)"); seen.insert(k) }
        } else {
            var p = xvfbharness_environ()
            while let entry = p?.pointee {
                let s = String(cString: entry)
                let name = String(s.prefix(while: { $0 != "=" }))
                if !skip.contains(name), !seen.contains(name) { result.append(s); seen.insert(name) }
                p = p?.advanced(by: 1)
            }
        }
        for (k, v) in adding.sorted(by: { $0.key < $1.key }) where !removing.contains(k) { result.append("\(k)=\(v)") }
        return result
    }

    /// ``entries()`` made hermetic for a test's child: without a `base`, every XDG config, state,
    /// data, cache and runtime folder the test did not name is a new private folder (returned, to
    /// be removed with the child), the user's desktop buses are unset unless named, and `MAILDIR`
    /// points at a folder that does not exist, so nothing the child does reaches the user's files,
    /// buses or mail, or the next test.
    func hermeticEntries() -> (entries: [String], privateFolder: String?) {
        var entries = entries()
        guard base == nil else { return (entries, nil) }
        let buses = ["DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS"].filter { adding[$0] == nil }
        entries.removeAll { entry in buses.contains { entry.hasPrefix($0 + "=") } }
        let xdg = ["XDG_CONFIG_HOME": "config", "XDG_STATE_HOME": "state", "XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache",
                   "XDG_RUNTIME_DIR": "runtime"]
        let missing = xdg.keys.filter { name in !entries.contains { $0.hasPrefix(name + "=") } }
        guard !missing.isEmpty else { return (entries, nil) }
        var template = Array("/tmp/badgekit-test-xdg-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let folder = made else { return (entries, nil) }
        for name in missing.sorted() {
            let path = folder + "/" + (xdg[name] ?? name)
            mkdir(path, 0o700)
            entries.append("\(name)=\(path)")
        }
        if !entries.contains(where: { $0.hasPrefix("MAILDIR=") }) { entries.append("MAILDIR=\(folder)/no-maildir") }
        return (entries, folder)
    }
}
