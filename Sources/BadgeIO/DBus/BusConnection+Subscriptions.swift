/// Subscriptions, as sd-bus's match slots: a message reaches only the handlers whose rule it meets,
/// so that no user of a shared connection sees another's traffic (a launcher count's interest in
/// every peer that leaves never reaches the notification source as its daemon leaving).
extension BusConnection {
    /// One subscription.
    struct Slot {
        let rule: DBusMatchRule
        /// True when the bus was asked for the rule (`AddMatch`), now and after every greeting.
        let asksTheBus: Bool
        let handler: (DBusMessage) -> Void
        /// The owner watch a well-known ``DBusMatchRule/sender`` needs, cancelled with the slot.
        var companion: BusSubscription?
    }

    /// A well-known name whose owner is followed.
    struct OwnerWatch {
        /// The owner as last heard (nil: none, or not known yet).
        var owner: String?
        /// How many `NameOwnerChanged` were heard: an older `GetNameOwner` answer is not believed.
        var changes = 0
        /// Who is told, in order.
        var watchers: [(id: Int, tell: (String?) -> Void)] = []
        /// The subscription to the name's `NameOwnerChanged`.
        var slot: BusSubscription?
    }

    /// Hands `handler` every message `rule` matches (signals above all; on a monitoring connection
    /// also the calls and replies it overhears) until the subscription is cancelled. With
    /// `askingTheBus`, the bus is asked for them (`AddMatch`) now and after every reconnection; a
    /// monitor, which may send nothing, subscribes without. A well-known sender is compared with
    /// its owner, followed for the rule's sake.
    @discardableResult
    package func subscribe(_ rule: DBusMatchRule, askingTheBus: Bool = true,
                           _ handler: @escaping (DBusMessage) -> Void) -> BusSubscription {
        lastSlotID += 1
        let id = lastSlotID
        let companion = rule.followedSender.map { watchOwner(of: $0) { _ in } }
        let alreadyAsked = slots.contains { $0.slot.asksTheBus && $0.slot.rule == rule }
        slots.append((id, Slot(rule: rule, asksTheBus: askingTheBus, handler: handler, companion: companion)))
        if askingTheBus, !alreadyAsked, isReady { tellTheBus("AddMatch", rule.description) }
        return BusSubscription(id: id, connection: self)
    }

    /// Tells `handler` who owns `name` (nil: nobody) after every greeting, once the bus answered,
    /// and at every change of owner, until the subscription is cancelled.
    @discardableResult
    package func watchOwner(of name: String, _ handler: @escaping (String?) -> Void) -> BusSubscription {
        lastSlotID += 1
        let id = lastSlotID
        if owners[name] == nil {
            owners[name] = OwnerWatch()
            owners[name]?.slot = subscribe(.nameOwnerChanged(name)) { [weak self] message in
                guard let self, message.body.count == 3, let new = message.body[2].stringValue else { return }
                self.ownerChanged(name, to: new.isEmpty ? nil : new)
            }
            if isReady { askOwner(of: name) }
        }
        owners[name]?.watchers.append((id, handler))
        return BusSubscription(id: id, connection: self)
    }

    /// Who owns `name` as last heard, for a name being watched.
    package func owner(of name: String) -> String? { owners[name]?.owner }

    /// Ends subscription or watch `id`: a rule no other subscription asked for is removed from the
    /// bus (`RemoveMatch`), and a name nobody watches any more is no longer followed.
    func cancel(_ id: Int) {
        if let index = slots.firstIndex(where: { $0.id == id }) {
            let slot = slots.remove(at: index).slot
            slot.companion?.cancel()
            if slot.asksTheBus, isReady, !slots.contains(where: { $0.slot.asksTheBus && $0.slot.rule == slot.rule }) {
                tellTheBus("RemoveMatch", slot.rule.description)
            }
            return
        }
        for (name, var watch) in owners {
            guard let index = watch.watchers.firstIndex(where: { $0.id == id }) else { continue }
            watch.watchers.remove(at: index)
            if watch.watchers.isEmpty {
                owners[name] = nil
                watch.slot?.cancel()
            } else {
                owners[name] = watch
            }
            return
        }
    }

    /// After a greeting: every rule is asked for again, and every watched name's owner.
    func resubscribe() {
        var asked: Set<DBusMatchRule> = []
        for (_, slot) in slots where slot.asksTheBus && asked.insert(slot.rule).inserted {
            tellTheBus("AddMatch", slot.rule.description)
        }
        for name in owners.keys.sorted() { askOwner(of: name) }
    }

    /// Hands `message` to the subscriptions it matches, in the order they were made; a handler may
    /// subscribe, cancel or close.
    func deliver(_ message: DBusMessage) {
        let current = generation
        let matching = slots.filter { $0.slot.rule.matches(message) { [owners] name in owners[name]?.owner } }
        for (id, slot) in matching {
            guard generation == current else { return }
            guard slots.contains(where: { $0.id == id }) else { continue }
            slot.handler(message)
        }
    }

    private func askOwner(of name: String) {
        let changes = owners[name]?.changes ?? 0
        call(DBusMatchRule.busName, path: "/org/freedesktop/DBus", interface: DBusMatchRule.busName, member: "GetNameOwner",
             arguments: [.string(name)]) { [weak self] values in
            // An error answer is "no owner"; a change heard since the question was asked is newer.
            guard let self, let watch = self.owners[name], watch.changes == changes, self.isReady else { return }
            self.ownerChanged(name, to: values?.first?.stringValue.flatMap { $0.isEmpty ? nil : $0 }, counting: false)
        }
    }

    private func ownerChanged(_ name: String, to owner: String?, counting: Bool = true) {
        guard owners[name] != nil else { return }
        owners[name]?.owner = owner
        if counting { owners[name]?.changes += 1 }
        let current = generation
        for (id, tell) in owners[name]?.watchers ?? [] {
            guard generation == current, owners[name]?.watchers.contains(where: { $0.id == id }) == true else { continue }
            tell(owner)
        }
    }
}

/// A subscription or owner watch of a ``BusConnection``, cancelled with ``cancel()`` (or kept for
/// the connection's life). A connection keeps its subscriptions across reconnections.
package struct BusSubscription {
    fileprivate let id: Int
    fileprivate weak var connection: BusConnection?

    /// Ends it: its handler is not called again.
    package func cancel() { connection?.cancel(id) }
}
