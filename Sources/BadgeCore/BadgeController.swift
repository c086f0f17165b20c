/// The badge of one host (toolbar button): content, formatting, style, animation and damage tracking.
///
/// Not thread-safe; use from one thread. Every change animates from what is on screen at the clock's
/// current time; several changes at the same clock time (or within `coalescingInterval` of the first)
/// coalesce into one animation from the state before the first of them. `presentation(at:)` is a pure function of the controller state and time.
///
/// Animations: appear = scale 0 → 1 on `easeOutBack` plus opacity 0 → 1 (linear); disappear = scale → 0 on
/// `ease` plus opacity → 0, still showing the old label; a change of the shown label while visible =
/// bounce (scale `bounceStartScale` → 1 on `bounce`, or from the current scale when a scale animation is in
/// flight, so the scale is continuous) plus a frame morph (easeInOut, `rollDuration`) and, between two
/// count labels, rolling digit columns (easeOutBack, `rollDuration`). Blinking dots cycle opacity 0 → 1
/// (ease-out) every `blinkPeriod`. With `reducesMotion` every change applies at once.
public final class BadgeController {
    /// The name of the host for accessibility, e.g. "Mail".
    public var accessibilityLabel: String {
        didSet { revision &+= 1 }
    }

    private var content: BadgeContent
    private var storedFormat: BadgeFormat
    private var blinkRequested = false
    private var storedTiming: BadgeAnimationTiming
    /// `style.sanitized()`, kept up to date by `style`.
    private var sanitizedStyle: BadgeStyle
    private let clock: any BadgeClock
    private let measurer: any TextMeasuring
    private var textSizes = TextSizeCache()

    /// The animation state; stale while `hasPendingChange` (see `resolvePendingChange()`).
    private var state: AnimationState
    /// When the running burst of changes started, and the state before its first change.
    private var burstTime: Double?
    private var burstBefore: AnimationState?
    /// A change coalesced into the running burst whose transition has not been computed yet.
    private var hasPendingChange = false
    /// The rest frame of the most recently presented label, valid while layout, style and the text sizes it
    /// was computed from are unchanged.
    private var restFrameCache: (label: BadgeLabel, frame: Rect?, generation: Int)?

    private var host = Rect.zero
    private var bounds = Rect(x: -.infinity, y: -.infinity, width: .infinity, height: .infinity)
    private var direction = LayoutDirection.leftToRight
    private var scale = 1.0
    private var lane: Rect?

    private var needsDisplay = true
    /// The clock time of the last `takeDamage` that found the badge at rest, nil while it animates.
    private var settledAt: Double?
    private var lastPresentation: BadgePresentation?
    private var lastPainted: Rect?

    /// Creates a controller showing `content` at rest (no initial animation).
    public init(accessibilityLabel: String, content: BadgeContent = .none, format: BadgeFormat = BadgeFormat(),
                style: BadgeStyle = BadgeStyle(), timing: BadgeAnimationTiming = BadgeAnimationTiming(),
                clock: any BadgeClock, measurer: any TextMeasuring) {
        self.accessibilityLabel = accessibilityLabel
        self.content = BadgeController.normalized(content)
        self.storedFormat = format
        self.style = style
        self.sanitizedStyle = style.sanitized()
        self.storedTiming = timing.sanitized()
        self.clock = clock
        self.measurer = measurer
        self.state = .rest(LabelModel(content: BadgeController.normalized(content), format: format))
    }

    // MARK: Content

    /// The content; setting animates (appear / bounce + roll / disappear) from what is on screen now.
    /// Stored normalised: negative counts become 0, empty or whitespace-only text becomes `.none`,
    /// and text is capped to ``TextBounds/maximumBadgeTextBytes`` bytes (``TextBounds/badgeText(_:)``).
    /// Setting stops a blink.
    /// Setting it also empties ``items``: a value given directly is not backed by items.
    public var value: BadgeContent {
        get { content }
        set {
            let content = BadgeController.normalized(newValue)
            change {
                self.content = content
                storedItems = BadgeItemList()
                blinkRequested = false
            }
        }
    }

