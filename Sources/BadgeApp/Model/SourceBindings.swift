import BadgeControl
import BadgeCore
import BadgeIO
import BadgeSources
import Glibc

/// The buttons bound to real sources (issue 21): each reading shown as the button's content, with
/// where it comes from and how far it can be trusted.
///
/// - A reading with content sets the badge (cause `source`) and makes it current; a stale one
///   keeps the last good count in the stale style; a restored count is "last session" until its
///   source first answers.
/// - A change from elsewhere (a click, `--control`, the socket, D-Bus) overrides the source until
///   its next reading, and says so.
/// - A notifications source's Do Not Disturb shows every badge as its button chose (dot by default).
/// - An optional binding (the defaults without a config file) shows nothing of its source until it
///   has a value: a desktop without a notification daemon sees today's demo.
///
/// Not Sendable: the loop's thread only.
final class SourceBindings {
    /// One bound button.
    final class Binding {
        let buttonID: String
        let config: SourceConfig
        let source: any BadgeSource
        /// Shows nothing until the source has a value (the defaults without a config file).
        let optional: Bool
        /// How the badge shows during Do Not Disturb.
        let quiet: DoNotDisturbDisplay
        /// What overrode the source's value since its last reading ("click", "control" …).
        var overriddenBy: String?
        /// True once a reading set the badge.
        var applied = false
        /// What the button showed before its source did (an optional binding goes back to it).
        var unbound: BadgeContent = .none
        /// Requests to mark read that the source has not confirmed yet: their items are left out
        /// of every reading shown (the count drops at once) until the source says how it went.
        var marking: [MarkRequest] = []
        /// Why the last request to mark read failed, and when (wall clock); nil once one succeeds.
        var readFailure: (reason: String, time: Double)?

        init(buttonID: String, config: SourceConfig, source: any BadgeSource, optional: Bool, quiet: DoNotDisturbDisplay) {
            self.buttonID = buttonID
            self.config = config
            self.source = source
            self.optional = optional
            self.quiet = quiet
        }
    }

    /// One request to mark read: the keys (nil: every item the source counted), and whether the
    /// source has said it marked them (then the next reading is the source's word and ends it).
    struct MarkRequest {
        var number: Int
        var keys: Set<String>?
        var marked = false
    }

    private(set) var bindings: [Binding] = []
    var nextMarkNumber = 0
    /// Told of every request to mark read, and how each went (the board's event streams).
    var onMarkRead: (_ buttonID: String, _ keys: [String]?, _ outcome: MarkReadOutcome?) -> Void = { _, _, _ in }
    private let group: SourceGroup
    /// The model the readings change (its funnel), with no window in the way.
    private weak var model: ToolbarModel?
    /// The buttons bound: the model's (their one owner), never a copy kept in step.
    var toolbar: Toolbar? { model?.toolbar }
    /// Do Not Disturb as the notification daemon says.
    private(set) var doNotDisturb = false
    /// Called with each line worth a warning (a source that cannot be set up).
    var warn: (String) -> Void = { _ in }

    init(model: ToolbarModel) throws(SourceSetupError) {
        group = try SourceGroup()
        self.model = model
    }

    /// Adds the group to `loop`.
    func attach(to loop: EventLoop) { group.attach(to: loop) }

    /// Binds `buttonID` to a source made from `config` (not started when it cannot be made: warned).
    /// A restored value is marked "last session" until the source answers; a restored launcher
    /// count that `sender` said goes as soon as that connection is found gone.
    func bind(_ buttonID: String, to config: SourceConfig, optional: Bool = false, quiet: DoNotDisturbDisplay = .dot,
              sessionBus: BusConnection?, resumingFrom sender: String? = nil) {
        guard toolbar?.button(id: buttonID) != nil else { return }
        let source: any BadgeSource
        switch Self.makeSource(config, sessionBus: sessionBus) {
        case .failure(let error):
            warn("\(buttonID): \(error)")
            return
        case .success(let made):
            source = made
        }
        bind(buttonID, to: config, source: source, optional: optional, quiet: quiet, resumingFrom: sender)
    }

