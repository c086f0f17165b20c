import BadgeIO
import BadgeCore
import CAtspi

/// A snapshot of what the shell shows screen readers: the application, its frame (the top-level
/// window, named like its title), the tool bar, and one push button per toolbar button, named by
/// its label and described by its badge ("Mail, 12 unread").
///
/// The bridge answers queries from the latest snapshot and sends events for what differs from the
/// previous one, as the window state is pushed as a diff. Pure: built and compared without a bus.
package struct AccessibleTree: Equatable, Sendable {
    /// The application object's path (AT-SPI2's root).
    package static let applicationPath = ATSPI_DBUS_PATH_ROOT
    /// The frame's path.
    package static let framePath = "/org/a11y/atspi/accessible/frame"
    /// The tool bar's path.
    package static let toolBarPath = "/org/a11y/atspi/accessible/toolbar"
    /// The path of the push button for toolbar button `index`.
    package static func buttonPath(_ index: Int) -> String { "/org/a11y/atspi/accessible/button/\(index)" }

    /// The nodes by path.
    package private(set) var nodes: [String: AccessibleNode] = [:]
    /// The application's name.
    package let applicationName: String

    /// What a toolbar's window looks like to the bridge.
    package struct Window: Equatable, Sendable {
        /// The title (nil: a child window inside another program's window, which has no frame of ours).
        package var title: String?
        /// The window's size in pixels.
        package var size: PixelRect
        /// True while the window is mapped.
        package var isMapped: Bool
        /// True while the toolbar has the keyboard focus (its top-level window's, or, embedded,
        /// the focus its caller gave it): only then is its focused button reported focused.
        package var isActive: Bool

        /// Describes a window.
        package init(title: String?, size: PixelRect, isMapped: Bool, isActive: Bool) {
            self.title = title
            self.size = size
            self.isMapped = isMapped
            self.isActive = isActive
        }
    }

    /// The actions of every push button: a left click, a right click and a middle click, with the
    /// keys that do the same, described in `strings`.
    package static func buttonActions(_ strings: AccessibilityStrings) -> [AccessibleNode.Action] {
        [AccessibleNode.Action(name: "click", description: strings.increment, keyBinding: "space", badgeAction: .increment),
         AccessibleNode.Action(name: "decrement", description: strings.decrement, keyBinding: "minus", badgeAction: .decrement),
         AccessibleNode.Action(name: "clear", description: strings.clear, keyBinding: "Delete", badgeAction: .clear)]
    }

    /// An open peek, as screen readers see it: a window holding a menu of its rows.
    package struct Peek: Equatable, Sendable {
        /// The button it is for (its push button is expanded), or nil for one that is not (the tray's).
        package var buttonIndex: Int?
        /// The rows.
        package var rows: [PeekRow]
        /// Each row's frame, and the whole popup's, in pixels from the part's window's top-left.
        package var rowFrames: [PixelRect]
        /// The popup's frame, in the same coordinates.
        package var frame: PixelRect
        /// The highlighted row (focused and selected), or nil.
        package var highlighted: Int?

        /// Describes an open peek.
        package init(buttonIndex: Int?, rows: [PeekRow], rowFrames: [PixelRect], frame: PixelRect, highlighted: Int?) {
            self.buttonIndex = buttonIndex
            self.rows = rows
            self.rowFrames = rowFrames
            self.frame = frame
            self.highlighted = highlighted
        }
    }

    /// One host's share of the application: its toolbar and the window it is in.
    package struct Part {
        /// The toolbar.
        package var toolbar: Toolbar
        /// The host's window.
        package var window: Window
        /// Its open peek, if any.
        package var peek: Peek?

        /// A toolbar in a window, with its open peek.
        package init(toolbar: Toolbar, window: Window, peek: Peek? = nil) {
            self.toolbar = toolbar
            self.window = window
            self.peek = peek
        }
    }

    /// The open peek's window of part `part`.
    package static func peekWindowPath(part: Int) -> String { "/org/a11y/atspi/accessible/\(part)/peek" }
    /// The open peek's menu of part `part`.
    package static func peekMenuPath(part: Int) -> String { "/org/a11y/atspi/accessible/\(part)/peek/menu" }
    /// Row `row` of part `part`'s open peek.
    package static func peekItemPath(_ row: Int, part: Int) -> String { "/org/a11y/atspi/accessible/\(part)/peek/item/\(row)" }

    /// The frame of part `part` (the first part's paths are the unnumbered ones).
    package static func framePath(part: Int) -> String { part == 0 ? framePath : "/org/a11y/atspi/accessible/\(part)/frame" }
    /// The tool bar of part `part`.
    package static func toolBarPath(part: Int) -> String { part == 0 ? toolBarPath : "/org/a11y/atspi/accessible/\(part)/toolbar" }
    /// Button `index` of part `part`.
    package static func buttonPath(_ index: Int, part: Int) -> String {
        part == 0 ? buttonPath(index) : "/org/a11y/atspi/accessible/\(part)/button/\(index)"
    }

    /// The tree of one toolbar in one window.
    package init(toolbar: Toolbar, applicationName: String, window: Window, strings: AccessibilityStrings = .english) {
        self.init(parts: [Part(toolbar: toolbar, window: window)], applicationName: applicationName, strings: strings)
    }

    /// The tree of an application with several toolbars (one per host on the connection): the
    /// application, then for each part a frame (a window of the toolkit's own, named by its title)
    /// or directly a tool bar (a toolbar in a window of the caller's), then its push buttons.
    package init(parts: [Part], applicationName: String, strings: AccessibilityStrings = .english) {
        self.applicationName = applicationName
        var topChildren: [String] = []
        let actions = Self.buttonActions(strings)
        for (part, entry) in parts.enumerated() {
            let (toolbar, window) = (entry.toolbar, entry.window)
            let framePath = Self.framePath(part: part), toolBarPath = Self.toolBarPath(part: part)
            let shown: Set<UInt32> = window.isMapped
                ? [ATSPI_STATE_ENABLED.rawValue, ATSPI_STATE_SENSITIVE.rawValue, ATSPI_STATE_VISIBLE.rawValue, ATSPI_STATE_SHOWING.rawValue]
                : [ATSPI_STATE_ENABLED.rawValue, ATSPI_STATE_SENSITIVE.rawValue, ATSPI_STATE_VISIBLE.rawValue]
            var toolBarParent = Self.applicationPath
            if let title = window.title {
                var states = shown.union([ATSPI_STATE_RESIZABLE.rawValue])
                if window.isActive { states.insert(ATSPI_STATE_ACTIVE.rawValue) }
                nodes[framePath] = AccessibleNode(
                    path: framePath, role: ATSPI_ROLE_FRAME, name: title, description: "", states: states,
                    frame: window.size, parent: Self.applicationPath, children: [toolBarPath], actions: [], buttonIndex: nil,
                    part: part)
                topChildren.append(framePath)
                toolBarParent = framePath
            } else {
                topChildren.append(toolBarPath)
            }
            let scale = toolbar.scale
            var buttonPaths: [String] = []
            for (index, button) in toolbar.buttons.enumerated() {
                let path = Self.buttonPath(index, part: part)
                buttonPaths.append(path)
                var states = shown.union([ATSPI_STATE_FOCUSABLE.rawValue, ATSPI_STATE_HAS_POPUP.rawValue])
                if entry.peek != nil, entry.peek?.buttonIndex == index { states.insert(ATSPI_STATE_EXPANDED.rawValue) }
                if button.isFocused, window.isActive, entry.peek == nil { states.insert(ATSPI_STATE_FOCUSED.rawValue) }
                nodes[path] = AccessibleNode(
                    path: path, role: ATSPI_ROLE_PUSH_BUTTON, name: BadgeFormat.cleaned(button.badge.accessibilityLabel),
                    description: button.badge.accessibilityDescription, states: states,
                    frame: button.frame.pixels(scale: scale, rounding: .nearest), parent: toolBarPath, children: [],
                    actions: actions, buttonIndex: index, part: part)
            }
            let horizontal = toolbar.preferredSize.width >= toolbar.preferredSize.height
            nodes[toolBarPath] = AccessibleNode(
                path: toolBarPath, role: ATSPI_ROLE_TOOL_BAR, name: "", description: "",
                states: shown.union([horizontal ? ATSPI_STATE_HORIZONTAL.rawValue : ATSPI_STATE_VERTICAL.rawValue]),
                frame: window.size, parent: toolBarParent, children: buttonPaths, actions: [], buttonIndex: nil, part: part)
            if let peek = entry.peek { topChildren.append(addPeek(peek, part: part)) }
        }
        nodes[Self.applicationPath] = AccessibleNode(
            path: Self.applicationPath, role: ATSPI_ROLE_APPLICATION, name: applicationName, description: "", states: [],
            frame: nil, parent: nil, children: topChildren, actions: [], buttonIndex: nil)
    }

    /// The nodes of an open peek: a window (active, as no window manager activates an
    /// override-redirect popup, so Orca follows its focus), a menu, and a menu item per row, the
    /// highlighted one focused and selected. Returns the window's path.
    private mutating func addPeek(_ peek: Peek, part: Int) -> String {
        let windowPath = Self.peekWindowPath(part: part), menuPath = Self.peekMenuPath(part: part)
        let shown: Set<UInt32> = [ATSPI_STATE_ENABLED.rawValue, ATSPI_STATE_SENSITIVE.rawValue, ATSPI_STATE_VISIBLE.rawValue,
                                  ATSPI_STATE_SHOWING.rawValue]
        let click = AccessibleNode.Action(name: "click", description: "activate", keyBinding: "Return", badgeAction: .increment)
        var items: [String] = []
        for (row, entry) in peek.rows.enumerated() {
            let path = Self.peekItemPath(row, part: part)
            items.append(path)
            var states: Set<UInt32> = [ATSPI_STATE_VISIBLE.rawValue, ATSPI_STATE_SHOWING.rawValue]
            if entry.isActionable {
                states.formUnion([ATSPI_STATE_ENABLED.rawValue, ATSPI_STATE_SENSITIVE.rawValue, ATSPI_STATE_SELECTABLE.rawValue,
                                  ATSPI_STATE_FOCUSABLE.rawValue])
            }
            if row == peek.highlighted { states.formUnion([ATSPI_STATE_FOCUSED.rawValue, ATSPI_STATE_SELECTED.rawValue]) }
            let detail = [entry.detail, entry.trailing].compactMap { $0 }.joined(separator: ", ")
            var node = AccessibleNode(path: path, role: ATSPI_ROLE_MENU_ITEM, name: BadgeFormat.cleaned(entry.title),
                                      description: detail, states: states,
                                      frame: row < peek.rowFrames.count ? peek.rowFrames[row] : peek.frame, parent: menuPath,
                                      children: [], actions: entry.isActionable ? [click] : [], buttonIndex: nil, part: part)
            if let second = entry.secondaryAction, entry.isActionable {
                // The row's second action (mark read), named in the user's language, as Shift+Return does it.
                node.actions.append(AccessibleNode.Action(name: second, description: second, keyBinding: "<Shift>Return", badgeAction: .increment))
            }
            node.peekRow = row
            nodes[path] = node
        }
        nodes[menuPath] = AccessibleNode(path: menuPath, role: ATSPI_ROLE_MENU, name: "", description: "",
                                         states: shown.union([ATSPI_STATE_EXPANDED.rawValue]), frame: peek.frame,
                                         parent: windowPath, children: items, actions: [], buttonIndex: nil, part: part)
        nodes[windowPath] = AccessibleNode(path: windowPath, role: ATSPI_ROLE_WINDOW, name: "", description: "",
                                           states: shown.union([ATSPI_STATE_ACTIVE.rawValue]), frame: peek.frame,
                                           parent: Self.applicationPath, children: [menuPath], actions: [], buttonIndex: nil, part: part)
        return windowPath
    }

    package subscript(path: String) -> AccessibleNode? { nodes[path] }

    /// The index of `node` among its parent's children (-1 for the application).
    package func index(of node: AccessibleNode) -> Int {
        guard let parent = node.parent.flatMap({ nodes[$0] }) else { return -1 }
        return parent.children.firstIndex(of: node.path) ?? -1
    }

    /// The nodes in tree order (the application first).
    package var ordered: [AccessibleNode] {
        var result: [AccessibleNode] = []
        var queue = [Self.applicationPath]
        while let path = queue.first {
            queue.removeFirst()
            guard let node = nodes[path] else { continue }
            result.append(node)
            queue.append(contentsOf: node.children)
        }
        return result
    }
}
