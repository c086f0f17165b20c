import BadgeCore

/// Where each button's value came from: the demo's sample, the config file, a source, or a
/// person or producer. `explain` says it in words, and the saved state keeps it, so a count the
/// demo made up is never restored onto a button bound to a real source. Not Sendable.
final class BadgeOrigins {
    /// One button's origin.
    enum Origin: Equatable {
        /// The bundled toolbar's sample value, untouched.
        case demo
        /// The config file's `content`.
        case config
        /// A source of this kind ("maildir", "notifications" …).
        case source(String)
        /// A click, a key, a command, D-Bus, a screen reader, `--count`.
        case hand

        /// How the state file writes it (`"from"`); nil for ``hand``.
        var saved: String? {
            switch self {
            case .demo: return "demo"
            case .config: return "config"
            case .source(let kind): return kind
            case .hand: return nil
            }
        }

        /// Reads the state file's `"from"`.
        init(saved: String?) {
            switch saved {
            case nil: self = .hand
            case "demo"?: self = .demo
            case "config"?: self = .config
            case let kind?: self = .source(kind)
            }
        }
    }

    private var byID: [String: Origin] = [:]
    /// The kind of the source bound to a button, if any ("maildir" …).
    var sourceKind: (String) -> String? = { _ in nil }

    /// `id`'s origin (``Origin/hand`` for a button nobody described).
    func origin(of id: String) -> Origin { byID[id] ?? .hand }

    /// Sets `id`'s origin.
    func set(_ id: String, _ origin: Origin) { byID[id] = origin }

    /// A change reached `id` by `cause`; `sourceKind` is its bound source's, if any.
    func changed(_ id: String, by cause: ChangeCause, sourceKind: String?) {
        byID[id] = cause == .source ? sourceKind.map(Origin.source) ?? origin(of: id) : .hand
    }

    /// Forgets the buttons that are gone (a reload), and gives new ones `origin`.
    func follow(_ ids: [String], newOnes origin: (String) -> Origin) {
        let kept = byID.filter { ids.contains($0.key) }
        byID = kept
        for id in ids where byID[id] == nil { byID[id] = origin(id) }
    }
}
