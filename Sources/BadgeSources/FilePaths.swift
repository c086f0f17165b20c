import BadgeIO
import Glibc

/// Path helpers shared by the sources: `~` in both directions, folders, globs, listings.
package enum FilePaths {
    /// The user's home folder ($HOME, else the password database), without a trailing slash.
    package static var home: String? {
        if let value = getenv("HOME").map({ String(cString: $0) }), value.hasPrefix("/") {
            return value.count > 1 && value.hasSuffix("/") ? String(value.dropLast()) : value
        }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// `~` or `~/…` made absolute with ``home``; other paths unchanged.
    package static func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home else { return path }
        return home + path.dropFirst()
    }

    /// `path` with the home folder written as `~`, for descriptions.
    package static func abbreviatingHome(_ path: String) -> String {
        guard let home, home != "/" else { return path }
        if path == home { return "~" }
        if path.hasPrefix(home + "/") { return "~" + path.dropFirst(home.count) }
        return path
    }

    /// True when `path` is a folder (or a link to one).
    package static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// True when `path` names something (a dangling link counts).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// `path` without trailing slashes ("/" stays).
    package static func trimmingSlashes(_ path: String) -> String {
        var result = Substring(path)
        while result.count > 1 && result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }

    /// The folder above `path` and its last name ("." for a bare name).
    package static func split(_ path: String) -> (parent: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let parent = String(path[..<slash])
        return (parent.isEmpty ? "/" : parent, String(path[path.index(after: slash)...]))
    }

    /// The closest existing folder above `path`, with the name of the next one down (the one to
    /// wait for); nil when not even "/" or "." exists.
    package static func nearestExistingAncestor(of path: String) -> (folder: String, next: String)? {
        var missing = trimmingSlashes(path)
        while missing != "/" && missing != "." {
            let (parent, name) = split(missing)
            if isFolder(parent) { return (parent, name) }
            missing = parent
        }
        return nil
    }

    /// True when `pattern` has glob(3) wildcards.
    package static func hasWildcards(_ pattern: String) -> Bool {
        pattern.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// The paths `pattern` matches now, sorted (glob(3)); empty when none.
    package static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { index in
            result.gl_pathv?[index].map { String(cString: $0) }
        }
    }

    /// The names in `folder` that are not folders and do not start with "." (readdir, no stat
    /// per entry: a name whose type the file system does not report counts as a file); nil with
    /// the errno when the folder cannot be read.
    package static func fileNames(in folder: String) -> Result<[String], WatchFailure> {
        guard let stream = opendir(folder) else {
            let code = errno
            return .failure(WatchFailure(path: folder, reason: errorText(code), code: code))
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            if DirectoryEntry.type(of: entry) == UInt8(DT_DIR) { continue }
            let name = DirectoryEntry.name(of: entry)
            if !name.hasPrefix(".") { names.append(name) }
        }
        return .success(names)
    }
}
