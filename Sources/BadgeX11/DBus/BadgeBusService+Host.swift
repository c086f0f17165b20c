extension BadgeBusService {
    /// Offers `host`'s badges (its ``ToolbarHost/model``) as `objectPath` under the well-known
    /// name `busName` on the host's session bus, once the host has one (after its first frame).
    /// Throws when either is not a valid D-Bus name.
    public convenience init(host: ToolbarHost, busName: String, objectPath: String) throws(InvalidName) {
        try self.init(model: host.model, busName: busName, objectPath: objectPath)
        host.session.whenBusesStarted { [weak self] bus in self?.start(on: bus) }
    }
}
