import BadgeCore
/// One Maildir folder to count, found from what the user wrote.
package struct MaildirTarget: Equatable, Sendable {
    /// The folder (absolute; it may not exist yet).
    package var path: String
    /// Why it cannot be counted now ("no such folder"); nil when it is a Maildir.
    package var problem: Sentence?
    /// Names besides the folder's own whose appearance in its nearest existing parent means the
    /// paths must be worked out again (a tree's `INBOX` and a Maildir++ root's `cur`, …).
    package var awaitedNames: Set<String> = []
}

/// A folder to watch for folders appearing in it, beside the counted ones: where a glob's wildcard
/// is, or a match that is not a Maildir yet.
package struct MaildirLookout: Equatable, Sendable {
    /// The folder.
    package var path: String
    /// The names that matter; nil for any folder made, removed or renamed in it.
    package var names: Set<String>?
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
    package static func targets(paths: [String], folders: [String])
        -> (targets: [MaildirTarget], problems: [Sentence], lookouts: [MaildirLookout]) {
        var targets: [MaildirTarget] = []
        var problems: [Sentence] = []
        var lookouts: [MaildirLookout] = []
        for written in paths {
            let path = FilePaths.trimmingSlashes(FilePaths.expandingTilde(written))
            if FilePaths.hasWildcards(path) {
                lookouts.append(lookout(for: path))
                var found: [MaildirTarget] = []
                for match in FilePaths.glob(path).filter(FilePaths.isFolder) {
                    let resolved = resolve(match, folders: folders)
                    if resolved.contains(where: { $0.problem == nil }) {
                        found += resolved.filter { $0.problem == nil }
                    } else {
                        // A folder on its way to becoming a Maildir (mkdir, then cur/, new/, tmp/).
                        lookouts.append(MaildirLookout(path: match, names: Set(inboxNames + ["cur", "new", "tmp"] + folders)))
                    }
                }
                if found.isEmpty {
                    problems.append(Sentence("no Maildir folder matches %s (it is looked up again on refresh)", .text(written)))
                }
                targets += found
            } else {
                targets += resolve(path, folders: folders)
            }
        }
        var seen = Set<String>()
        return (targets.filter { seen.insert($0.path).inserted }, problems, lookouts)
    }

    /// The folder that holds the first wildcard of `pattern` (any folder made in it may be a new
    /// match), or the nearest existing folder above it, for the next name down.
    private static func lookout(for pattern: String) -> MaildirLookout {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let fixed = parts.prefix { !FilePaths.hasWildcards(String($0)) }.joined(separator: "/")
        let folder = fixed.isEmpty ? (pattern.hasPrefix("/") ? "/" : ".") : fixed
        if FilePaths.isFolder(folder) { return MaildirLookout(path: folder, names: nil) }
        let above = FilePaths.nearestExistingAncestor(of: folder)
        return MaildirLookout(path: above?.folder ?? "/", names: above.map { [$0.next] } ?? [])
    }

    /// The targets of one concrete path.
    private static func resolve(_ path: String, folders: [String]) -> [MaildirTarget] {
        let shown = FilePaths.abbreviatingHome(path)
        guard FilePaths.isFolder(path) else {
            let target = folders.isEmpty ? path : path + "/" + (folders.first ?? "")
            return [MaildirTarget(path: target, problem: Sentence("%s does not exist (yet)", .text(shown)))]
        }
        if folders.isEmpty {
            if isMaildir(path) { return [MaildirTarget(path: path)] }
            if let inbox = inboxNames.map({ path + "/" + $0 }).first(where: isMaildir) {
                return [MaildirTarget(path: inbox)]
            }
            return [MaildirTarget(
                path: path + "/INBOX",
                problem: Sentence("%s is neither a Maildir (cur/, new/, tmp/) nor a tree with an INBOX folder", .text(shown)),
                awaitedNames: Set(inboxNames + ["cur", "new", "tmp"]))]
        }
        return folders.map { name in
            var candidates = [path + "/" + name, path + "/." + name.replacingSlashes(with: ".")]
            if name.uppercased() == "INBOX" { candidates.append(path) }
            if let found = candidates.first(where: isMaildir) { return MaildirTarget(path: found) }
            return MaildirTarget(path: path + "/" + name,
                                 problem: Sentence("%1$s has no Maildir folder %2$s (nor .%3$s)", .text(shown), .text(name), .text(name.replacingSlashes(with: "."))),
                                 awaitedNames: ["." + name.replacingSlashes(with: ".")])
        }
    }
}

private extension String {
    func replacingSlashes(with replacement: Character) -> String {
        String(map { $0 == "/" ? replacement : $0 })
    }
}
