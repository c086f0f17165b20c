import BadgeCore
import BadgeIO
import CNetClient
import Glibc

/// One connection to an IMAP server, without blocking: the host name resolved on a thread of its
/// own, each address tried with a non-blocking connect, TLS (implicit, or after STARTTLS) on
/// memory buffers, and the server's bytes cut into responses. The owner polls ``descriptor``
/// (for writing too while ``wantsWrite``), and keeps the deadlines. Not Sendable: the loop's thread.
package final class IMAPConnection {
    /// What happened on the connection.
    package enum Event: Equatable {
        /// TCP is up (and TLS, for implicit TLS): the greeting comes next.
        case opened(address: String, tls: String?)
        /// Responses arrived.
        case responses([IMAPResponse])
        /// The STARTTLS handshake is done.
        case tlsEstablished(String)
        /// The connection is over (closed by the server, refused, unreachable, broken).
        case failed(Sentence)
    }

    private enum Stage {
        case resolving
        case connecting
        case handshaking
        case open
        case closed
    }

    private let account: IMAPAccount
    private let tlsContext: TLSContext?
    private var stage = Stage.resolving
    private var resolveFD: Int32 = -1
    private var answer: [UInt8] = []
    private var addresses: [[UInt8]] = []
    private var socketFD: Int32 = -1
    private var addressText = ""
    private var tls: TLSSession?
    private var output: [UInt8] = []
    private var framer = IMAPResponseFramer()
    private var lastConnectError = ""
    private var startError: Sentence?

    /// Starts resolving `account.host`; `tlsContext` is needed for implicit TLS and STARTTLS.
    package init(account: IMAPAccount, tlsContext: TLSContext?) {
        self.account = account
        self.tlsContext = tlsContext
        let host = account.host.hasPrefix("[") && account.host.hasSuffix("]") ? String(account.host.dropFirst().dropLast()) : account.host
        resolveFD = badge_resolve_start(host, String(account.port))
        if resolveFD < 0 {
            stage = .closed
            startError = Sentence("cannot start looking up %1$s: %2$s", .text(account.host), .text(String(cString: strerror(-resolveFD))))
        }
    }

    deinit { close() }

    /// Why it failed before it began (set when ``descriptor`` is -1 right after init).
    package var startFailure: Sentence? { stage == .closed ? startError : nil }

    /// The descriptor to poll now (-1 when closed).
    package var descriptor: Int32 { stage == .resolving ? resolveFD : socketFD }

    /// True while a connect is under way or bytes wait to be written.
    package var wantsWrite: Bool { stage == .connecting || (!output.isEmpty && stage != .closed) }

    /// True once responses can come (TCP up, and TLS for implicit TLS).
    package var isOpen: Bool { stage == .open }

    /// Where it is in words, for a timeout's message.
    package var stageWords: String {
        switch stage {
        case .resolving: "looking up \(account.host)"
        case .connecting: "connecting to \(account.host) (\(addressText))"
        case .handshaking: "the TLS handshake with \(account.host)"
        case .open: "waiting for \(account.host)"
        case .closed: "closed"
        }
    }

    /// Reads what is ready.
    package func handleReadable() -> [Event] {
        switch stage {
        case .resolving: return readAnswer()
        case .connecting: return handleWritable()
        case .handshaking, .open: return receive()
        case .closed: return []
        }
    }

    /// Finishes a connect, or writes what waits.
    package func handleWritable() -> [Event] {
        switch stage {
        case .connecting:
            let error = badge_net_connect_error(socketFD)
            if error != 0 {
                lastConnectError = "\(addressText): \(String(cString: strerror(error)))"
                Glibc.close(socketFD)
                socketFD = -1
                return connectNext()
            }
            if account.security == .implicitTLS { return beginTLS(opening: true) }
            stage = .open
            return [.opened(address: addressText, tls: nil)]
        case .handshaking, .open:
            return flush()
        case .resolving, .closed:
            return []
        }
    }

    /// Queues `bytes` for the server (through TLS when it runs) and writes what the socket takes.
    package func send(_ bytes: [UInt8]) -> [Event] {
        guard stage == .open else { return [] }
        if let tls {
            do throws(TLSFailure) { try tls.write(bytes) } catch { return fail(Sentence(verbatim: error.description)) }
            output += tls.pendingOutput()
        } else {
            output += bytes
        }
        return flush()
    }

    /// Like ``send(_:)`` for a line that carries a secret: under TLS it goes from the secret's own
    /// memory into the cipher; in cleartext (loopback only) straight to the socket when nothing is
    /// queued before it, and only what the socket does not take at once is queued in an ordinary
    /// buffer (a login line is far shorter than a socket's buffer).
    package func send(secret: SecretBytes) -> [Event] {
        guard stage == .open else { return [] }
        if let tls {
            var failure: TLSFailure?
            secret.withUnsafeBytes { bytes in
                do throws(TLSFailure) { try tls.write(bytes) } catch { failure = error }
            }
            if let failure { return fail(Sentence(verbatim: failure.description)) }
            output += tls.pendingOutput()
            return flush()
        }
        var written = 0
        if output.isEmpty, socketFD >= 0 {
            let sent = secret.withUnsafeBytes { badge_net_send(socketFD, $0.baseAddress, $0.count) }
            if sent > 0 { written = sent } else if sent != -Int(EAGAIN) {
                return fail(Sentence("cannot write to %1$s: %2$s", .text(account.host), .text(String(cString: strerror(Int32(-sent))))))
            }
        }
        secret.withUnsafeBytes { output += $0[written...] }
        return flush()
    }

    /// Begins TLS on the open connection (after the server's OK to STARTTLS).
    package func startTLS() -> [Event] { beginTLS(opening: false) }

    /// Closes the socket (no LOGOUT: a dead peer is never waited for), and abandons a lookup.
    package func close() {
        if resolveFD >= 0 { Glibc.close(resolveFD); resolveFD = -1 }
        if socketFD >= 0 { Glibc.close(socketFD); socketFD = -1 }
        tls = nil
        output = []
        stage = .closed
    }

    // MARK: - Stages

    private func readAnswer() -> [Event] {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = chunk.withUnsafeMutableBytes { badge_net_receive(resolveFD, $0.baseAddress, $0.count) }
            if got > 0 { answer += chunk.prefix(got); if answer.count > 64 * 1024 { break }; continue }
            if got == -Int(EAGAIN) { return [] }
            break
        }
        Glibc.close(resolveFD)
        resolveFD = -1
        guard answer.count >= 8 else { return fail(Sentence("looking up %s gave no answer", .text(account.host))) }
        let status = int32(at: 0), count = int32(at: 4)
        guard status == 0 else { return fail(Sentence("cannot find %1$s: %2$s", .text(account.host), .text(String(cString: badge_resolve_error(status))))) }
        var offset = 8
        for _ in 0..<max(0, count) {
            guard offset + 4 <= answer.count else { break }
            let length = Int(int32(at: offset))
            guard length > 0, offset + 4 + length <= answer.count else { break }
            addresses.append(Array(answer[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        answer = []
        guard !addresses.isEmpty else { return fail(Sentence("%s has no address", .text(account.host))) }
        return connectNext()
    }

    private func int32(at offset: Int) -> Int32 {
        var value: Int32 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: answer[offset..<(offset + 4)]) }
        return value
    }

    private func connectNext() -> [Event] {
        while !addresses.isEmpty {
            let address = addresses.removeFirst()
            var text = [CChar](repeating: 0, count: 80)
            address.withUnsafeBytes { badge_net_address_text($0.baseAddress, UInt32($0.count), &text, text.count) }
            addressText = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let made = address.withUnsafeBytes { badge_net_connect($0.baseAddress, UInt32($0.count), 30_000) }
            if made >= 0 {
                socketFD = made
                stage = .connecting
                return []
            }
            lastConnectError = "\(addressText): \(String(cString: strerror(-made)))"
        }
        return fail(Sentence("cannot connect to %1$s (%2$s)", .text(account.host), .text(lastConnectError)))
    }

    private func beginTLS(opening: Bool) -> [Event] {
        guard let tlsContext else { return fail(Sentence("TLS is not set up for %s", .text(account.host))) }
        do throws(TLSFailure) {
            let session = try TLSSession(context: tlsContext, host: account.host)
            tls = session
            stage = .handshaking
            _ = try session.handshake()
            output += session.pendingOutput()
        } catch {
            return fail(Sentence(verbatim: error.description))
        }
        self.opening = opening
        return flush()
    }
    private var opening = true

    private func receive() -> [Event] {
        var incoming: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var ended = false
        var failure: String?
        while incoming.count < 1024 * 1024 {
            let got = chunk.withUnsafeMutableBytes { badge_net_receive(socketFD, $0.baseAddress, $0.count) }
            if got > 0 { incoming += chunk.prefix(got); continue }
            if got == 0 { ended = true } else if got != -Int(EAGAIN) { failure = String(cString: strerror(Int32(-got))) }
            break
        }
        var events: [Event] = []
        var plain = incoming
        if let tls {
            tls.receive(incoming)
            plain = []
            if stage == .handshaking {
                do throws(TLSFailure) {
                    if try tls.handshake() {
                        stage = .open
                        events.append(opening ? .opened(address: addressText, tls: tls.version) : .tlsEstablished(tls.version))
                    }
                } catch {
                    return fail(Sentence(verbatim: error.description))
                }
                output += tls.pendingOutput()
            }
            if stage == .open {
                do throws(TLSFailure) {
                    let (bytes, closed) = try tls.read()
                    plain = bytes
                    if closed { ended = true }
                } catch {
                    return events + fail(Sentence(verbatim: error.description))
                }
                output += tls.pendingOutput()
            }
        }
        if !plain.isEmpty {
            do throws(IMAPProtocolError) {
                var responses: [IMAPResponse] = []
                for bytes in try framer.append(plain) { responses.append(try IMAPResponse.parse(bytes)) }
                if !responses.isEmpty { events.append(.responses(responses)) }
            } catch {
                return events + fail(Sentence("%1$s sent %2$s", .text(account.host), .text(error.description)))
            }
        }
        if let failure { return events + fail(Sentence("the connection to %1$s failed: %2$s", .text(account.host), .text(failure))) }
        if ended { return events + fail(Sentence("%s closed the connection", .text(account.host))) }
        return events + flush()
    }

    private func flush() -> [Event] {
        while !output.isEmpty, socketFD >= 0 {
            let sent = output.withUnsafeBytes { badge_net_send(socketFD, $0.baseAddress, $0.count) }
            if sent > 0 { output.removeFirst(sent); continue }
            if sent == -Int(EAGAIN) { return [] }
            return fail(Sentence("cannot write to %1$s: %2$s", .text(account.host), .text(String(cString: strerror(Int32(-sent))))))
        }
        return []
    }

    private func fail(_ reason: Sentence) -> [Event] {
        close()
        return [.failed(reason)]
    }
}
