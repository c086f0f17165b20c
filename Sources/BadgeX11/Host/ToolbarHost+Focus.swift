import BadgeCore
import CXCB

/// The keyboard focus of a toolbar that is part of a larger window: keys the caller forwards,
/// the focus given and taken back, and the hand-off when Tab leaves the toolbar, as XEmbed's
/// focus chain does (`XEMBED_FOCUS_IN` with `FOCUS_FIRST`/`FOCUS_LAST`, `XEMBED_FOCUS_NEXT`/`PREV`).
extension ToolbarHost {
    /// Which way the keyboard focus moves along the window's chain of widgets: as Tab moves it
    /// (`forward`) or as Shift+Tab does (`backward`).
    public enum FocusDirection: Hashable, Sendable {
        /// As Tab moves it: to the next widget.
        case forward
        /// As Shift+Tab moves it: to the previous widget.
        case backward
    }

    /// The host's own part of the keyboard focus, beside its window's X focus.
    struct KeyboardFocus {
        /// True while the toolbar has the focus of an embedded host: from ``ToolbarHost/focus(from:)``
        /// or X's focus on its window, until ``ToolbarHost/resignFocus()``, X's focus going
        /// elsewhere, or Tab leaving the toolbar.
        var given = false
        /// ``ToolbarHost/focusWraps`` when set; nil for the placement's default.
        var wraps: Bool?
    }

    /// Whether Tab past the last button (and Shift+Tab before the first) goes round to the other
    /// end of the toolbar. True by default for a top-level host, whose window holds nothing else;
    /// false for a child host: the focus leaves the toolbar, the host reports
    /// ``Event/focusLeft(_:)``, and your window gives the focus to its next (or previous) widget.
    public var focusWraps: Bool {
        get { keyboardFocus.wraps ?? (properties != nil) }
        set { keyboardFocus.wraps = newValue }
    }

    /// True while the toolbar has the keyboard focus: keys act on its focused button, the focus
    /// ring may show, and screen readers hear that button as focused.
    ///
    /// A top-level host has it while its window has X's focus (``windowHasFocus``). A child host
    /// has it from ``focus(from:)`` (or X's focus on its own window) until ``resignFocus()``, Tab
    /// leaving the toolbar, or X's focus leaving its window.
    public var hasFocus: Bool {
        keyboardFocus.given || (properties != nil && windowHasFocus)
    }

    /// Gives the toolbar the keyboard focus, as your window's focus chain reaches it: coming
    /// `forward` (Tab), the first button is focused; coming `backward` (Shift+Tab), the last. The
    /// focus ring shows, and screen readers hear the button as focused. Forward the key presses
    /// of your window to the host from now on (``handleKeyPress(_:)-(XEvent)``), until the host
    /// reports ``Event/focusLeft(_:)`` or you call ``resignFocus()``. Drawn at the next
    /// ``refresh()``.
    public func focus(from direction: FocusDirection) {
        keyboardFocus.given = true
        toolbar.enterFocus(backward: direction == .backward)
    }

    /// Takes the keyboard focus away from the toolbar (your window moved it to another widget, or
    /// a click did): no button is focused, the ring is hidden, and forwarded keys are left to you
    /// until ``focus(from:)``. Drawn at the next ``refresh()``. Reports nothing.
    public func resignFocus() {
        keyboardFocus.given = false
        toolbar.resignFocus()
    }

    /// Acts on a key press your window received while the toolbar has the focus (``hasFocus``):
    /// `event` is an X KeyPress of any window (its keycode and modifiers are read through the
    /// host's keymap). Returns true when the toolbar used the key: your own key handler
    /// (``keyHandler``), a standard toolbar key (``ToolbarKeyAction``), or Tab leaving the
    /// toolbar, which reports ``Event/focusLeft(_:)``. Returns false for a key that is yours to
    /// handle (a shortcut, a key the toolbar has no use for), for an event that is no key press,
    /// while the toolbar has no focus, and before ``Event/ready`` (no keymap yet).
    ///
    /// The host's own window gets its keys from X; hand those to ``handle(_:)`` as usual.
    /// Changes are drawn at the next ``refresh()``.
    @discardableResult
    public func handleKeyPress(_ event: XEvent) -> Bool {
        guard !event.isError, Int32(event.code) == XCB_KEY_PRESS else { return false }
        let (keycode, modifiers) = event.withEvent(as: xcb_key_press_event_t.self) { ($0.detail, $0.state) }
        return handleKeyPress(keycode: keycode, modifiers: modifiers)
    }

    /// Acts on a press of the key `keycode` with the core modifier state `modifiers` (the `state`
    /// of an X KeyPress: Shift 0x1, Lock 0x2, Control 0x4, Mod1…Mod5, the XKB group in bits
    /// 13–14), read through the host's keymap, as ``handleKeyPress(_:)-(XEvent)`` does.
    @discardableResult
    public func handleKeyPress(keycode: UInt8, modifiers: UInt16) -> Bool {
        guard let keyboard else { return false }
        return handleKeyPress(keyboard.press(keycode: keycode, modifiers: modifiers))
    }

    /// What the X KeyPress `event` means, read through the host's keymap: for the keys your own
    /// widgets receive (Tab from your last widget into the toolbar, say). Nil for anything but a
    /// key press, or before the keymap is read (``Event/ready``).
    public func keyPress(for event: XEvent) -> KeyPress? {
        guard let keyboard, !event.isError, Int32(event.code) == XCB_KEY_PRESS else { return nil }
        let (keycode, modifiers) = event.withEvent(as: xcb_key_press_event_t.self) { ($0.detail, $0.state) }
        return keyboard.press(keycode: keycode, modifiers: modifiers)
    }

    /// Acts on `press`, a key already read through a keymap (yours, or a synthetic one), as
    /// ``handleKeyPress(_:)-(XEvent)`` does.
    @discardableResult
    public func handleKeyPress(_ press: KeyPress) -> Bool {
        guard isAttached, hasFocus else { return false }
        tooltips?.hide(suppress: true, owner: tooltipOwner)
        return handleKey(press)
    }

    /// Tab or Shift+Tab: the focus moves within the toolbar, wraps round (``focusWraps``), or
    /// leaves it, which is reported.
    func advanceFocus(backward: Bool) {
        guard !toolbar.advanceFocus(backward: backward, wrapping: focusWraps) else { return }
        keyboardFocus.given = false
        onEvent?(.focusLeft(backward ? .backward : .forward))
    }

    /// X's focus came to (or left) the host's window: a child host's focus follows it (a
    /// top-level host's follows ``windowHasFocus`` itself). Coming in, the focus is on the
    /// button it was on, else the first; going out, no button keeps it.
    func windowFocusChanged() {
        guard properties == nil else { return }
        if windowHasFocus {
            guard !keyboardFocus.given else { return }
            keyboardFocus.given = true
            toolbar.focusFirstButton()
            onEvent?(.focusEntered)
        } else {
            // X's focus left the window: whatever the toolbar held (given, or a focus that Tab
            // already handed back), nothing stays focused or ringed.
            keyboardFocus.given = false
            toolbar.resignFocus()
        }
    }
}
