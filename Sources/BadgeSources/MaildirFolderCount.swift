import BadgeCore
/// The unread messages of one Maildir folder, by file name, so that every inotify event updates
/// the count exactly: a delivery adds a name, a move from `new/` to `cur/` or a flag change (a
/// rename inside `cur/`) removes one name and adds another, which counts only while unread.
package struct MaildirFolderCount: Equatable, Sendable {
    /// The folder.
    package var path: String
    /// The unread names in `new/`.
    package var unreadNew: Set<String> = []
    /// The unread names in `cur/`.
    package var unreadCur: Set<String> = []
    /// Why it is not counted now; nil when it is.
    package var problem: Sentence?

    /// An empty count of `path`.
    package init(path: String, problem: Sentence? = nil) {
        self.path = path
        self.problem = problem
    }

    /// The messages counted: `new/` only, or `new/` and the unread ones of `cur/`.
    package func count(newOnly: Bool) -> Int {
        newOnly ? unreadNew.count : unreadNew.count + unreadCur.count
    }

    /// Reads both folders again (readdir only).
    package mutating func rescan() {
        unreadNew = []
        unreadCur = []
        for inNew in [true, false] {
            switch FilePaths.fileNames(in: path + (inNew ? "/new" : "/cur")) {
            case .success(let names):
                let unread = Set(names.lazy.filter { MaildirFlags.isUnread($0, inNew: inNew) })
                if inNew { unreadNew = unread } else { unreadCur = unread }
            case .failure(let failure):
                problem = Sentence("cannot read %1$s: %2$s", .text(FilePaths.abbreviatingHome(failure.path)), .text(failure.reason))
            }
        }
    }

    /// A file named `name` appeared in `new/` or `cur/` (created, or renamed to this name).
    package mutating func appeared(_ name: String, inNew: Bool) {
        guard !name.hasPrefix(".") else { return }
        let unread = MaildirFlags.isUnread(name, inNew: inNew)
        if inNew {
            if unread { unreadNew.insert(name) } else { unreadNew.remove(name) }
        } else {
            if unread { unreadCur.insert(name) } else { unreadCur.remove(name) }
        }
    }

    /// The file named `name` left `new/` or `cur/` (deleted, or renamed away).
    package mutating func disappeared(_ name: String, inNew: Bool) {
        if inNew { unreadNew.remove(name) } else { unreadCur.remove(name) }
    }
}
