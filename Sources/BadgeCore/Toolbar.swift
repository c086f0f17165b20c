/// A row of icon buttons with badges: layout, hit testing and pointer routing, with no window system.
///
/// The X11 shell feeds it pointer events in logical window coordinates and asks it what to redraw;
/// tests drive it the same way without a server.
public final class Toolbar {
    /// The buttons in logical (reading) order.
    public let buttons: [ToolbarButton]
    /// The sizes of the toolbar's parts.
    public var metrics: ToolbarMetrics
    /// Reading direction; right-to-left lays the buttons out from the right and mirrors badge anchors.
    public private(set) var direction: LayoutDirection = .leftToRight
    /// Device pixels per logical unit.
    public private(set) var scale: Double = 1
    /// The window's bounds in logical units.
    public private(set) var bounds: Rect = .zero

    private var pressed: (button: ToolbarButton, pointer: PointerButton)?
    private var pointerLocation: Point?
    private var pendingDamage: Rect?

    /// Creates a toolbar with these buttons, to be laid out in `direction`; call
    /// `layout(size:scale:direction:)` before use (a host does).
    public init(buttons: [ToolbarButton], metrics: ToolbarMetrics = ToolbarMetrics(), direction: LayoutDirection = .leftToRight) {
        self.buttons = buttons
        self.metrics = metrics
        self.direction = direction
    }

    /// The logical window size that shows every button.
    public var preferredSize: Size { metrics.preferredSize(buttonCount: buttons.count) }

    /// The button with this identifier, if any.
    public func button(id: String) -> ToolbarButton? {
        buttons.first { $0.id == id }
    }

    /// Lays the buttons out in a window of `size` logical units and tells each badge where its host is
    /// and which lane it may paint in (`badgeLanes()`: up to halfway to the next badge either side).
    ///
    /// Buttons keep their size and sit at the top and leading edges, as toolbars do: a taller or
    /// wider window leaves the extra room below and after them (a shorter one centres them
    /// vertically). A window too small to show them all clips the last ones, and a degenerate size
    /// (zero, negative, NaN) is treated as empty.
    public func layout(size: Size, scale: Double, direction: LayoutDirection) {
        let width = size.width.isFinite ? max(size.width, 0) : 0
        let height = size.height.isFinite ? max(size.height, 0) : 0
        self.scale = scale.isFinite && scale > 0 ? scale : 1
        self.direction = direction
        bounds = Rect(x: 0, y: 0, width: width, height: height)
        let side = metrics.buttonSize
        let columns = metrics.columns(buttonCount: buttons.count)
        let rows = (buttons.count + columns - 1) / max(columns, 1)
        let rowsHeight = Double(rows) * side + Double(max(rows - 1, 0)) * metrics.spacing
        let firstTop = rows > 1 ? metrics.padding : min(metrics.padding, ((height - rowsHeight) / 2).rounded(.down))
        for (index, button) in buttons.enumerated() {
            let leading = metrics.padding + Double(index % columns) * (side + metrics.spacing)
            let top = firstTop + Double(index / columns) * (side + metrics.spacing)
            let x = direction == .leftToRight ? leading : width - leading - side
            // Geometry is rounded once, here, to whole device pixels: hover surfaces, focus rings and
            // icons are crisp at 1.25× and 1.5× too, and every part rounds the same way.
            button.frame = snapped(Rect(x: x, y: top, width: side, height: side))
            let inset = (side - metrics.iconSize) / 2
            let iconPixels = (metrics.iconSize * self.scale).rounded()
            let iconX = ((button.frame.minX + inset) * self.scale).rounded() / self.scale
            let iconY = ((button.frame.minY + inset) * self.scale).rounded() / self.scale
            button.iconFrame = Rect(x: iconX, y: iconY, width: iconPixels / self.scale, height: iconPixels / self.scale)
        }
        let lanes = badgeLanes()
        for (index, button) in buttons.enumerated() {
            button.badge.layout(host: button.iconFrame, bounds: bounds, direction: direction, scale: self.scale,
                                lane: lanes[index])
        }
        addDamage(bounds)
    }

