import BadgeIO

/// Which events someone listens for, as the AT-SPI2 registry tells (`GetRegisteredEvents`, then
/// `EventListenerRegistered` and `EventListenerDeregistered`): the bridge sends an event only when
/// a listener's pattern covers it, so nothing is sent while no one listens.
///
/// A pattern such as `object:state-changed` covers every event whose name starts with its parts
/// (`object:state-changed:focused`); `object:` and `object` cover every object event, and an empty
/// pattern every event. The registry hands patterns on in its CamelCase spelling
/// ("Object:StateChanged:Focused"); listeners' own spelling is accepted too.
package struct AccessibilityListeners: Equatable, Sendable {
    /// The (bus name, pattern) pairs registered.
    package private(set) var registrations: [Registration] = []

    /// One listener's pattern.
    package struct Registration: Equatable, Sendable {
        /// The listener's bus name.
        package var bus: String
        /// The pattern, as the listener gave it.
        package var pattern: String
        /// The pattern's parts, normalized ("object", "state-changed", "focused").
        package var parts: [String]

        /// A registration.
        package init(bus: String, pattern: String) {
            self.bus = bus
            self.pattern = pattern
            parts = AccessibilityListeners.parts(of: pattern)
        }
    }

    /// No listeners.
    package init() {}

    /// True when no one listens for anything.
    package var isEmpty: Bool { registrations.isEmpty }

    /// Replaces every registration (the answer to `GetRegisteredEvents`).
    package mutating func replace(with pairs: [(bus: String, pattern: String)]) {
        registrations = pairs.map { Registration(bus: $0.bus, pattern: $0.pattern) }
    }

    /// Adds one (`EventListenerRegistered`).
    package mutating func add(bus: String, pattern: String) {
        let registration = Registration(bus: bus, pattern: pattern)
        if !registrations.contains(registration) { registrations.append(registration) }
    }

    /// Removes one (`EventListenerDeregistered`).
    package mutating func remove(bus: String, pattern: String) {
        if let index = registrations.firstIndex(of: Registration(bus: bus, pattern: pattern)) { registrations.remove(at: index) }
    }

    /// Forgets every registration of a listener whose bus name went away.
    package mutating func removeAll(bus: String) {
        registrations.removeAll { $0.bus == bus }
    }

    /// True when the event named `name` is to be sent: some pattern covers it, or, while anyone
    /// listens at all, it keeps clients' caches right. libatspi caches names, descriptions, states
    /// and children, and subscribes to their changes on the bus for every client, whatever the
    /// client registered (atk-bridge sends these the same way). With no listener, nothing is sent.
    package func sends(_ name: String) -> Bool {
        guard !registrations.isEmpty else { return false }
        return Self.updatesCaches(name) || wants(name)
    }

    /// The events libatspi keeps its cache with.
    package static func updatesCaches(_ name: String) -> Bool {
        name.hasPrefix("object:state-changed:") || name.hasPrefix("object:children-changed:")
            || ["object:property-change:accessible-name", "object:property-change:accessible-description"].contains(name)
    }

    /// True when some pattern covers the event named `name` ("object:state-changed:focused").
    package func wants(_ name: String) -> Bool {
        let event = Self.parts(of: name)
        return registrations.contains { registration in
            registration.parts.count <= event.count && zip(registration.parts, event).allSatisfy { $0 == $1 }
        }
    }

    /// "Object:StateChanged:focused" → ["object", "state-changed", "focused"]; empty trailing parts dropped.
    static func parts(of pattern: String) -> [String] {
        var parts: [String] = pattern.split(separator: ":", omittingEmptySubsequences: false).map { part in
            AccessibleEvent.hyphenated(String(part))
        }
        // An empty part ends the pattern ("Object::" is every object event), as atk-bridge reads it.
        if let empty = parts.firstIndex(of: "") { parts.removeSubrange(empty...) }
        return parts
    }
}
