import BadgeCore
import BadgeSources

/// What a bound badge shows for a source's reading: the rules of ``SourceBindings`` as pure
/// functions of the reading and what the badge shows now, so they are tested without a window.
///
/// - A reading with content sets the badge and makes it current; a count of 0 shows nothing.
/// - A failing (stale) source keeps what it showed last, in the stale style; one that never gave a
///   value shows nothing, stale (drawn as the unknown mark).
/// - A reading without content (nothing known yet) keeps a restored value "last session"; with
///   nothing restored the badge is "pending" until its source first answers: never "current"
///   before anything was read.
/// - An optional binding (the defaults without a config file) is left alone until its source has a
///   value, and goes back to what it showed without it when its source is absent again (the
///   notification daemon of a window manager that quit).
/// - Ending an override shows the source's reading again at once, nothing when it has none.
enum SourceBindingPolicy {
    /// What the badge should become; nil fields stay as they are.
    struct Outcome: Equatable {
        /// The new content, when it changes.
        var value: BadgeContent?
        /// How far it can be trusted.
        var confidence: BadgeConfidence
        /// Where it comes from, for the tooltip and screen readers.
        var description: String
        /// Whether the binding now has shown a value of its source.
        var applied: Bool
        /// The items the value is made of, when they change with it (nil: the value alone).
        var items: BadgeItemList? = nil
    }

    /// The badge after `reading`, given what it shows (`value`, `blinking`, `confidence`) and
    /// whether the binding has `applied` a value before and is `optional`; nil: leave it alone.
    /// A reading with items shows them (``BadgeController/setItems(_:count:)``) whenever they or
    /// the count differ from `items`, what the badge holds now.
    static func outcome(of reading: SourceReading, value: BadgeContent, blinking: Bool, confidence: BadgeConfidence,
                        applied: Bool, optional: Bool, items: BadgeItemList = BadgeItemList()) -> Outcome? {
        if optional && !applied && (reading.content == nil || reading.isAbsent) { return nil }
        var applied = applied
        var shown: BadgeContent?
        var shownItems: BadgeItemList?
        if let content = reading.content, !(reading.isStale && applied && !reading.isPartlyStale) {
            applied = true
            let target = badgeContent(content)
            if let listed = reading.items, !listed.isEmpty, case .count = content {
                if value != content || blinking || listed != items { shown = content; shownItems = listed }
            } else if value != target || blinking || !items.isEmpty {
                shown = target
            }
        }
        let trust: BadgeConfidence = reading.isStale ? .stale
            : reading.content == nil ? waiting(reading, confidence: confidence) : .current
        return Outcome(value: shown, confidence: trust, description: describe(reading), applied: applied, items: shownItems)
    }

    /// The badge when an override ends: the source's reading as it is, nothing when it has none.
    static func endingOverride(with reading: SourceReading, value: BadgeContent, blinking: Bool) -> Outcome {
        if let content = reading.content, case .count = content, let listed = reading.items, !listed.isEmpty {
            return Outcome(value: content, confidence: reading.isStale ? .stale : .current, description: describe(reading),
                           applied: true, items: listed)
        }
        let target = reading.content.map(badgeContent) ?? .none
        let trust: BadgeConfidence = reading.isStale ? .stale : reading.content == nil ? waiting(reading, confidence: .current) : .current
        return Outcome(value: value != target || blinking ? target : nil, confidence: trust,
                       description: describe(reading), applied: reading.content != nil)
    }

    /// The trust of a badge whose source has no value: a restored one stays "last session"; one
    /// that never read anything is "pending"; one that read "nothing" is current.
    static func waiting(_ reading: SourceReading, confidence: BadgeConfidence) -> BadgeConfidence {
        if confidence == .lastSession { return .lastSession }
        return reading.updated == nil ? .pending : .current
    }

    /// True when an optional binding that showed its source's values must let the button go back
    /// to what it showed without it: the source says what it follows is absent.
    static func returnsToUnbound(after reading: SourceReading, optional: Bool, applied: Bool) -> Bool {
        optional && applied && reading.isAbsent
    }

    /// A count of 0 shows no badge.
    static func badgeContent(_ content: BadgeContent) -> BadgeContent {
        if case .count(0) = content { return .none }
        return content
    }

    /// Where a reading comes from, with why it cannot be trusted when it is stale: the tooltip and
    /// the screen reader say "from command ci-status: exited with status 3, not up to date".
    /// In the user's language (the sources' sentences through the app's catalogue).
    static func describe(_ reading: SourceReading) -> String {
        guard reading.isStale, let error = reading.errorToSay, !error.english.isEmpty else { return reading.descriptionToSay.localized }
        return Sentence("%1$s: %2$s", .sentence(reading.descriptionToSay), .sentence(error)).localized
    }
}
