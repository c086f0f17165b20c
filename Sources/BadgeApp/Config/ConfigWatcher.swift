import BadgeSources
import BadgeX11
import CGlibcExtras
import Glibc

/// Where the demo's config file is, and its changes as they happen: without `--config`, the first
/// `badge-demo/config.json` of `$XDG_CONFIG_HOME` (default `~/.config`) and then `$XDG_CONFIG_DIRS`
/// (default `/etc/xdg`), as dunst and alacritty look.
///
/// One inotify descriptor watches folders, never the file itself, so that an editor that writes a
/// temporary file and renames it over the old one is seen as well as a write in place:
/// - the file's folder, for the file's name;
/// - when the file is a symlink (stow, home-manager, chezmoi), the folder of every link on the way
///   and of the final target, for their names, so an edit of the target in the dotfiles folder is
///   seen, and a link pointed elsewhere is followed;
/// - for a folder on those paths that does not exist (yet, or any more), its nearest existing
///   parent, for the name of the next folder down, until it appears.
/// The watches are worked out again after every event that concerns them. Nothing else wakes the
/// loop: with no change there is no wakeup. Not Sendable: event-loop thread only.
final class ConfigWatcher {
    /// The file read (it may not exist yet).
    let path: String
    /// The inotify descriptor and its watches (BadgeSources' reader, shared with the Maildir source).
    private let inotify = Inotify()
    /// What each watch is for: the names in its folder that matter.
    private var watches: [Int32: Set<String>] = [:]
    /// Called when the file may have changed (a rename, write, creation or removal of it, of a link
    /// to it, or of a folder on its way).
    var onChange: (() -> Void)?
    /// A change that read as cut, waiting for the rest of the write (``ConfigSettle``): the reload
    /// gives its verdicts, the loop wakes at its deadline.
    var settle = ConfigSettle()

    /// Events on a folder that holds the file or a link to it.
    private static let fileMask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
                                         | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
    /// Events on the nearest existing parent of a missing folder: the next folder down appearing.
    private static let parentMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// The config file for these options and environment: `--config`, else the first existing XDG
    /// one, else the user's XDG one (watched for its creation); nil without any home.
    static func path(options: AppOptions, environment: (String) -> String?) -> String? {
        if let path = options.configPath { return path }
        var folders: [String] = []
        if let home = environment("XDG_CONFIG_HOME"), home.hasPrefix("/") {
            folders.append(home)
        } else if let home = environment("HOME"), !home.isEmpty {
            folders.append(home + "/.config")
        }
        let system = environment("XDG_CONFIG_DIRS").flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/xdg"
        folders += system.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        let candidates = folders.map { $0 + "/badge-demo/config.json" }
        return candidates.first { access($0, F_OK) == 0 } ?? candidates.first
    }

    /// Watches what `path` needs (see the type's description).
    init(path: String) {
        self.path = path
        guard inotify.descriptor >= 0 else { return }
        _ = arm()
    }

    /// True when inotify works (the file's folder, or its nearest existing parent, is watched).
    var isWatching: Bool { inotify.descriptor >= 0 && !watches.isEmpty }

    /// The folders watched, for tests and diagnostics.
    var watchedFolderCount: Int { watches.count }

    /// The loop source "config": reads the pending inotify events and calls ``onChange`` once when
    /// one concerns the file.
    var source: EventLoop.Source {
        EventLoop.Source(name: "config", descriptor: { [weak self] in self.map { $0.inotify.descriptor >= 0 ? $0.inotify.descriptor : nil } ?? nil },
                         interest: { .readable }, handle: { [weak self] _ in self?.readEvents() })
    }

    /// One folder to watch: the names in it that matter, and the events asked for.
    struct Watch: Equatable {
        /// The names whose events count.
        var names: Set<String> = []
        /// The inotify events asked for.
        var mask: UInt32 = 0
    }

