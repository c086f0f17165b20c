import BadgeCore
import CXvfbHarness
import BadgeIO
import Glibc
import BadgeControl

/// What the kernel says of a child in /proc: CPU time, sleep, context switches, descriptors, memory.
extension ChildProcess {

    /// User + system CPU time of the child in clock ticks (utime + stime from /proc/PID/stat).
    public func cpuTicks() throws -> Int {
        let fields = try statFields()
        guard fields.count > 12, let utime = Int(fields[11]), let stime = Int(fields[12]) else {
            throw HarnessError("cannot parse utime/stime in /proc/\(pid)/stat: \(fields)")
        }
        return utime + stime
    }

    /// Nanoseconds the child has spent on a CPU (the first field of /proc/PID/schedstat): finer
    /// than clock ticks, for the CPU a burst of input costs.
    public func cpuNanoseconds() throws -> UInt64 {
        let text = String(decoding: try readSmallFile("/proc/\(pid)/schedstat"), as: UTF8.self)
        guard let first = text.split(separator: " ").first, let value = UInt64(first) else {
            throw HarnessError("cannot parse /proc/\(pid)/schedstat: \(text)")
        }
        return value
    }

    /// Whether the child is blocked in the kernel, e.g. in poll() (state S in /proc/PID/stat).
    public func isSleeping() throws -> Bool {
        try statFields().first == "S"
    }

    /// Waits, yielding the processor, until the child is blocked in the kernel: after it answered a
    /// request, its switch back into poll() or read() is not yet idleness. False after `timeout` s.
    @discardableResult
    public func waitUntilSleeping(timeout: Double) throws -> Bool {
        let deadline = Deadline(seconds: timeout)
        while try !isSleeping() {
            if deadline.hasPassed { return false }
            sched_yield()
        }
        return true
    }

    /// Waits, yielding the processor, until the child is blocked in poll(), ppoll() or epoll_wait()
    /// with no deadline within `quiet` seconds (read from /proc/PID/syscall): idle, not only
    /// between two animation frames or before a timer that is about to fire, as a sleeping state
    /// alone could be. False after `timeout` s, which is what a loop that spins or keeps a short
    /// timer gives. Where the kernel does not show the call (another user, no ptrace access), it
    /// is ``waitUntilSleeping(timeout:)``.
    @discardableResult
    public func waitUntilIdle(timeout: Double, quiet: Double) throws -> Bool {
        let deadline = Deadline(seconds: timeout)
        while true {
            switch blockingCall() {
            case .unknown: return try waitUntilSleeping(timeout: Double(deadline.remainingMilliseconds) / 1000)
            case .waiting(let milliseconds?) where Double(milliseconds) >= quiet * 1000: return true
            case .waiting(nil): return true
            case .waiting, .other: break
            }
            if deadline.hasPassed { return false }
            sched_yield()
        }
    }

    private enum BlockingCall { case unknown, other, waiting(milliseconds: Int?) }

    /// What the child is blocked in, from /proc/PID/syscall (x86_64 numbers): a wait for
    /// descriptors with its timeout (nil: none), another call, or nothing readable.
    private func blockingCall() -> BlockingCall {
        guard let data = try? readSmallFile("/proc/\(pid)/syscall") else { return .unknown }
        let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard let first = fields.first else { return .unknown }
        guard let number = Int(first) else { return .other }  // "running"
        func argument(_ index: Int) -> UInt64? {
            guard fields.count > index + 1 else { return nil }
            return UInt64(fields[index + 1].dropFirst(2), radix: 16)
        }
        func timeout(_ raw: UInt64?) -> BlockingCall {
            guard let raw else { return .unknown }
            let milliseconds = Int(Int32(truncatingIfNeeded: raw))
            return .waiting(milliseconds: milliseconds < 0 ? nil : milliseconds)
        }
        switch number {
        case 7: return timeout(argument(2))  // poll(fds, nfds, timeout)
        case 232, 281: return timeout(argument(3))  // epoll_wait / epoll_pwait(epfd, events, max, timeout)
        case 271: return argument(2) == 0 ? .waiting(milliseconds: nil) : .other  // ppoll with no timespec
        default: return .other
        }
    }

    /// The fields of /proc/PID/stat from field 3 (the state) on. The command name (field 2) may
    /// contain spaces, so they are the ones after its closing ')'.
    private func statFields() throws -> [Substring] {
        let text = String(decoding: try readSmallFile("/proc/\(pid)/stat"), as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { throw HarnessError("unexpected /proc/\(pid)/stat: \(text)") }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// Voluntary plus involuntary context switches of the child so far (/proc/PID/status); a
    /// process asleep in poll() adds one each time it wakes.
    public func contextSwitches() throws -> Int {
        let text = String(decoding: try readSmallFile("/proc/\(pid)/status"), as: UTF8.self)
        var total = 0, found = 0
        for line in text.split(separator: "\n")
        where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
            guard let count = line.split(separator: ":").last.flatMap({ Int($0.filter { $0.isNumber }) }) else { continue }
            total += count
            found += 1
        }
        guard found == 2 else { throw HarnessError("no context switch counts in /proc/\(pid)/status") }
        return total
    }

    /// The child's open file descriptors (the entries of /proc/PID/fd), sorted, each with its target
    /// ("0 -> pipe:[123]"), for leak checks and their messages.
    public func openDescriptors() throws -> [String] {
        let directory = "/proc/\(pid)/fd"
        guard let dir = opendir(directory) else { throw HarnessError.posix("opendir(\(directory))") }
        defer { closedir(dir) }
        var entries: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(of: entry)
            guard name != ".", name != ".." else { continue }
            var target = [CChar](repeating: 0, count: 4096)
            let n = readlink("\(directory)/\(name)", &target, target.count - 1)
            // Closed between the listing and the look (a file written and closed just then): not open.
            if n < 0, errno == ENOENT { continue }
            let link = n > 0 ? String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
            entries.append("\(name) -> \(link)")
        }
        return entries.sorted { (Int($0.prefix { $0 != " " }) ?? 0) < (Int($1.prefix { $0 != " " }) ?? 0) }
    }

    /// Resident kB of the mappings of the child's executable file itself (code, read-only and
    /// relocated data; /proc/PID/smaps): the part of its memory the link layout decides.
    public func executableResidentKilobytes() throws -> Int {
        var target = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(pid)/exe", &target, target.count - 1)
        guard length > 0 else { throw HarnessError.posix("readlink(/proc/\(pid)/exe)") }
        let executable = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let text = String(decoding: try readSmallFile("/proc/\(pid)/smaps"), as: UTF8.self)
        var inExecutable = false, total = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                // A mapping's header: "start-end perms offset dev inode [path]".
                inExecutable = fields.count >= 6 && fields[5] == executable
            } else if inExecutable, line.hasPrefix("Rss:"), fields.count >= 2 {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }

    /// Resident memory of the child in kB (VmRSS from /proc/PID/status).
    public func residentKilobytes() throws -> Int {
        let text = String(decoding: try readSmallFile("/proc/\(pid)/status"), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Int(parts[1]) { return kb }
        }
        throw HarnessError("no VmRSS in /proc/\(pid)/status")
    }
}