    /// Binds `buttonID` to `source`, made from `config` (tests give a source of their own).
    func bind(_ buttonID: String, to config: SourceConfig, source: any BadgeSource, optional: Bool = false,
              quiet: DoNotDisturbDisplay = .dot, resumingFrom sender: String? = nil) {
        guard let button = toolbar?.button(id: buttonID) else { return }
        let binding = Binding(buttonID: buttonID, config: config, source: source, optional: optional, quiet: quiet)
        bindings.append(binding)
        binding.unbound = button.badge.value
        if !optional { button.badge.confidence = button.badge.value != .none ? .lastSession : .pending }
        if let notifications = source as? NotificationSource {
            notifications.onDoNotDisturbChange = { [weak self] on in self?.setDoNotDisturb(on) }
        }
        source.onChange = { [weak self, weak binding] reading in
            guard let self, let binding else { return }
            // A request the source marked ends with its next reading: that is its word on the count.
            binding.marking.removeAll { $0.marked }
            self.apply(reading, to: binding)
        }
        group.add(source)
        if let sender, !optional, button.badge.value != .none, let launcher = source as? LauncherEntrySource {
            launcher.resume(from: sender)
        }
    }

    /// The bus connection whose launcher count `buttonID` shows, for the state file.
    func sender(of buttonID: String) -> String? {
        (binding(of: buttonID)?.source as? LauncherEntrySource)?.shownSender
    }

