/// One Maildir folder to count, found from what the user wrote.
package struct MaildirTarget: Equatable, Sendable {
    /// The folder (absolute; it may not exist yet).
    package var path: String
    /// Why it cannot be counted now ("no such folder"); nil when it is a Maildir.
    package var problem: String?
    /// Names besides the folder's own whose appearance in its nearest existing parent means the
    /// paths must be worked out again (a tree's `INBOX` and a Maildir++ root's `cur`, …).
    package var awaitedNames: Set<String> = []
}

/// Works out which Maildir folders the user's paths mean:
/// - a path that is a Maildir (has `cur/`, `new/` and `tmp/`) is that folder;
/// - a path that holds Maildirs (an mbsync or offlineimap tree with `INBOX/`, or a Maildir++ root
///   whose `.Folder`s sit beside its own `cur/`) means its inbox: `INBOX`, `Inbox` or `inbox`, or
///   the Maildir++ root itself; with folder names, those folders instead (`Work` is `Work/` or
///   Maildir++'s `.Work/`; `INBOX` is also a Maildir++ root itself; `Lists/Rust` is also `.Lists.Rust/`);
/// - a path with glob(3) wildcards is every match that is one of the above (folders only).
package enum MaildirLocator {
    /// The inbox names of trees, in the order tried.
    package static let inboxNames = ["INBOX", "Inbox", "inbox"]

    /// True when `path` has the three Maildir folders.
    package static func isMaildir(_ path: String) -> Bool {
        ["cur", "new", "tmp"].allSatisfy { FilePaths.isFolder(path + "/" + $0) }
    }

    /// The folders for `paths` (`~` expanded) and `folders` (names inside each path), and the
    /// problems with patterns that match nothing.
    package static func targets(paths: [String], folders: [String]) -> (targets: [MaildirTarget], problems: [String]) {
        var targets: [MaildirTarget] = []
        var problems: [String] = []
        for written in paths {
            let path = FilePaths.trimmingSlashes(FilePaths.expandingTilde(written))
            if FilePaths.hasWildcards(path) {
                let found = FilePaths.glob(path).filter(FilePaths.isFolder).flatMap { match in
                    resolve(match, folders: folders).filter { $0.problem == nil }
                }
                if found.isEmpty {
                    problems.append("no Maildir folder matches \(written) (it is looked up again on refresh)")
                }
                targets += found
            } else {
                targets += resolve(path, folders: folders)
            }
        }
        var seen = Set<String>()
        return (targets.filter { seen.insert($0.path).inserted }, problems)
    }

    /// The targets of one concrete path.
    private static func resolve(_ path: String, folders: [String]) -> [MaildirTarget] {
        let shown = FilePaths.abbreviatingHome(path)
        guard FilePaths.isFolder(path) else {
            let target = folders.isEmpty ? path : path + "/" + (folders.first ?? "")
            return [MaildirTarget(path: target, problem: "\(shown) does not exist (yet)")]
        }
        if folders.isEmpty {
            if isMaildir(path) { return [MaildirTarget(path: path)] }
            if let inbox = inboxNames.map({ path + "/" + $0 }).first(where: isMaildir) {
                return [MaildirTarget(path: inbox)]
            }
            return [MaildirTarget(
                path: path + "/INBOX",
                problem: "\(shown) is neither a Maildir (cur/, new/, tmp/) nor a tree with an INBOX folder",
                awaitedNames: Set(inboxNames + ["cur", "new", "tmp"]))]
        }
        return folders.map { name in
            var candidates = [path + "/" + name, path + "/." + name.replacingSlashes(with: ".")]
            if name.uppercased() == "INBOX" { candidates.append(path) }
            if let found = candidates.first(where: isMaildir) { return MaildirTarget(path: found) }
            return MaildirTarget(path: path + "/" + name,
                                 problem: "\(shown) has no Maildir folder \(name) (nor .\(name.replacingSlashes(with: ".")))",
                                 awaitedNames: ["." + name.replacingSlashes(with: ".")])
        }
    }
}

private extension String {
    func replacingSlashes(with replacement: Character) -> String {
        String(map { $0 == "/" ? replacement : $0 })
    }
}
