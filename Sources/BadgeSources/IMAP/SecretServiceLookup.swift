import BadgeIO

/// Reads one password from the Secret Service (GNOME Keyring, KeePassXC) on the session bus, by
/// attributes, as `secret-tool lookup service imap user me` does, with BadgeIO's own D-Bus client
/// and without blocking: OpenSession("plain") → SearchItems → GetSecrets, on a connection of its
/// own that is closed as soon as the secret is read (a Secret Service session lives and dies with
/// its connection). A locked item is not unlocked here: a badge at login must not raise keyring
/// prompts by itself; the error says to unlock the keyring, and a refresh tries again.
///
/// "plain" is the transfer of the secret without its own encryption, over the user's own bus
/// (which only the user and root can reach), as libsecret itself falls back to. The connection
/// ``BusConnection/holdsSecrets``: every byte it reads is zeroed once handled, and the answer to
/// GetSecrets is read in place from the message's own bytes straight into ``SecretBytes``, never
/// decoded into values.
///
/// Not Sendable: the loop's thread.
package final class SecretServiceLookup {
    /// The secret, or why there is none; nil while it is being read.
    package private(set) var outcome: Result<SecretBytes, SecretServiceFailure>?
    private var connection: BusSourceConnection?
    private let attributes: [String: String]
    private let deadline: Double
    private let timeLimit: Double
    private var session: String?

    private static let service = "org.freedesktop.secrets"
    private static let path = "/org/freedesktop/secrets"
    private static let interface = "org.freedesktop.Secret.Service"

    /// Starts the lookup of the item with `attributes` on the bus at `address`; it ends within
    /// `timeLimit` seconds.
    package init(address: String?, attributes: [String: String], timeLimit: Double) {
        self.attributes = attributes
        self.timeLimit = timeLimit
        deadline = SystemTime.monotonic + timeLimit
        guard let address else {
            outcome = .failure(SecretServiceFailure("the Secret Service needs a session bus (DBUS_SESSION_BUS_ADDRESS is not set)"))
            return
        }
        do throws(SourceSetupError) {
            let made = try BusSourceConnection(address: address, label: "the session bus (Secret Service)")
            made.bus.holdsSecrets = true
            connection = made
            made.bus.whenReady { [weak self] _ in self?.openSession() }
            made.bus.whenLost { [weak self] reason in self?.finish(.failure(SecretServiceFailure("the session bus is away (\(reason))"))) }
        } catch {
            outcome = .failure(SecretServiceFailure(error.description))
        }
    }

    deinit { connection?.close() }

    /// The descriptors to poll.
    package var descriptors: [Int32] { connection?.descriptors ?? [] }

    /// Seconds until a turn is due (the bus's own deadlines, and the time limit).
    package var timeUntilDue: Double? {
        guard outcome == nil else { return nil }
        return [connection?.timeUntilDue, deadline - SystemTime.monotonic].compactMap { $0 }.min()
    }

    /// Reads what the bus sent.
    package func handle(readable descriptor: Int32) {
        connection?.handleReadable()
    }

    /// Ends the lookup past its time limit; lets the bus handle its deadlines.
    package func handleDeadline() {
        guard outcome == nil else { return }
        if SystemTime.monotonic >= deadline {
            return finish(.failure(SecretServiceFailure("the Secret Service did not answer within \(Int(timeLimit.rounded())) s")))
        }
        connection?.handleDeadline()
    }

    /// Stops the lookup.
    package func cancel() {
        if outcome == nil { finish(.failure(SecretServiceFailure("stopped"))) }
    }

    private var described: String {
        attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// The attributes as secret-tool takes them: "service imap user me".
    private var storeWords: String {
        attributes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " ")
    }

    private func openSession() {
        guard outcome == nil, let bus = connection?.bus else { return }
        bus.call(Self.service, path: Self.path, interface: Self.interface, member: "OpenSession",
                 arguments: [.string("plain"), .variant(.string(""))]) { [weak self] reply in
            guard let self else { return }
            guard let reply, reply.count == 2, case .objectPath(let session) = reply[1] else {
                return self.finish(.failure(SecretServiceFailure(
                    "no Secret Service answers on the session bus (org.freedesktop.secrets); start gnome-keyring-daemon or KeePassXC's Secret Service")))
            }
            self.session = session
            self.search()
        }
    }

    private func search() {
        guard outcome == nil, let bus = connection?.bus else { return }
        let query = DBusValue.array(element: "{ss}", attributes.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .string($0.value)) })
        bus.call(Self.service, path: Self.path, interface: Self.interface, member: "SearchItems", arguments: [query]) { [weak self] reply in
            guard let self else { return }
            guard let reply, reply.count == 2, case .array(_, let unlocked) = reply[0], case .array(_, let locked) = reply[1] else {
                return self.finish(.failure(SecretServiceFailure("the Secret Service refused to search for \(self.described)")))
            }
            let items = unlocked.compactMap { if case .objectPath(let path) = $0 { path } else { nil } }
            guard let item = items.first else {
                if !locked.isEmpty {
                    return self.finish(.failure(SecretServiceFailure(
                        "the keyring item \(self.described) is locked; unlock the keyring (log in, or open it in Seahorse or KeePassXC), then run badge-demo msg refresh")))
                }
                return self.finish(.failure(SecretServiceFailure(
                    "the Secret Service has no item \(self.described); store one with: secret-tool store --label=mail \(self.storeWords)")))
            }
            self.read(item)
        }
    }

    private func read(_ item: String) {
        guard outcome == nil, let bus = connection?.bus, let session else { return }
        bus.callForRawReply(Self.service, path: Self.path, interface: Self.interface, member: "GetSecrets",
                            arguments: [.array(element: "o", [.objectPath(item)]), .objectPath(session)]) { [weak self] reply in
            guard let self else { return }
            guard let reply, let secret = Self.secret(in: reply) else {
                return self.finish(.failure(SecretServiceFailure("the Secret Service did not hand over the secret of \(self.described)")))
            }
            if secret.withUnsafeBytes({ $0.last }) == 10 { secret.truncate(to: secret.count - 1) }
            guard secret.count > 0 else {
                return self.finish(.failure(SecretServiceFailure("the keyring item \(self.described) holds an empty secret")))
            }
            self.finish(.success(secret))
        }
    }

    /// The first secret of a GetSecrets answer, `a{o(oayays)}` (item → session, parameters, value,
    /// content type), copied from the message's bytes into secret memory and nowhere else.
    static func secret(in reply: DBusRawReply) -> SecretBytes? {
        guard reply.signature == "a{o(oayays)}" else { return nil }
        var cursor = reply.body
        guard let length = cursor.uint32(), length > 0, cursor.align(8),  // the array, its first entry
              cursor.skipString(), cursor.align(8),                      // the item's path; the struct
              cursor.skipString(),                                       // the session
              cursor.withBytes({ _ in () }) != nil else { return nil }   // the parameters
        return cursor.withBytes { value in
            let secret = SecretBytes(capacity: value.count)
            secret.append(value)
            return secret
        }
    }

    private func finish(_ result: Result<SecretBytes, SecretServiceFailure>) {
        guard outcome == nil else { return }
        outcome = result
        if let session, let bus = connection?.bus, bus.isReady {
            var close = DBusMessage.call(Self.service, path: session, interface: "org.freedesktop.Secret.Session", member: "Close")
            close.flags |= DBusMessage.noReplyExpectedFlag
            bus.send(close)
        }
        connection?.close()
        connection = nil
    }
}

/// Why the Secret Service gave no password, in words a user can act on (never the secret).
package struct SecretServiceFailure: Error, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
