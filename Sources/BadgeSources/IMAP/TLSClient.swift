import COpenSSL

/// Why TLS could not be had, in words naming the host and the reason.
package struct TLSFailure: Error, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// OpenSSL 3's client side, loaded with dlopen on first use (a toolbar without an IMAP source
/// never maps it), with the trust store read once per source: the system's, or a `caFile`.
/// Peers are verified (chain and host name), TLS 1.2 is the least taken. Not Sendable: the loop's
/// thread owns it and the sessions made from it.
package final class TLSContext {
    fileprivate let library: BadgeOpenSSL
    fileprivate let context: OpaquePointer
    /// The `caFile` trusted instead of the system's store, as the user wrote it; nil for the system's.
    fileprivate let caFile: String?

    /// Loads OpenSSL and reads the trust store.
    /// - Throws: ``TLSFailure`` when libssl.so.3 is missing or the CA file cannot be read.
    package init(caFile: String?) throws(TLSFailure) {
        self.caFile = caFile
        var loaded = BadgeOpenSSL()
        guard badge_openssl_load(&loaded) != 0 else {
            throw TLSFailure("cannot load OpenSSL (libssl.so.3) for TLS; install the Debian package libssl3")
        }
        guard let method = loaded.client_method(), let made = loaded.context_new(method) else {
            throw TLSFailure("OpenSSL could not make a TLS client context (\(Self.lastError(loaded)))")
        }
        library = loaded
        context = made
        guard badge_tls_require_tls12(&loaded, made) == 1 else {
            throw TLSFailure("OpenSSL refused to require TLS 1.2 or later (\(Self.lastError(loaded)))")
        }
        _ = badge_tls_set_modes(&loaded, made)
        loaded.context_set_verify(made, badge_tls_verify_peer(), nil)
        if let caFile {
            guard loaded.context_load_verify_locations(made, caFile, nil) == 1 else {
                throw TLSFailure("cannot read the certificate authorities in \(caFile) (\(Self.lastError(loaded)))")
            }
        } else if loaded.context_set_default_verify_paths(made) != 1 {
            throw TLSFailure("cannot read the system's certificate authorities (\(Self.lastError(loaded)))")
        }
    }

    deinit { library.context_free(context) }

    /// OpenSSL's last queued error as text, and the queue cleared.
    fileprivate static func lastError(_ library: BadgeOpenSSL) -> String {
        let code = library.error_get()
        library.error_clear()
        guard code != 0 else { return "no reason given" }
        var text = [CChar](repeating: 0, count: 256)
        library.error_string(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One TLS session on memory buffers: the owner moves the bytes between it and the socket
/// (``receive(_:)`` with what came in, ``pendingOutput()`` for what to send), so no OpenSSL call
/// ever touches a descriptor, blocks or raises SIGPIPE.
package final class TLSSession {
    private let context: TLSContext
    private let session: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private let host: String
    /// True once the handshake is done.
    package private(set) var isEstablished = false

    /// A client session for `host` (sent as SNI, checked against the certificate).
    package init(context: TLSContext, host: String) throws(TLSFailure) {
        let library = context.library
        guard let made = library.new_session(context.context) else {
            throw TLSFailure("OpenSSL could not start a TLS session (\(TLSContext.lastError(library)))")
        }
        guard let method = library.bio_memory(), let input = library.bio_new(method), let output = library.bio_new(method) else {
            library.free_session(made)
            throw TLSFailure("OpenSSL could not make its buffers")
        }
        library.set_bio(made, input, output)  // the session owns both now
        self.context = context
        self.session = made
        self.incoming = input
        self.outgoing = output
        self.host = host
        var table = library
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard library.set1_host(made, bare) == 1 else {
            throw TLSFailure("OpenSSL cannot check the name \(host) (\(TLSContext.lastError(library)))")
        }
        // SNI is for names, never addresses (RFC 6066 §3).
        if bare.contains(where: \.isLetter) && !bare.contains(":") { _ = badge_tls_set_server_name(&table, made, bare) }
    }

    deinit { context.library.free_session(session) }

    /// Hands OpenSSL the bytes that came from the server.
    package func receive(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { context.library.bio_write(incoming, $0.baseAddress, Int32($0.count)) }
    }

    /// What OpenSSL has to send to the server now (handshake records, encrypted data).
    package func pendingOutput() -> [UInt8] {
        let count = context.library.bio_pending(outgoing)
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let got = out.withUnsafeMutableBytes { context.library.bio_read(outgoing, $0.baseAddress, Int32($0.count)) }
        return got > 0 ? Array(out.prefix(Int(got))) : []
    }

    /// Moves the handshake on: true once done, false while it needs more from the server.
    /// - Throws: ``TLSFailure`` naming the host and why (an untrusted or misnamed certificate, a
    ///   protocol version below 1.2).
    package func handshake() throws(TLSFailure) -> Bool {
        if isEstablished { return true }
        let library = context.library
        let result = library.connect(session)
        if result == 1 {
            isEstablished = true
            return true
        }
        let error = library.get_error(session, result)
        if error == badge_tls_want_read() || error == badge_tls_want_write() { return false }
        let verified = library.get_verify_result(session)
        if verified != badge_tls_verify_ok() {
            let why = library.verify_error_string(verified).map { String(cString: $0) } ?? "code \(verified)"
            library.error_clear()
            throw TLSFailure("the certificate of \(host) is not trusted: \(why)" + Self.trustAdvice(verified, caFile: context.caFile))
        }
        throw TLSFailure("the TLS handshake with \(host) failed: \(TLSContext.lastError(library))")
    }

    /// Where the trust came from and what to change, for a certificate that failed: the `caFile`
    /// it was checked against, or the system's store and the key that names a private CA. Nothing
    /// for a name or address that does not match (X509_V_ERR_HOSTNAME_MISMATCH 62, EMAIL 63, IP_ADDRESS 64:
    /// another CA does not help).
    static func trustAdvice(_ code: Int, caFile: String?) -> String {
        guard !(62...64).contains(code) else { return "" }
        if let caFile { return " (checked against the authorities in \"caFile\" \(caFile))" }
        return " (checked against the system's authorities; a private CA's certificate goes in \"caFile\")"
    }

    /// The protocol agreed ("TLSv1.3").
    package var version: String {
        context.library.get_version(session).map { String(cString: $0) } ?? "TLS"
    }

    /// Decrypts what has come in: the plain bytes, and whether the server closed TLS.
    /// - Throws: ``TLSFailure`` when the stream is broken.
    package func read() throws(TLSFailure) -> (bytes: [UInt8], closed: Bool) {
        let library = context.library
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let got = chunk.withUnsafeMutableBytes { library.read(session, $0.baseAddress, Int32($0.count)) }
            if got > 0 { out += chunk.prefix(Int(got)); continue }
            let error = library.get_error(session, got)
            if error == badge_tls_want_read() || error == badge_tls_want_write() { return (out, false) }
            if error == badge_tls_zero_return() { return (out, true) }
            throw TLSFailure("the TLS stream from \(host) broke: \(TLSContext.lastError(library))")
        }
    }

    /// Encrypts `bytes` (all of them: the buffers grow) for ``pendingOutput()``.
    /// - Throws: ``TLSFailure`` when OpenSSL refuses.
    package func write(_ bytes: [UInt8]) throws(TLSFailure) {
        var failure: TLSFailure?
        bytes.withUnsafeBytes { buffer in
            do throws(TLSFailure) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Encrypts the bytes at `bytes` (all of them) for ``pendingOutput()``, read in place: a
    /// secret's plaintext goes from its own memory into the cipher and nowhere else.
    /// - Throws: ``TLSFailure`` when OpenSSL refuses.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(TLSFailure) {
        var offset = 0
        let library = context.library
        while offset < bytes.count {
            let sent = library.write(session, bytes.baseAddress.map { $0 + offset }, Int32(clamping: bytes.count - offset))
            guard sent > 0 else { throw TLSFailure("cannot write to the TLS stream to \(host): \(TLSContext.lastError(library))") }
            offset += Int(sent)
        }
    }
}
