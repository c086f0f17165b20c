/// A desktop file id in every form people and programs write it, and the ids it may mean.
///
/// The id of `org.telegram.desktop.desktop` is `org.telegram.desktop`: the file name without its
/// `.desktop`. Users write the id (`org.telegram.desktop`), the file name
/// (`org.telegram.desktop.desktop`), or the URI LauncherEntry broadcasts carry
/// (`application://org.telegram.desktop.desktop`). An id that ends in `.desktop` is ambiguous:
/// `org.telegram.desktop` may be the id itself or the file name of `org.telegram`. Both are kept, the
/// id as written first, so a file found for either one decides, and a broadcast for either matches.
public struct DesktopFileID: Hashable, Sendable, CustomStringConvertible {
    /// What was written, for messages.
    public let written: String
    /// The ids it may mean, without `.desktop`, the likeliest first (one or two).
    public let candidates: [String]

    /// The URI prefix of LauncherEntry broadcasts.
    public static let uriScheme = "application://"

    /// Reads `text`; nil for an empty id, or one that could name a path outside the
    /// `applications` folder (a "/" other than the URI's, a leading "." or "-", a NUL).
    public init?(_ text: String) {
        var name = text
        let isURI = name.hasPrefix(Self.uriScheme)
        if isURI { name.removeFirst(Self.uriScheme.count) }
        let suffix = ".desktop"
        var ids: [String]
        if isURI || name.hasSuffix(suffix + suffix) {
            // A file name: exactly one id.
            ids = [name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name]
        } else if name.hasSuffix(suffix) {
            ids = [name, String(name.dropLast(suffix.count))]
        } else {
            ids = [name]
        }
        ids = ids.filter { !$0.isEmpty && !$0.hasPrefix(".") && !$0.hasPrefix("-") && !$0.contains("/") && !$0.contains("\0") }
        guard !ids.isEmpty else { return nil }
        written = text
        candidates = ids
    }

    /// The likeliest id.
    public var id: String { candidates[0] }

    /// The URIs broadcasts for it carry: `application://ID.desktop` for each candidate.
    public var uris: [String] { candidates.map { Self.uriScheme + $0 + ".desktop" } }

    /// The file names looked for: `ID.desktop` for each candidate.
    public var fileNames: [String] { candidates.map { $0 + ".desktop" } }

    /// What was written.
    public var description: String { written }
}