    static func makeSource(_ config: SourceConfig, sessionBus: BusConnection?) -> Result<any BadgeSource, SourceSetupError> {
        let address = Environment.value("DBUS_SESSION_BUS_ADDRESS")
        switch config {
        case .maildir(let paths, let folders, let newOnly, let open):
            return .success(MaildirSource(paths: paths, folders: folders, newOnly: newOnly, open: open))
        case .notmuch(let query, let open):
            return .success(NotmuchSource(query: query, open: open))
        case .command(let arguments, let interval, let timeout):
            return .success(CommandSource(arguments: arguments, interval: interval, timeout: timeout))
        case .imap(let account, let password, let timing, let open):
            return .success(IMAPSource(account: account, password: password, timing: timing, open: open))
        case .sum(let parts):
            var made: [SumSource.Part] = []
            for part in parts {
                switch makeSource(part.config, sessionBus: sessionBus) {
                case .success(let source): made.append(SumSource.Part(name: part.name, source: source))
                case .failure(let error): return .failure(SourceSetupError("\(part.name): \(error)"))
                }
            }
            return .success(SumSource(parts: made))
        case .notifications(let applications):
            guard let address else { return .failure(SourceSetupError(Sentence("notifications need a session bus (DBUS_SESSION_BUS_ADDRESS)").localized)) }
            if let sessionBus { return .success(NotificationSource(sharing: sessionBus, busAddress: address, applications: applications)) }
            do {
                return .success(try NotificationSource(busAddress: address, applications: applications))
            } catch {
                return .failure(error)
            }
        case .launchers:
            guard let address else { return .failure(SourceSetupError(Sentence("launcher counts need a session bus (DBUS_SESSION_BUS_ADDRESS)").localized)) }
            let hub: LauncherHubSource
            if let sessionBus {
                hub = LauncherHubSource(sharing: sessionBus)
            } else {
                do throws(SourceSetupError) { hub = try LauncherHubSource(busAddress: address) } catch { return .failure(error) }
            }
            hub.ownDesktopID = BadgeApplication.desktopFileID
            return .success(hub)
        case .launcher(let id):
            guard let address else { return .failure(SourceSetupError(Sentence("launcher counts need a session bus (DBUS_SESSION_BUS_ADDRESS)").localized)) }
            do throws(SourceSetupError) {
                let source: LauncherEntrySource
                if let sessionBus {
                    source = try LauncherEntrySource(desktopID: id, sharing: sessionBus)
                } else {
                    source = try LauncherEntrySource(desktopID: id, busAddress: address)
                }
                source.ownDesktopID = BadgeApplication.desktopFileID
                return .success(source)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The binding of `buttonID`, if any.
    func binding(of buttonID: String) -> Binding? { bindings.first { $0.buttonID == buttonID } }

    /// A change from elsewhere (not a source): the badge says it overrides its source.
    func changed(_ buttonID: String, by cause: ChangeCause) {
        guard cause != .source, let binding = binding(of: buttonID), binding.applied || !binding.optional,
              let button = toolbar?.button(id: buttonID) else { return }
        binding.overriddenBy = cause.rawValue
        button.badge.confidence = .current
        button.badge.sourceDescription = Sentence("%1$s, changed by %2$s", .sentence(binding.source.reading.descriptionToSay), .text(cause.rawValue)).localized
    }

    /// Reads `buttonID`'s source again now (every source for nil); false for a button with none.
    /// An override ends here: the badge shows its source's reading again at once (nothing, when the
    /// source has none), and the new reading follows when it comes.
    func refresh(_ buttonID: String?) -> Bool {
        let chosen = buttonID.map { id in bindings.filter { $0.buttonID == id } } ?? bindings
        for binding in chosen {
            if binding.overriddenBy != nil { endOverride(binding) }
            group.refresh(binding.source)
        }
        return !chosen.isEmpty
    }

    /// Closes notification `id` through `buttonID`'s notification source (the peek's action on a
    /// notification); nothing for a button bound to another kind of source.
    func closeNotification(_ id: UInt32, of buttonID: String) {
        (binding(of: buttonID)?.source as? NotificationSource)?.close(notification: id)
    }

    /// Why `buttonID`'s source is not up to date (its error: "home: localhost did not answer…"), or nil.
    func staleReason(of buttonID: String) -> String? {
        guard let reading = binding(of: buttonID)?.source.reading, reading.isStale else { return nil }
        return reading.error
    }

    /// Whether a click or a wheel on `buttonID` would change a number its source owns.
    func ownsCount(of buttonID: String) -> Bool {
        guard let binding = binding(of: buttonID) else { return false }
        return binding.applied || !binding.optional
    }

    /// Shows `binding`'s source's reading in place of what overrode it.
    private func endOverride(_ binding: Binding) {
        guard let button = toolbar?.button(id: binding.buttonID) else { return }
        binding.overriddenBy = nil
        let badge = button.badge
        show(SourceBindingPolicy.endingOverride(with: binding.source.reading, value: badge.value, blinking: badge.isBlinking),
             on: button, binding: binding)
    }

    /// The toolbar was replaced (config reload): bindings of buttons that are gone stop.
    func toolbarReplaced(_ new: Toolbar) {
        for binding in bindings where new.button(id: binding.buttonID) == nil { group.remove(binding.source) }
        bindings.removeAll { new.button(id: $0.buttonID) == nil }
        for binding in bindings { apply(binding.source.reading, to: binding) }
        applyDoNotDisturb()
    }

    /// Stops the bindings that `wanted` no longer lists as they are (another source, another Do
    /// Not Disturb choice, or a button gone); the rest keep running with what they know, so a
    /// reload costs an unchanged source nothing (no Maildir rescan, no IMAP login) and a launcher
    /// count still follows the sender that said it.
    func keep(_ wanted: [(id: String, source: SourceConfig, optional: Bool, quiet: DoNotDisturbDisplay)]) {
        let kept = { (binding: Binding) in
            wanted.contains { $0.id == binding.buttonID && $0.source == binding.config && $0.optional == binding.optional && $0.quiet == binding.quiet }
        }
        for binding in bindings where !kept(binding) { group.remove(binding.source) }
        bindings.removeAll { !kept($0) }
    }

    /// Stops every source.
    func stop() {
        for binding in bindings { group.remove(binding.source) }
        bindings.removeAll()
    }

    /// Shows `reading` on `binding`'s badge (``SourceBindingPolicy``): its value, where it comes
    /// from and how far it can be trusted change together, in one change through the funnel (cause
    /// `source`), so every output sees them as one state: a restored count confirmed by a new value
    /// is never announced as "last session", and a source going stale is a change like any other.
    func apply(_ source: SourceReading, to binding: Binding) {
        guard let button = toolbar?.button(id: binding.buttonID) else { return }
        let reading = withoutMarked(source, binding)
        let badge = button.badge
        if SourceBindingPolicy.returnsToUnbound(after: reading, optional: binding.optional, applied: binding.applied) {
            binding.applied = false
            binding.overriddenBy = nil
            model?.change(button, cause: .source) { badge in
                badge.sourceDescription = nil
                badge.confidence = .current
                badge.value = binding.unbound
            }
            return
        }
        guard let outcome = SourceBindingPolicy.outcome(of: reading, value: badge.value, blinking: badge.isBlinking,
                                                        confidence: badge.confidence, applied: binding.applied,
                                                        optional: binding.optional, items: badge.items) else { return }
        binding.overriddenBy = nil
        show(outcome, on: button, binding: binding)
    }

    /// Applies `outcome` in one change, when anything a listener sees changes.
    private func show(_ outcome: SourceBindingPolicy.Outcome, on button: ToolbarButton, binding: Binding) {
        guard let model else { return }
        binding.applied = binding.applied || outcome.applied
        let badge = button.badge
        guard outcome.value != nil || outcome.confidence != badge.confidence || outcome.description != badge.sourceDescription else { return }
        model.change(button, cause: .source) { badge in
            badge.sourceDescription = outcome.description
            badge.confidence = outcome.confidence
            if let items = outcome.items, let value = outcome.value {
                let count: Int? = if case .count(let number) = value { number } else { nil }
                badge.setItems(items, count: count)
            } else if let value = outcome.value {
                badge.value = value
            }
        }
    }

    private func setDoNotDisturb(_ on: Bool) {
        guard on != doNotDisturb else { return }
        doNotDisturb = on
        applyDoNotDisturb()
    }

    /// Every badge as its button chose while Do Not Disturb lasts.
    private func applyDoNotDisturb() {
        guard let model else { return }
        for button in toolbar?.buttons ?? [] {
            let wanted: DoNotDisturbDisplay? = doNotDisturb ? (binding(of: button.id)?.quiet ?? quietDefault(of: button.id)) : nil
            guard button.badge.format.doNotDisturb != wanted else { continue }
            model.change(button, cause: .source) { $0.format.doNotDisturb = wanted }
        }
    }

    /// The Do Not Disturb choice of an unbound button (the config's, kept by the app).
    var quietChoice: (String) -> DoNotDisturbDisplay = { _ in .dot }
    private func quietDefault(of id: String) -> DoNotDisturbDisplay { quietChoice(id) }

    /// `state`'s `source` of a bound button.
    func state(of buttonID: String, now: Double = SystemTime.realtime) -> JSONValue {
        guard let binding = binding(of: buttonID), binding.applied || !binding.optional else { return .null }
        let reading = binding.source.reading
        var fields: [(String, JSONValue)] = [("kind", .string(binding.config.kind)), ("description", .string(reading.description))]
        if let updated = reading.updated {
            fields.append(("updated", .double(updated)))
            fields.append(("age", .double(max(0, (now - updated) * 10).rounded() / 10)))
        }
        fields.append(("stale", .bool(reading.isStale)))
        if let error = reading.error { fields.append(("error", .string(error))) }
        if let cause = binding.overriddenBy { fields.append(("overriddenBy", .string(cause))) }
        if let failure = binding.readFailure { fields.append(("readError", .string(failure.reason))) }
        return .object(fields)
    }

    /// "from ~/Maildir/INBOX, 2 s ago" (or why it cannot be trusted), for `explain` and the peek.
    func explanation(of buttonID: String, now: Double = SystemTime.realtime) -> Sentence? {
        guard let binding = binding(of: buttonID), binding.applied || !binding.optional else { return nil }
        let reading = binding.source.reading
        var parts = [Sentence("from %s", .sentence(reading.descriptionToSay))]
        if let updated = reading.updated { parts.append(Self.age(now - updated)) } else { parts.append(Sentence("no reading yet")) }
        if let cause = binding.overriddenBy { parts.append(Sentence("overridden by %s until its next reading", .text(cause))) }
        if reading.isStale {
            parts.append(reading.errorToSay.map { Sentence("not up to date: %s", .sentence($0)) } ?? Sentence("not up to date"))
        }
        if !binding.marking.isEmpty { parts.append(Sentence("marking read")) }
        if let failure = binding.readFailure {
            parts.append(Sentence("not marked read %1$s: %2$s", .sentence(Self.age(now - failure.time)), .text(failure.reason)))
        }
        return Sentence.list(parts)
    }

    /// "2 s ago", "3 min ago", "5 h ago".
    static func age(_ seconds: Double) -> Sentence {
        let s = max(0, Int(seconds.rounded()))
        if s < 60 { return Sentence(one: "%s s ago", other: "%s s ago", count: s, .number(s)) }
        if s < 3600 { return Sentence(one: "%s min ago", other: "%s min ago", count: s / 60, .number(s / 60)) }
        return Sentence(one: "%s h ago", other: "%s h ago", count: s / 3600, .number(s / 3600))
    }

}
