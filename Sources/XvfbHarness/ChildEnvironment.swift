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
}

/// A child process started with `posix_spawn`: empty signal mask, default dispositions for SIGTERM,
/// SIGINT, SIGPIPE and SIGCHLD, close-on-exec pipes, every other descriptor closed in the child
/// (only 0, 1, 2 and `extraDescriptors` are open there), reaped with `waitpid`.
///
/// Not thread-safe (and not Sendable): use it from the test that created it. Deinit kills (SIGKILL)
/// and reaps the child if it is still running, and closes the pipes.
///
/// The test process ignores SIGPIPE once the first child is spawned, so that writing to a child
