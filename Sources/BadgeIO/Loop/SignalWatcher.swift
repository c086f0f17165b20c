import CGlibcExtras
import Glibc

/// Signals as events of the loop: the signals are blocked (so their default action, usually to
/// kill the process, never runs) and read from a signalfd, the source "signals" of an
/// ``EventLoop``. A signal that arrives before the loop runs, even during start-up, waits in the
/// descriptor and is handled on the loop's first turn.
///
/// Block early: create the watcher before any other thread exists (threads inherit the mask).
/// Not Sendable: owned by the event-loop thread. Closes its descriptor when released; the signals
/// stay blocked (a later default action could kill the process mid-exit).
public final class SignalWatcher {
    /// The signals watched.
    public let signals: [Int32]
    /// Called on the loop's thread with each signal received.
    public var onSignal: ((Int32) -> Void)?
    private let descriptor: Int32

    /// Blocks `signals` for this thread and watches them. Throws when the kernel refuses.
    public init(signals: [Int32]) throws(SystemError) {
        self.signals = signals
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else {
            throw SystemError("signal handling", reason: "cannot block the signals: \(String(cString: strerror(errno)))")
        }
        let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else {
            throw SystemError("signal handling", reason: "signalfd failed: \(String(cString: strerror(errno)))")
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// The loop source "signals": reads every pending signal and calls ``onSignal`` for each.
    public var source: EventLoop.Source {
        EventLoop.Source(name: "signals", descriptor: { [descriptor] in descriptor }, interest: { .readable },
                         handle: { [weak self] _ in self?.readPending() })
    }

    private func readPending() {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let count = withUnsafeMutableBytes(of: &info) { read(descriptor, $0.baseAddress, size) }
            guard count == size else { return }  // EAGAIN: none left (EINTR cannot happen: non-blocking)
            onSignal?(Int32(bitPattern: info.ssi_signo))
        }
    }
}
