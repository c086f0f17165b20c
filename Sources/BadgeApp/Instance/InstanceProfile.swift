import BadgeCore
import Glibc

/// Which running instance a launch (or `badge-demo msg`) means: one instance per profile, and one
/// profile per saved-counts file.
///
/// - the default profile keeps its counts in `$XDG_STATE_HOME/badge-demo/state.json` and listens
///   on `$XDG_RUNTIME_DIR/badge-demo/control.sock`;
/// - `--profile NAME`: `state-NAME.json` and `control-NAME.sock`;
/// - `--state FILE` (without `--profile`): a profile named after the file's absolute path
///   (`s` and 16 hex digits of its FNV-1a hash), so that launches naming the same file meet;
///   the default file, or `state-NAME.json` beside it, is the default or NAME profile;
/// - `--new-instance` (and `--control` while the profile runs): the first free slot, `NAME-2`,
///   `NAME-3` … (`2`, `3` … for the default), each with a state file of its own.
struct InstanceProfile: Hashable, Sendable {
    /// The profile's name ("default" for the default one).
    let name: String

    /// The default profile.
    static let `default` = InstanceProfile(name: "default")
    /// The most slots `--new-instance` looks through.
    static let maximumSlots = 64

    /// The control socket's file name in `$XDG_RUNTIME_DIR/badge-demo/`.
    var socketName: String { name == "default" ? "control.sock" : "control-\(name).sock" }
    /// The instance lock's file name beside the socket.
    var lockName: String { socketName + ".lock" }
    /// The state file's name in the default state folder.
    var stateFileName: String { name == "default" ? "state.json" : "state-\(name).json" }
    /// The `--profile` value that names this profile (nil for the default one).
    var optionValue: String? { name == "default" ? nil : name }

    /// The `n`th slot of this profile (n >= 2): a new instance's own profile.
    func slot(_ n: Int) -> InstanceProfile {
        InstanceProfile(name: name == "default" ? "\(n)" : "\(name)-\(n)")
    }

    /// Why `name` cannot name a profile, or nil when it can: 1 to 40 of A-Z a-z 0-9 _ -, not "default".
    static func problem(with name: String) -> Sentence? {
        guard !name.isEmpty, name.utf8.count <= 40,
              name.utf8.allSatisfy({ $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }),
              name.first != "-" else {
            return Sentence("--profile must be 1 to 40 letters, digits, _ or - (not starting with -), not \"%s\"", .text(InputEcho.escaped(name, quote: true)))
        }
        return nil
    }

    /// The profile these options mean, and the folder default state files live in.
    static func of(profile: String?, statePath: String?, stateFolder: String?) -> InstanceProfile {
        if let profile { return InstanceProfile(name: profile) }
        guard let statePath else { return .default }
        let file = absolute(statePath)
        if let stateFolder {
            let folder = absolute(stateFolder)
            if file == folder + "/state.json" { return .default }
            let prefix = folder + "/state-", suffix = ".json"
            if file.hasPrefix(prefix), file.hasSuffix(suffix), file.count > prefix.count + suffix.count {
                let name = String(file.dropFirst(prefix.count).dropLast(suffix.count))
                if problem(with: name) == nil, name != "default" { return InstanceProfile(name: name) }
            }
        }
        return InstanceProfile(name: "s" + hash(file))
    }

    /// `path` made absolute against the working folder, with `.` and empty components removed
    /// (symbolic links are not resolved: the file need not exist yet).
    static func absolute(_ path: String) -> String {
        var full = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let folder = getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "/"
            full = folder + "/" + path
        }
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// 16 hex digits of the 64-bit FNV-1a hash of `text`'s bytes: stable across runs and builds.
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension UInt8 {
    /// ASCII A-Z, a-z or 0-9.
    var isASCIILetterOrDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
    }
}