    /// The horizontal extent each button's badge may paint (ring included), in `buttons` order.
    ///
    /// A badge is centred on its anchor (the icon's corner), and the lanes of one row meet halfway
    /// between two neighbouring anchors: with the default metrics and style each badge may be one
    /// button plus one spacing wide (``ToolbarMetrics/badgeLaneWidth``, 50), centred where it is
    /// drawn, so a badge, however long its text, never covers another button's badge (nor the
    /// neighbour's icon), and the badges of ordinary counts sit where they always did. The first
    /// and last lanes end at the window's edges (plus the ring, which the window clips there, as
    /// before). Longer text is cut with "…" instead (see
    /// ``BadgeController/layout(host:bounds:direction:scale:lane:)``).
    func badgeLanes() -> [Rect] {
        let columns = max(metrics.columns(buttonCount: buttons.count), 1)
        let anchors = buttons.map { button in
            BadgeLayout.anchorPoint(host: button.iconFrame, style: button.badge.style.sanitized(), direction: direction).x
        }
        var lanes = buttons.map { Rect(x: bounds.minX, y: $0.frame.minY, width: bounds.width, height: $0.frame.height) }
        // Each row on its own: its badges, left to right by anchor.
        for rowStart in stride(from: 0, to: buttons.count, by: columns) {
            let row = Array(rowStart..<min(rowStart + columns, buttons.count)).sorted { anchors[$0] < anchors[$1] }
            for (position, index) in row.enumerated() {
                // At the window's edges the body may reach the edge (its ring clipped), as `bounds` allow.
                let ring = buttons[index].badge.style.sanitized().borderWidth
                let left = position == 0 ? bounds.minX - ring : (anchors[row[position - 1]] + anchors[index]) / 2
                let right = position == row.count - 1 ? bounds.maxX + ring : (anchors[index] + anchors[row[position + 1]]) / 2
                let lane = lanes[index]
                lanes[index] = Rect(x: left, y: lane.minY, width: max(right - left, 0), height: lane.height)
            }
        }
        return lanes
    }

    /// `rect` with its edges moved to the nearest device pixel.
    private func snapped(_ rect: Rect) -> Rect {
        let x0 = (rect.minX * scale).rounded(), y0 = (rect.minY * scale).rounded()
        let x1 = (rect.maxX * scale).rounded(), y1 = (rect.maxY * scale).rounded()
        return Rect(x: x0 / scale, y: y0 / scale, width: (x1 - x0) / scale, height: (y1 - y0) / scale)
    }

    /// The buttons whose frame or badge paint (as of the last `takeDamage`) meets `rect`: what a
    /// redraw clipped to `rect` has to paint.
    public func buttons(intersecting rect: Rect) -> [ToolbarButton] {
        buttons.filter { button in
            rect.intersection(button.frame) != nil || button.badge.paintedArea.map { rect.intersection($0) != nil } == true
        }
    }

    /// The button under a point in logical window coordinates, if any.
    public func button(at point: Point) -> ToolbarButton? {
        buttons.first { $0.frame.contains(point) }
    }

    /// The sum of all count badges; the window title and the taskbar show it.
    public var totalCount: Int {
        buttons.reduce(0) { total, button in
            let (sum, overflow) = total.addingReportingOverflow(button.badge.count)
            return overflow ? Int.max : sum
        }
    }

    /// `base` prefixed by the total count when it is not zero, as mail clients title their windows:
    /// `title(base: "Badges")` is "(15) Badges", or "Badges" when nothing is counted.
    public func title(base: String) -> String {
        let total = totalCount
        return total > 0 ? "(\(total)) \(base)" : base
    }

    // MARK: Pointer routing

    /// The pointer moved to `point` (nil: it left the window). Updates hover and pressed states.
    public func pointerMoved(to point: Point?) {
        pointerLocation = point
        let target = point.flatMap { button(at: $0) }
        for button in buttons {
            let hovered = button === target
            let pressedHere = pressed?.button === button && hovered
            if button.isHovered != hovered || button.isPressed != pressedHere {
                button.isHovered = hovered
                button.isPressed = pressedHere
                addDamage(button.frame)
            }
        }
    }

    /// A pointer button went down at `point`. Wheel notches act at once and return their action.
    public func pointerPressed(_ pointer: PointerButton, at point: Point) -> (ToolbarButton, BadgeAction, ChangeCause)? {
        pointerMoved(to: point)
        guard let target = button(at: point) else { return nil }
        switch pointer {
        case .wheelUp, .wheelDown: return pointer.defaultAction.map { (target, $0.action, $0.cause) }
        case .secondary:
            // The secondary button asks for a context popup (the shell's peek), never counts.
            return nil
        case .primary, .middle:
            guard pressed == nil else { return nil }
            pressed = (target, pointer)
            target.isPressed = true
            addDamage(target.frame)
            return nil
        }
    }

    /// The button held down by the primary pointer button, if any (a long press opens a peek).
    public var primaryPressedButton: ToolbarButton? {
        guard let pressed, pressed.pointer == .primary else { return nil }
        return pressed.button
    }

    /// Forgets the press in progress: its release is no click (a long press became a peek).
    public func cancelPress() {
        guard let current = pressed else { return }
        pressed = nil
        current.button.isPressed = false
        addDamage(current.button.frame)
    }