    // MARK: Items

    private var storedItems = BadgeItemList()

    /// The items behind the count, newest first; empty when the value is not backed by items.
    /// While there are items, the value is their count (``BadgeItemList/count``) unless
    /// ``setItems(_:count:)`` was given another.
    public var items: BadgeItemList { storedItems }

    /// Whether the value is backed by items (listed or only counted).
    public var hasItems: Bool { !storedItems.isEmpty }

    /// Shows `items`: the value becomes `count` (their count when nil), animated like any change;
    /// an empty list with no count clears the badge to 0.
    public func setItems(_ items: BadgeItemList, count: Int? = nil) {
        let content = BadgeController.normalized(.count(count ?? items.count))
        guard items != storedItems || content != self.content else { return }
        change {
            self.content = content
            storedItems = items
            blinkRequested = false
        }
    }

    /// Adds `item` (or replaces the one with its key); true when it replaced one. The count
    /// becomes the items' count.
    @discardableResult
    public func addItem(_ item: BadgeItem) -> Bool {
        var list = storedItems
        let replaced = list.insert(item)
        setItems(list)
        return replaced
    }

    /// Removes the item with `key` and returns it (nil, and nothing changes, when there is none).
    @discardableResult
    public func removeItem(key: String) -> BadgeItem? {
        var list = storedItems
        guard let removed = list.remove(key: key) else { return nil }
        setItems(list)
        return removed
    }

    /// The formatting rules; changing them animates the label change like a new value.
    public var format: BadgeFormat {
        get { storedFormat }
        set {
            guard newValue != storedFormat else { return }
            change { storedFormat = newValue }
        }
    }

    /// The look; changes apply at once (no animation) and produce damage.
    public var style: BadgeStyle {
        willSet { resolvePendingChange() }
        didSet {
            sanitizedStyle = style.sanitized()
            restFrameCache = nil
            refitDisplay()
            needsDisplay = true
        }
    }

    /// Animation timing, stored sanitised (`BadgeAnimationTiming.sanitized()`); applies to later changes.
    public var timing: BadgeAnimationTiming {
        get { storedTiming }
        set {
            resolvePendingChange()
            storedTiming = newValue.sanitized()
        }
    }

    /// Changes apply at once; blink becomes a steady dot. Turning it on ends running animations at once.
    public var reducesMotion = false {
        willSet { resolvePendingChange() }
        didSet {
            guard reducesMotion != oldValue else { return }
            burstTime = nil
            burstBefore = nil
            if reducesMotion {
                state = .rest(targetModel)
            } else if isBlinking {
                state.blinkStart = now
                state.blinkPeriod = storedTiming.blinkPeriod
            }
            needsDisplay = true
        }
    }

    /// How far the value can be trusted (a source's badge): the stale and last-session styles, and
    /// a mark in ``accessibilityDescription``. Changes apply at once and produce damage. A stale badge
    /// with nothing to show (a source that never succeeded, or failed after a 0) shows
    /// ``unknownMark`` in the stale style, so "cannot be known" never looks like "0, all fine"; the
    /// mark appears and goes with the usual animation.
    public var confidence: BadgeConfidence = .current {
        willSet { resolvePendingChange() }
        didSet {
            guard confidence != oldValue else { return }
            if (oldValue == .stale) != (confidence == .stale), Self.showsNothing(content) { change {} }
            revision &+= 1
            needsDisplay = true
        }
    }

    /// What a stale badge with nothing to show draws: "?".
    public static let unknownMark = "?"

    /// Whether the unknown mark is on show (``confidence`` stale, nothing to show).
    public var showsUnknownMark: Bool { confidence == .stale && Self.showsNothing(content) }

    private static func showsNothing(_ content: BadgeContent) -> Bool {
        content == .none || content == .count(0)
    }

    /// Where the value comes from, for people ("~/Maildir/INBOX"); nil when nothing feeds it. Said
    /// in ``accessibilityDescription`` ("Mail, 12 unread, from ~/Maildir/INBOX").
    public var sourceDescription: String? {
        didSet { if sourceDescription != oldValue { revision &+= 1 } }
    }

