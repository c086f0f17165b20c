/// The one owner of a toolbar's state: its buttons and their badges (content, items, confidence,
/// provenance), with no window system in it.
///
/// Every input changes a badge through one funnel, ``change(_:cause:_:)``, and a new set of
/// buttons comes through ``replace(toolbar:)``; each observer (a window that draws it, an
/// application's outputs) hears of the change once it is made, in the order it started observing.
/// A source, a bus service or a command line can change the model without any window existing.
///
/// A `ToolbarHost` (BadgeX11) is a view of a model: it draws what the model says and reports the
/// user's intents. Give a host your own model to share it with your other parts, or let the host
/// make one (`ToolbarHost(toolbar:…)`) and reach it as `host.model`.
///
/// Not Sendable: the thread that runs the event loop owns it, as it owns the toolbar.
public final class ToolbarModel {
    /// What changed, as every observer sees it.
    public enum Change {
        /// `button`'s badge changed by `cause`; `countRose` when its count went up (a window asks
        /// for attention then, unless it has the focus).
        case badge(ToolbarButton, cause: ChangeCause, countRose: Bool)
        /// The buttons were replaced (a configuration change): ``toolbar`` is the new one.
        case replaced(previous: Toolbar)
    }

    /// A registration of ``observe(_:)``: ``cancel()`` ends it.
    public struct Observation {
        fileprivate let id: Int
        fileprivate weak var model: ToolbarModel?

        /// Stops telling this observer.
        public func cancel() { model?.observers.removeAll { $0.id == id } }
    }

    /// The buttons shown now.
    public private(set) var toolbar: Toolbar
    /// How many changes the model has made (badge changes and replacements).
    public private(set) var revision = 0
    private var observers: [(id: Int, tell: (Change) -> Void)] = []
    private var lastObserverID = 0

    /// A model of `toolbar`.
    public init(toolbar: Toolbar) {
        self.toolbar = toolbar
    }

    /// Tells `observer` every change from now on, after the ones that observed earlier.
    @discardableResult
    public func observe(_ observer: @escaping (Change) -> Void) -> Observation {
        lastObserverID += 1
        observers.append((lastObserverID, observer))
        return Observation(id: lastObserverID, model: self)
    }

    /// The funnel: `body` edits `button`'s badge, then every observer hears of it.
    public func change(_ button: ToolbarButton, cause: ChangeCause, _ body: (BadgeController) -> Void) {
        let before = button.badge.count
        body(button.badge)
        revision &+= 1
        tell(.badge(button, cause: cause, countRose: button.badge.count > before))
    }

    /// Changes the badge of the button `id`, if there is one; false when there is none.
    @discardableResult
    public func change(id: String, cause: ChangeCause, _ body: (BadgeController) -> Void) -> Bool {
        guard let button = toolbar.button(id: id) else { return false }
        change(button, cause: cause, body)
        return true
    }

    /// Shows `newToolbar` instead (after a configuration change); its badges keep whatever content
    /// the caller gave them.
    public func replace(toolbar newToolbar: Toolbar) {
        guard newToolbar !== toolbar else { return }
        let previous = toolbar
        toolbar = newToolbar
        revision &+= 1
        tell(.replaced(previous: previous))
    }

    private func tell(_ change: Change) {
        for (id, observer) in observers where observers.contains(where: { $0.id == id }) { observer(change) }
    }
}