    /// A pointer button went up at `point`. A click counts only when it ends on the button where it began.
    public func pointerReleased(_ pointer: PointerButton, at point: Point) -> (ToolbarButton, BadgeAction, ChangeCause)? {
        guard let current = pressed, current.pointer == pointer else { return nil }
        pressed = nil
        current.button.isPressed = false
        addDamage(current.button.frame)
        pointerMoved(to: point)
        guard button(at: point) === current.button else { return nil }
        switch pointer {
        case .primary, .middle: return pointer.defaultAction.map { (current.button, $0.action, $0.cause) }
        case .secondary, .wheelUp, .wheelDown: return nil
        }
    }

    // MARK: Keyboard focus

    /// The button that has the keyboard focus, if any.
    public var focusedButton: ToolbarButton? { buttons.first { $0.isFocused } }

    /// Whether the focus ring is drawn: only once the keyboard is used, as `:focus-visible` does;
    /// the focus itself (what Space acts on) is there before.
    public private(set) var focusIsVisible = false

    /// Shows or hides the focus ring (keyboard use shows it; a pointer press hides it).
    public func setFocusVisible(_ visible: Bool) {
        guard visible != focusIsVisible else { return }
        focusIsVisible = visible
        if let focused = focusedButton { addDamage(focused.frame) }
    }

    /// Gives the first button the logical focus with the ring hidden, as GTK and Qt focus the
    /// first focusable widget of a new window: keys act at once, and Tab shows where.
    public func focusFirstButton() {
        guard focusedButton == nil, let first = buttons.first else { return }
        focus(first)
    }

    /// Tab and Shift+Tab: while the ring is hidden, Tab shows it where the focus is and Shift+Tab
    /// moves to the previous button (the last, from the first); once shown, both move.
    ///
    /// With `wrapping` (a toolbar that is a window of its own), the focus goes round from the last
    /// button to the first and back. Without it (a toolbar embedded in a larger window), a move
    /// past the last button (or before the first) leaves the toolbar, as a focus chain hands the
    /// focus to the next widget: no button keeps the focus, the ring is hidden, and the result is
    /// false. True while the focus stays in the toolbar.
    @discardableResult
    public func advanceFocus(backward: Bool, wrapping: Bool = true) -> Bool {
        if focusIsVisible || focusedButton == nil || backward {
            if !wrapping, let current = buttons.firstIndex(where: { $0.isFocused }),
               backward ? current == 0 : current == buttons.count - 1 {
                resignFocus()
                return false
            }
            moveFocus(backward: backward)
        }
        setFocusVisible(true)
        return focusedButton != nil
    }

    /// The focus comes in from outside the toolbar: the first button gets it (the last when
    /// `backward`, as Shift+Tab arrives), with the ring shown, since the keyboard brought it.
    public func enterFocus(backward: Bool) {
        focus(backward ? buttons.last : buttons.first)
        setFocusVisible(true)
    }

    /// The focus left the toolbar: no button has it, and the ring is hidden.
    public func resignFocus() {
        setFocusVisible(false)
        focus(nil)
    }

    /// Moves the focus to the next button (or the previous one when `backward`), wrapping around.
    public func moveFocus(backward: Bool = false) {
        guard !buttons.isEmpty else { return }
        let current = buttons.firstIndex { $0.isFocused }
        let next: Int
        if let current {
            next = (current + (backward ? buttons.count - 1 : 1)) % buttons.count
        } else {
            next = backward ? buttons.count - 1 : 0
        }
        focus(buttons[next])
    }

    /// Gives the keyboard focus to `button` (nil removes it).
    public func focus(_ button: ToolbarButton?) {
        for candidate in buttons where candidate.isFocused != (candidate === button) {
            candidate.isFocused = candidate === button
            addDamage(candidate.frame)
        }
    }

    // MARK: Damage

    /// Marks a logical rectangle as needing a redraw (hover, pressed and focus changes).
    public func addDamage(_ rect: Rect) {
        guard !rect.isEmpty else { return }
        pendingDamage = pendingDamage.map { $0.union(rect) } ?? rect
    }

    /// Everything that changed since the last call (buttons and badges), or nil when nothing did.
    public func takeDamage() -> Rect? {
        var damage = pendingDamage
        pendingDamage = nil
        for button in buttons {
            if let badgeDamage = button.badge.takeDamage() {
                damage = damage.map { $0.union(badgeDamage) } ?? badgeDamage
            }
        }
        guard let damage else { return nil }
        return damage.intersection(bounds)
    }

    /// When the last running badge animation ends: nil when everything is at rest, .infinity while one blinks.
    public var animationEndTime: Double? {
        buttons.compactMap { $0.badge.animationEndTime }.max()
    }
}
