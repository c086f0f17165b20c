@testable import BadgeSources
import Glibc

/// Runs a helper program to the end (python3 delivering mail, notmuch), polling its descriptors
/// with a deadline: the same non-blocking child as the sources use, driven in the test.
@discardableResult
func runToEnd(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 20) throws -> ChildOutcome {
    let run = ChildRun(arguments: arguments, environment: environment.mapValues { Optional($0) },
                       timeLimit: timeout, outputLimit: 1 << 20)
    while run.outcome == nil {
        var entries = run.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let wait = Int32(max(0, min(1000, ((run.timeUntilDue ?? 1) * 1000).rounded(.up))))
        _ = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), wait) }
        for entry in entries where entry.revents != 0 { run.handle(readable: entry.fd) }
        if let due = run.timeUntilDue, due <= 0 { run.handleDeadline() }
    }
    guard let outcome = run.outcome else { throw TestFailure("unreachable") }
    guard outcome.succeeded else {
        throw TestFailure("\(arguments.prefix(3).joined(separator: " ")) failed (status \(outcome.exitStatus.map(String.init) ?? "none"), signal \(outcome.signal.map(String.init) ?? "none"), \(outcome.spawnFailure ?? "started")): \(String(decoding: outcome.errorOutput, as: UTF8.self))")
    }
    return outcome
}

/// Runs a Python 3 script (Debian's python3, for the `mailbox` module and a fast start).
func python(_ script: String, _ arguments: String..., environment: [String: String] = [:]) throws {
    try python(script, arguments: arguments, environment: environment)
}

/// Runs a Python 3 script with `arguments` as sys.argv[1:].
func python(_ script: String, arguments: [String], environment: [String: String] = [:]) throws {
    let interpreter = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"
    try runToEnd([interpreter, "-c", script] + arguments, environment: environment)
}

/// Python snippets for Maildir work, each taking its paths as arguments.
enum MaildirScript {
    /// argv[1]: the folder (created with cur/, new/, tmp/ if missing); argv[2]: how many messages to
    /// deliver with `mailbox.Maildir.add` (written to tmp/, then renamed into new/).
    static let deliver = """
    import mailbox, os, sys, uuid
    os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
    box = mailbox.Maildir(sys.argv[1], create=True)
    for i in range(int(sys.argv[2])):
        box.add("From: a@example.org\\nTo: b@example.org\\nSubject: test %d\\nMessage-ID: <%s@example.org>\\n\\nbody\\n" % (i, uuid.uuid4().hex))
    """

    /// argv[1]: the folder; argv[2]: how many empty files to create directly in new/; argv[3], argv[4]:
    /// how many in cur/ seen (`:2,S`) and unseen (`:2,`). Fast: no message bodies.
    static let bulk = """
    import os, sys
    folder, fresh, seen, unseen = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    for sub in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    for i in range(fresh):
        open(os.path.join(folder, "new", "1700000000.M%dP1.host" % i), "w").close()
    for i in range(seen):
        open(os.path.join(folder, "cur", "1700000001.M%dP1.host:2,S" % i), "w").close()
    for i in range(unseen):
        open(os.path.join(folder, "cur", "1700000002.M%dP1.host:2," % i), "w").close()
    """

    /// argv[1:]: pairs of paths, each renamed to the next (`os.rename`).
    static let rename = """
    import os, sys
    args = sys.argv[1:]
    for source, target in zip(args[0::2], args[1::2]):
        os.rename(source, target)
    """

    /// argv[1:]: files or folders to remove.
    static let remove = """
    import os, shutil, sys
    for path in sys.argv[1:]:
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    """
}

/// The names in `folder` (not . and ..), sorted.
func names(in folder: String) -> [String] {
    (try? FilePaths.fileNames(in: folder).get())?.sorted() ?? []
}