    /// Counts every change of what the badge says or shows (content, format, blink, confidence,
    /// where it comes from, its label and words): an observer that remembers the last revision it
    /// saw knows whether to look again, whichever way the change came (the screen reader bridge
    /// follows it, not a flag set in many places).
    public private(set) var revision = 0

    /// The label for the current value: `format.label(for: value)`, text in full (not cut to the lane).
    public var label: BadgeLabel { format.label(for: content) }

    /// The label as drawn at rest: ``label`` (or ``unknownMark``) with text cut with "…" to fit the
    /// lane given to `layout(host:bounds:direction:scale:lane:)`.
    public var displayedLabel: BadgeLabel { targetModel.label }

    /// The current count (0 for non-count content).
    public var count: Int {
        if case .count(let value) = content { return value }
        return 0
    }

    /// Adds `step` (negative decrements), saturating at `Int.max` and never below 0; other content starts at 0.
    public func increment(by step: Int = 1) {
        let (sum, overflow) = count.addingReportingOverflow(step)
        value = .count(overflow ? (step > 0 ? Int.max : 0) : Swift.max(sum, 0))
    }

    /// Subtracts `step` (negative increments), never below 0 and saturating at `Int.max`.
    public func decrement(by step: Int = 1) {
        increment(by: step == Int.min ? Int.max : -step)
    }

    /// Sets the count to 0 (hidden when `format.hidesAtZero`).
    public func clear() {
        value = .count(0)
    }

    /// Shows `text`; empty or whitespace-only text removes the badge (`.none`).
    public func setText(_ text: String) {
        value = .text(text)
    }

    /// Shows a dot; `blink` makes it pulse until the value changes (steady with `reducesMotion`).
    public func showDot(blink: Bool = false) {
        change {
            content = .dot
            storedItems = BadgeItemList()
            blinkRequested = blink
        }
    }

    /// Removes the badge with the disappear animation (`value = .none`).
    public func hide() {
        value = .none
    }

    /// Whether a dot is blinking on screen (requested, showing a dot and motion allowed).
    public var isBlinking: Bool {
        blinkRequested && content == .dot && !reducesMotion
    }

    // MARK: Layout

    /// Where the host is (logical, window coordinates), the window bounds, direction and device scale; call on every relayout.
    /// Relayouts never animate (a running morph moves with the host) but produce damage.
    ///
    /// `lane` is the horizontal extent the badge may paint, its border ring included (nil: no limit
    /// but `bounds`): a ``Toolbar`` gives each button its share of the row, so that one badge never
    /// covers another button's badge. Text too wide for the lane is cut with "…"
    /// (``BadgeFormat/ellipsis``, at grapheme boundaries) in what is drawn (``displayedLabel``);
    /// ``label``, ``value`` and ``accessibilityDescription`` keep the full text. Counts are not cut.
    public func layout(host: Rect, bounds: Rect, direction: LayoutDirection, scale: Double, lane: Rect? = nil) {
        guard host != self.host || bounds != self.bounds || direction != self.direction || scale != self.scale
              || lane != self.lane
        else { return }
        resolvePendingChange()
        restFrameCache = nil
        self.host = host
        self.bounds = bounds
        self.direction = direction
        self.scale = scale
        self.lane = lane
        refitDisplay()
        needsDisplay = true
    }

    /// The widest body the lane allows (the lane less the border ring on both sides, in whole device
    /// pixels), nil without a lane.
    private var maximumBodyWidth: Double? { bodyLane?.width }

    /// The body's lane: `lane` inset by the border ring, so that the ring stays inside it too, with its
    /// edges snapped inward to device pixels (as the layout keeps the body); nil without a usable lane.
    private var bodyLane: Rect? {
        guard let lane, lane.minX.isFinite, lane.maxX.isFinite, lane.width > 0 else { return nil }
        let ring = sanitizedStyle.borderWidth
        let scale = DeviceGrid.sanitizedScale(self.scale)
        let left = DeviceGrid.ceil((lane.minX + ring) * scale) / scale
        let right = Swift.max(DeviceGrid.floor((lane.maxX - ring) * scale) / scale, left)
        return Rect(x: left, y: lane.minY, width: right - left, height: lane.height)
    }

