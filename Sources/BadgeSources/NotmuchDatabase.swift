import Glibc

/// Where a notmuch database keeps its Xapian files, and which of their changes mean "the database
/// changed" (as seen with notmuch 0.37 and Xapian's glass backend).
///
/// A writer (`notmuch new`, `notmuch tag`, an MUA's tag change) takes the lock by writing
/// `flintlock`, rewrites `*.glass`, commits by renaming a temporary file onto `iamglass`, and
/// releases the lock by closing `flintlock` (IN_CLOSE_WRITE). Readers such as `notmuch count` only
/// open the files read-only and never touch `flintlock`, so counting does not trigger itself. The
/// close of `flintlock` also ends writer sessions that changed nothing (`notmuch new` with no new
/// mail), which costs one extra count.
package enum NotmuchDatabase {
    /// The names in the Xapian folder whose events mean a write session ended or committed.
    package static let signalNames: Set<String> = ["flintlock", "iamglass"]

    /// The Xapian folders a database at `databasePath` may use, in notmuch's order: the legacy
    /// `PATH/.notmuch/xapian`, then `$XDG_DATA_HOME/notmuch/$NOTMUCH_PROFILE/xapian` (default
    /// `~/.local/share/notmuch/default/xapian`). `environment` overrides this process's.
    package static func xapianCandidates(databasePath: String, environment: [String: String?]) -> [String] {
        func variable(_ name: String) -> String? {
            if let given = environment[name] { return given }
            return getenv(name).map { String(cString: $0) }
        }
        let database = FilePaths.trimmingSlashes(FilePaths.expandingTilde(databasePath))
        var candidates = [database + "/.notmuch/xapian"]
        let profile = variable("NOTMUCH_PROFILE").flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        if let data = variable("XDG_DATA_HOME"), data.hasPrefix("/") {
            candidates.append(data + "/notmuch/" + profile + "/xapian")
        } else if let home = variable("HOME") ?? FilePaths.home, home.hasPrefix("/") {
            candidates.append(home + "/.local/share/notmuch/" + profile + "/xapian")
        }
        return candidates
    }
}