    /// The folders to watch now: see the type's description. A folder that is itself a symlink
    /// (stow links whole folders) is also watched from its parent, so pointing it elsewhere counts.
    static func plan(for path: String) -> [String: Watch] {
        var plan: [String: Watch] = [:]
        func add(_ folder: String, _ name: String, _ mask: UInt32) {
            plan[folder, default: Watch()].names.insert(name)
            plan[folder, default: Watch()].mask |= mask
        }
        for entry in linkChain(path) {
            let (folder, name) = split(entry)
            if isFolder(folder) {
                add(folder, name, fileMask)
                var info = stat()
                if lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                    let (parent, folderName) = split(folder)
                    add(parent, folderName, fileMask)
                }
            } else if let (parent, next) = nearestExistingParent(of: folder) {
                add(parent, next, parentMask)
            }
        }
        return plan
    }

    /// `path`, then each symlink's target in turn (relative ones against the link's folder), up
    /// to 16 links; the last entry is not a link (or does not exist).
    static func linkChain(_ path: String) -> [String] {
        var chain = [path]
        var current = path
        for _ in 0..<16 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { break }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length > 0 else { break }
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : split(current).folder + "/" + target
            guard !chain.contains(current) else { break }
            chain.append(current)
        }
        return chain
    }

    /// The folder part and the last name of `path` ("." for a bare name).
    private static func split(_ path: String) -> (folder: String, name: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let folder = parts.dropLast().joined(separator: "/")
        let name = parts.last.map(String.init) ?? path
        return (folder.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : folder, name)
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The closest folder above `folder` that exists, and the name of the next one down, which
    /// its watch waits for.
    private static func nearestExistingParent(of folder: String) -> (String, String)? {
        var missing = folder
        while missing != "/" && missing != "." {
            let (parent, name) = split(missing)
            if isFolder(parent) { return (parent, name) }
            missing = parent
        }
        return nil
    }

    /// Watches what the plan says now and drops the watches no longer needed; returns true when
    /// the set of watched folders changed (a folder appeared or went, a link moved).
    private func arm() -> Bool {
        guard inotify.descriptor >= 0 else { return false }
        var armed: [Int32: Set<String>] = [:]
        var added: Set<Int32> = []
        var plan = Self.plan(for: path)
        // A folder made between looking and watching (`mkdir -p` racing the watch) sends no event to
        // a watch that did not exist yet: look again once the watches are in place, until nothing moved.
        for _ in 0..<8 {
            armed = [:]
            for (folder, watch) in plan {
                // Two paths to one folder share a watch: add to its mask rather than replace it.
                guard case .success(let wd) = inotify.watch(folder, mask: watch.mask | UInt32(IN_MASK_ADD)) else { continue }
                armed[wd, default: []].formUnion(watch.names)
                added.insert(wd)
            }
            let again = Self.plan(for: path)
            if again == plan { break }
            plan = again
        }
        for wd in Set(watches.keys).union(added) where armed[wd] == nil { inotify.unwatch(wd) }
        let changed = Set(armed.keys) != Set(watches.keys)
        watches = armed
        return changed
    }

    private func readEvents() {
        var touched = false, rearm = false
        for event in inotify.readEvents() {
            if event.isOverflow {
                // Events were lost: whatever they said, look again.
                touched = true
                rearm = true
                continue
            }
            guard let names = watches[event.watch] else { continue }  // a watch already dropped
            if event.has(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) {
                rearm = true
            } else if names.contains(event.name) {
                touched = true
                rearm = true
            }
        }
        // A folder that appeared may already hold the file (`mkdir -p` then a copy, before the
        // new watch existed): a changed set of watches counts as a change.
        if rearm, arm() { touched = true }
        // A file just created (or truncated) and still empty reads as cut: the reload's settle
        // (``ConfigSettle``) waits for the rest of the write rather than report it.
        if touched { onChange?() }
    }
}