    /// After the lane, style or text sizes changed: the text on screen is cut again to fit, at once
    /// (a relayout never animates). A badge shrinking away keeps its old label.
    private func refitDisplay() {
        let target = targetModel
        guard !state.isDisappearing, state.display.label != .hidden, state.display.count == nil, target.count == nil,
              state.display.label != target.label else { return }
        state.display = target
        state.columns = AnimationState.rest(target).columns
        state.morph = nil
    }

    // MARK: Presentation

    /// What to draw at `time` (NaN counts as +infinity: the rest state).
    public func presentation(at time: Double) -> BadgePresentation {
        resolvePendingChange()
        let time = BadgeController.sanitized(time)
        let state = self.state
        guard state.isOnScreen(at: time), let frame = currentFrame(of: state, at: time, cachingRest: true)
        else { return .hidden }
        let font = sanitizedStyle.font
        // `state.columns` is kept in visual order (see `AnimationState.columns`).
        var runs: [BadgeTextRun] = []
        runs.reserveCapacity(state.columns.count)
        for column in state.columns {
            if let run = column.run(at: time, measure: { self.textSize(of: $0, font: font).width }) {
                runs.append(run)
            }
        }
        return BadgePresentation(label: state.display.label, frame: frame, scale: Swift.max(state.scale.value(at: time), 0),
                                 opacity: state.opacity(at: time), runs: runs)
    }

    /// What to draw now (at `clock.now`).
    public func presentation() -> BadgePresentation {
        presentation(at: now)
    }

    /// When the current animation ends: nil when at rest, .infinity while blinking.
    public var animationEndTime: Double? {
        resolvePendingChange()
        return state.animationEnd(after: now)
    }

    /// What the badge painted as of the last `takeDamage` (logical, rounded out), nil when nothing.
    /// Renderers that redraw a clipped region use it to skip badges outside the region.
    public var paintedArea: Rect? { lastPainted }

    /// The logical rectangle to redraw since the last call (union of what was painted before and what will be painted now), nil if nothing changed.
    /// Painted areas are `paintedBounds` rounded out to whole logical px plus 1 px for anti-aliasing.
    public func takeDamage() -> Rect? {
        // At rest and unchanged since the last call: nothing to compute (keeps idle toolbars of
        // thousands of badges cheap per frame).
        if settledAt.map({ now >= $0 }) == true, !needsDisplay, !hasPendingChange { return nil }
        let current = presentation()
        settledAt = state.animationEnd(after: now) == nil ? now : nil
        let painted = current.paintedBounds(ringWidth: sanitizedStyle.borderWidth).map(BadgeController.roundedOut)
        defer {
            lastPresentation = current
            lastPainted = painted
            needsDisplay = false
        }
        guard needsDisplay || current != lastPresentation else { return nil }
        switch (lastPainted, painted) {
        case (nil, nil): return nil
        case (let old?, nil): return old
        case (nil, let new?): return new
        case (let old?, let new?): return old.union(new)
        }
    }

    // MARK: Accessibility

    /// The words of ``accessibilityDescription``, in the user's language (English by default).
    public var strings: BadgeStrings = .english {
        didSet { revision &+= 1 }
    }

    /// "Mail, 3 unread", "Mail, more than 99 unread", "Notifications, new" (dot), "Mail, New" (text), "Mail" (none/hidden),
    /// with the first two items' titles when the count is made of items ("Mail, 3 unread: Alice, Bob, …"),
    /// then where it comes from and how far it can be trusted ("Mail, 12 unread, from ~/Maildir/INBOX,
    /// not up to date"), in the words of ``strings``.
    /// Text is read in full (not truncated); an empty `accessibilityLabel` leaves just the detail ("3 unread").
    public var accessibilityDescription: String { describe(withProvenance: true) }

