import CGlibcExtras

/// One event read from an inotify descriptor.
package struct InotifyEvent: Equatable, Sendable {
    /// The watch it belongs to (-1 for a queue overflow).
    package var watch: Int32
    /// IN_CREATE, IN_MOVED_TO, …
    package var mask: UInt32
    /// The name in the watched folder ("" for events on the folder itself).
    package var name: String

    /// True when any of `flags` is set in the mask.
    package func has(_ flags: Int32) -> Bool { mask & UInt32(bitPattern: flags) != 0 }

    /// True for IN_Q_OVERFLOW: events were lost, so whatever they described must be read again.
    package var isOverflow: Bool { has(IN_Q_OVERFLOW) }
}
