import BadgeX11
import CLinuxEvents
import Glibc

/// Where the demo's config file is, and its changes as they happen: without `--config`, the first
/// `badge-demo/config.json` of `$XDG_CONFIG_HOME` (default `~/.config`) and then `$XDG_CONFIG_DIRS`
/// (default `/etc/xdg`), as dunst and alacritty look; an inotify watch on the folder catches
/// editors that write a temporary file and rename it over the old one, and a file that appears,
/// changes, vanishes or turns into a folder. Not Sendable: event-loop thread only.
final class ConfigWatcher {
    /// The file read (it may not exist yet).
    let path: String
    private let folder: String
    private let name: String
    private var descriptor: Int32 = -1
    /// Called when the file may have changed (a rename, write, creation or removal of it).
    var onChange: (() -> Void)?

    /// The config file for these options and environment: `--config`, else the first existing XDG
    /// one, else the user's XDG one (watched for its creation); nil without any home.
    static func path(options: DemoOptions, environment: (String) -> String?) -> String? {
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

    /// Watches `path`'s folder (if it exists; a later `mkdir` of it is not followed).
    init(path: String) {
        self.path = path
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        folder = parts.dropLast().joined(separator: "/").isEmpty ? "." : parts.dropLast().joined(separator: "/")
        name = parts.last.map(String.init) ?? path
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)
        guard inotify_add_watch(fd, folder, mask) >= 0 else {
            close(fd)
            return
        }
        descriptor = fd
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// True when the folder is watched.
    var isWatching: Bool { descriptor >= 0 }

    /// The loop source "config": reads the pending inotify events and calls ``onChange`` once when
    /// one names the file.
    var source: EventLoop.Source {
        EventLoop.Source(name: "config", descriptor: { [weak self] in self.map { $0.descriptor >= 0 ? $0.descriptor : nil } ?? nil },
                         interest: { .readable }, handle: { [weak self] _ in self?.readEvents() })
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var touched = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameStart = offset + header
                let nameEnd = min(count, nameStart + length)
                let eventName = String(decoding: buffer[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
                if eventName == name { touched = true }
                offset = nameStart + length
            }
        }
        if touched { onChange?() }
    }
}