    private func describe(withProvenance: Bool) -> String {
        let name = BadgeFormat.cleaned(accessibilityLabel)
        var detail: String?
        switch (label, content) {
        case (.hidden, _): detail = nil
        case (.dot, _): detail = strings.new()
        case (.text, .count(let value)):
            detail = format.overflows(value)
                ? strings.moreThan(strings.number(format.effectiveMaximumCount)) : strings.unread(value, strings.number(value))
        case (.text(let shown), let other):
            if case .text(let full) = other { detail = BadgeFormat.cleaned(full) } else { detail = shown }
        }
        // What the count is made of, where it helps: "Mail, 3 unread: Alice, Bob, …": the first
        // two different titles, each named once (three mails from Alice are "Alice", not "Alice,
        // Alice, …"), and "…" when an item has a title not named (or is not listed).
        // Placeholders ("(unknown sender)") say nothing and are left out.
        var titles: [String] = []
        var more = storedItems.unlisted > 0
        for item in storedItems.items {
            let title = BadgeFormat.cleaned(item.title)
            if title.hasPrefix("(") { more = true; continue }
            guard !titles.contains(title) else { continue }
            guard titles.count < 2 else { more = true; break }
            titles.append(title)
        }
        if let shown = detail, !titles.isEmpty {
            detail = shown + ": " + titles.joined(separator: ", ") + (more ? ", …" : "")
        }
        var description = name
        let provenance = withProvenance ? [sourceDescription.map { strings.from(BadgeFormat.cleaned($0)) }, confidenceMark] : []
        for part in [detail] + provenance {
            guard let part, !part.isEmpty else { continue }
            description = description.isEmpty ? part : strings.join(description, part)
        }
        return description
    }

    /// The name and the value only ("Mail, 12 unread"), without where it comes from or how current it is.
    public var valueDescription: String { describe(withProvenance: false) }

    /// "not up to date" or "last session", in the words of ``strings``; nil when current.
    private var confidenceMark: String? {
        switch confidence {
        case .current: return nil
        case .stale: return strings.notUpToDate()
        case .lastSession: return strings.lastSession()
        case .pending: return strings.waiting()
        }
    }

    // MARK: Benchmark and diagnostics

    /// Number of text sizes currently cached (each (text, font) is measured once).
    public var cachedTextSizeCount: Int { textSizes.count }

    /// Forgets cached text sizes, e.g. after fonts were reconfigured; the next frame measures again.
    public func invalidateTextMeasurements() {
        resolvePendingChange()
        textSizes.removeAll()
        restFrameCache = nil
        refitDisplay()
        needsDisplay = true
    }

    // MARK: Private

    private var now: Double { BadgeController.sanitized(clock.now) }

    private var targetModel: LabelModel {
        let model = LabelModel(content: showsUnknownMark ? .text(Self.unknownMark) : content, format: format)
        guard let width = maximumBodyWidth else { return model }
        let style = sanitizedStyle
        return model.fitting(maximumTextWidth: width - 2 * style.horizontalPadding) {
            self.textSize(of: $0, font: style.font).width
        }
    }

    private static func sanitized(_ time: Double) -> Double {
        time.isNaN ? .infinity : time
    }

    private static func normalized(_ content: BadgeContent) -> BadgeContent {
        switch content {
        case .count(let value): return .count(Swift.max(value, 0))
        case .text(let text):
            // Capped first: what follows (cleaning, formatting, measuring) then costs what a short text does.
            let bounded = TextBounds.badgeText(text)
            return BadgeFormat.cleaned(bounded).isEmpty ? .none : .text(bounded)
        case .none, .dot: return content
        }
    }

    private static func roundedOut(_ rect: Rect) -> Rect {
        let x0 = rect.minX.rounded(.down) - 1, y0 = rect.minY.rounded(.down) - 1
        let x1 = rect.maxX.rounded(.up) + 1, y1 = rect.maxY.rounded(.up) + 1
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    private func textSize(of text: String, font: BadgeFont) -> Size {
        textSizes.size(of: text, font: font, measurer: measurer)
    }

    private var anchorPoint: Point {
        BadgeLayout.anchorPoint(host: host, style: sanitizedStyle, direction: direction)
    }

    /// The rest frame of `label` at the current layout; `caching` remembers it for the next call.
    private func restFrame(for label: BadgeLabel, caching: Bool = false) -> Rect? {
        if let cached = restFrameCache, cached.generation == textSizes.generation, cached.label == label {
            return cached.frame
        }
        let style = sanitizedStyle
        let size = label.text.map { textSize(of: $0, font: style.font) } ?? .zero
        let frame = BadgeLayout.frame(for: label, textSize: size, host: host, sanitizedStyle: style,
                                      direction: direction, scale: scale, bounds: bounds, lane: bodyLane)
        if caching { restFrameCache = (label, frame, textSizes.generation) }
        return frame
    }

    /// The frame of `state` at `time` (morphing or at rest), nil when nothing is on screen.
    private func currentFrame(of state: AnimationState, at time: Double, cachingRest: Bool = false) -> Rect? {
        guard state.isOnScreen(at: time), let rest = restFrame(for: state.display.label, caching: cachingRest)
        else { return nil }
        guard let morph = state.morph else { return rest }
        return morph.frame(at: time, anchor: anchorPoint) { rest }
    }

    /// Changes within this many seconds of the first change of a burst coalesce into one animation that
    /// starts at the first change (so a loop of updates on a real clock is one animation, not thousands).
    public static let coalescingInterval = 0.001

    /// Applies a change of what is shown (`apply` sets content, format or blink) and animates it.
    ///
    /// The first change of a burst computes its transition at once. Later changes of the same burst would
    /// each recompute the transition from the state before the burst, only for the next one to replace it,
    /// so they just record that a change is pending; `resolvePendingChange()` computes the transition once
    /// when something reads the state or is about to change an input of the transition.
    private func change(_ apply: () -> Void) {
        revision &+= 1
        let time = now
        if let start = burstTime, time >= start, time - start <= BadgeController.coalescingInterval {
            apply()
            hasPendingChange = true
        } else {
            resolvePendingChange()  // the previous burst ends with the inputs it had
            apply()
            burstTime = time
            burstBefore = state
            state = transition(from: state, to: targetModel, at: time)
        }
        needsDisplay = true
    }

    /// Computes the transition of a pending coalesced change: from the state before the burst, at the burst's
    /// start, to the current target (what the last change of the burst computed before changes were deferred).
    /// Called before reading `state` and before changing anything `transition` reads (timing, style, layout,
    /// reduced motion, text measurements).
    private func resolvePendingChange() {
        guard hasPendingChange else { return }
        hasPendingChange = false
        guard let time = burstTime, let before = burstBefore else { return }
        state = transition(from: before, to: targetModel, at: time)
    }

    /// The animation state after changing from `old` (as on screen at `time`) to `target`.
    private func transition(from old: AnimationState, to target: LabelModel, at time: Double) -> AnimationState {
        if reducesMotion { return .rest(target) }
        let timing = storedTiming
        let wantsBlink = isBlinking && target.label == .dot
        var state = old
        state.blinkPeriod = timing.blinkPeriod
        let visible = old.isOnScreen(at: time)
        let opacity = old.opacity(at: time)

        if target.label == .hidden {
            guard visible else { return .rest(target) }
            if state.isDisappearing { return state }
            state.isDisappearing = true
            state.blinkStart = nil
            state.scale = AnimationTrack(from: old.scale.value(at: time), to: 0, start: time,
                                         duration: timing.disappearDuration, curve: .ease)
            state.opacity = AnimationTrack(from: opacity, to: 0, start: time,
                                           duration: timing.disappearDuration, curve: .linear)
            return state
        }

        guard visible else {
            var appearing = AnimationState.rest(target)
            appearing.blinkPeriod = timing.blinkPeriod
            appearing.scale = AnimationTrack(from: 0, to: 1, start: time, duration: timing.appearDuration,
                                             curve: .easeOutBack)
            appearing.opacity = AnimationTrack(from: 0, to: 1, start: time, duration: timing.appearDuration,
                                               curve: .linear)
            if wantsBlink { appearing.blinkStart = time }
            return appearing
        }

        let wasDisappearing = state.isDisappearing
        if wasDisappearing {
            state.isDisappearing = false
            state.scale = AnimationTrack(from: old.scale.value(at: time), to: 1, start: time,
                                         duration: timing.appearDuration, curve: .easeOutBack)
            state.opacity = AnimationTrack(from: opacity, to: 1, start: time,
                                           duration: timing.appearDuration, curve: .linear)
        }

        if target.label != old.display.label {
            if !wasDisappearing {
                let start = old.scale.isMoving(at: time) ? old.scale.value(at: time) : timing.bounceStartScale
                state.scale = AnimationTrack(from: start, to: 1, start: time, duration: timing.bounceDuration,
                                             curve: .bounce)
            }
            if let frame = currentFrame(of: old, at: time) {
                let anchor = anchorPoint
                state.morph = FrameMorph(fromRelative: frame.offsetBy(dx: -anchor.x, dy: -anchor.y),
                                         start: time, duration: timing.rollDuration)
            }
            state.columns = columns(from: old, to: target, at: time, duration: timing.rollDuration)
        }
        state.display = target

        if wantsBlink {
            if state.blinkStart == nil { state.blinkStart = time }
        } else if state.blinkStart != nil {
            state.blinkStart = nil
            state.opacity = AnimationTrack(from: opacity, to: 1, start: time, duration: timing.appearDuration,
                                           curve: .linear)
        }
        return state
    }

    /// The text columns after a label change: rolling digits between two counts, static text otherwise.
    ///
    /// A changed column keeps on screen whichever of its glyphs is nearer rest (the other is at least half a
    /// line out of view) exactly where it is, as the outgoing glyph; the new glyph enters next to it from
    /// below on an increase and from above on a decrease. Unchanged columns keep what they are doing.
    private func columns(from old: AnimationState, to target: LabelModel, at time: Double,
                         duration: Double) -> [RollColumn] {
        guard let oldCount = old.display.count, let newCount = target.count, duration > 0 else {
            return AnimationState.rest(target).columns
        }
        let direction = newCount < oldCount ? -1 : 1
        let font = sanitizedStyle.font
        let measure: (String) -> Double = { self.textSize(of: $0, font: font).width }
        var keys = Set(old.columns.map(\.key))
        for column in target.columns { keys.insert(column.key) }
        var result: [RollColumn] = []
        for key in keys.sorted() {
            let newText = target.text(of: key)
            guard let column = old.columns.first(where: { $0.key == key }) else {
                result.append(RollColumn(key: key, text: newText, outgoing: "", direction: direction,
                                         startOffset: Double(direction), startWidth: 0, start: time,
                                         duration: duration))
                continue
            }
            if column.text == newText {
                if column.isRolling(at: time) || !newText.isEmpty { result.append(column) }
                continue
            }
            let rolling = column.isRolling(at: time)
            let offset = column.rollOffset(at: time)
            let retained: String, position: Double
            if rolling, abs(offset) > 0.5, let outgoing = column.outgoing {
                (retained, position) = (outgoing, offset - Double(column.direction))
            } else {
                (retained, position) = (column.text, offset)
            }
            let width = column.width(at: time, measure: measure)
            if retained == newText {
                if position == 0 {
                    if !newText.isEmpty { result.append(.rest(key: key, text: newText)) }
                } else {
                    result.append(RollColumn(key: key, text: newText, outgoing: "", direction: position > 0 ? 1 : -1,
                                             startOffset: position, startWidth: width, start: time, duration: duration))
                }
                continue
            }
            result.append(RollColumn(key: key, text: newText, outgoing: retained, direction: direction,
                                     startOffset: position + Double(direction), startWidth: width, start: time,
                                     duration: duration))
        }
        return result
    }
}
