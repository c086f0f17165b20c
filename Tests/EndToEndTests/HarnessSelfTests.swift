import BadgeCore
import Glibc
import Testing
import XvfbHarness
import BadgeControl

/// Tests of the harness itself, against /bin/sh and a plain X client of our own (no app needed).
@Suite("Harness self-tests", .endToEnd(minutes: 1))
struct HarnessSelfTests {
    @Test("ChildProcess: exit codes, signals, stdin/stdout, stderr, environment")
    func childProcessBasics() throws {
        let sh = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 7"])
        #expect(try sh.readLine(timeout: 5) == "out")
        #expect(sh.waitForExit(timeout: 5) == .exited(7))
        #expect(sh.stderrText == "err\n")
        #expect(try sh.readLine(timeout: 1) == nil)

        let cat = try ChildProcess(executable: "cat")
        try cat.writeLine("{\"event\":\"a\",\"n\":1}")
        try cat.writeLine("not json")
        try cat.writeLine("{\"event\":\"b\",\"s\":\"x\\\"y\\u00e9\"}")
        let b = try cat.readEvent(named: "b", timeout: 5)
        #expect(b["s"]?.string == "x\"yé")
        #expect(cat.pendingEvents.count == 1)
        #expect(try cat.readEvent(named: "a", timeout: 1)["n"]?.int == 1)
        #expect(cat.otherLines == ["not json"])
        cat.closeStdin()
        #expect(try cat.readLine(timeout: 5) == nil)
        #expect(cat.waitForExit(timeout: 5) == .exited(0))

        let sleeper = try ChildProcess(executable: "sleep", arguments: ["30"], stdin: .null)
        #expect(sleeper.waitForExit(timeout: 0.05) == nil)
        sleeper.terminate()
        #expect(sleeper.waitForExit(timeout: 5) == .signaled(SIGTERM))

        let env = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo \"${HARNESS_X-unset}/${HOME-unset}\""],
                                   environment: .inherited(adding: ["HARNESS_X": "1"], removing: ["HOME"]))
        #expect(try env.readLine(timeout: 5) == "1/unset")
        let exact = try ChildProcess(executable: "/usr/bin/env", environment: .exactly(["A": "b"]))
        #expect(try exact.readLine(timeout: 5) == "A=b")
        #expect(try exact.readLine(timeout: 5) == nil)
    }

    @Test("ChildProcess: children start with an empty signal mask and default dispositions")
    func childSignalState() throws {
        // Block SIGTERM in this thread, as test runners may; the child must not inherit it.
        var set = sigset_t(), old = sigset_t()
        sigemptyset(&set); sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        let sh = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"])
        let blocked = try sh.readLine(timeout: 5)
        #expect(blocked == "SigBlk:\t0000000000000000")
        #expect(sh.waitForExit(timeout: 5) == .exited(0))

        // No descriptors beyond 0, 1, 2 leak into a child. Look only once cat has echoed a line: by
        // then the dynamic loader, which briefly opens libraries as descriptor 3, is done.
        let echo = try ChildProcess(executable: "cat", arguments: [], stdin: .pipe)
        try echo.writeLine("loaded")
        #expect(try echo.readLine(timeout: 5) == "loaded")
        var leaked: [String] = []
        if let dir = opendir("/proc/\(echo.pid)/fd") {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if !["0", "1", "2", ".", ".."].contains(name) { leaked.append(name) }
            }
            closedir(dir)
        }
        #expect(leaked.isEmpty, "descriptors leaked into the child: \(leaked)")
    }

    @Test("ChildProcess: idle is asleep in poll() with no deadline near; a 20 ms timer or a read() is not that")
    func idleReadings() throws {
        func python(_ code: String) throws -> ChildProcess {
            let child = try ChildProcess(executable: "/usr/bin/python3", arguments: ["-c", code], stdin: .null)
            #expect(try child.readLine(timeout: 10) == "ready")
            return child
        }
        let forever = try python("import select; print('ready', flush=True); select.poll().poll()")
        let far = try python("import select; print('ready', flush=True); select.poll().poll(600000)")
        let ticking = try python("import select\nprint('ready', flush=True)\nwhile True: select.poll().poll(20)")
        let reading = try python("import sys, time; print('ready', flush=True); time.sleep(600)")
        #expect(try forever.waitUntilIdle(timeout: 5, quiet: 3))
        #expect(try far.waitUntilIdle(timeout: 5, quiet: 3))
        #expect(try !far.waitUntilIdle(timeout: 0.2, quiet: 3600), "a poll 600 s long is not quiet for an hour")
        #expect(try !ticking.waitUntilIdle(timeout: 0.5, quiet: 3), "a loop with a 20 ms timer is not idle")
        #expect(try ticking.waitUntilSleeping(timeout: 5), "though it sleeps between its turns")
        #expect(try !reading.waitUntilIdle(timeout: 0.2, quiet: 3), "a sleep is not a wait for descriptors")
    }

    @Test("ChildProcess: CPU ticks, sleep state, context switches and resident memory from /proc")
    func procReadings() throws {
        let busy = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "while :; do :; done"], stdin: .null)
        // cat echoing a line is past start-up and then blocks reading its input.
        let idle = try ChildProcess(executable: "cat", arguments: [], stdin: .pipe)
        try idle.writeLine("started")
        #expect(try idle.readLine(timeout: 5) == "started")
        #expect(try idle.waitUntilSleeping(timeout: 5))
        let busy0 = try busy.cpuTicks(), idle0 = try idle.cpuTicks(), switches0 = try idle.contextSwitches()
        measureInterval(seconds: 0.3)
        #expect(try busy.cpuTicks() > busy0)
        #expect(try idle.cpuTicks() == idle0)
        #expect(try idle.isSleeping())
        #expect(try !busy.isSleeping())
        #expect(try !busy.waitUntilSleeping(timeout: 0.05))
        #expect(try idle.contextSwitches() == switches0, "a process blocked in read() woke up")
        try idle.writeLine("again")
        #expect(try idle.readLine(timeout: 5) == "again")
        #expect(try idle.contextSwitches() > switches0, "waking cat for a line was not counted")
        let resident = try idle.residentKilobytes(), own = try idle.executableResidentKilobytes()
        #expect(resident > 0)
        #expect(own > 0 && own < resident, "cat's own pages \(own) kB of \(resident) kB resident")
    }

    @Test("Xvfb + XTEST: click a window of our own, capture it, read properties, send WM_DELETE_WINDOW",
          arguments: [24, 16])
    func plainWindow(depth: Int) throws {
        let server = try XvfbServer.start(depth: depth)
        let x = try XTestClient(display: server.display)
        #expect(x.screenWidth == 640 && x.screenHeight == 480 && x.rootDepth == depth)
        let colour = RGB(hex: 0xE53935)
        let win = try TestWindow(display: server.display, x: 20, y: 30, width: 120, height: 60, background: colour, title: "hello")

        #expect(try x.rootPosition(ofWindow: win.window) == (20, 30))
        try x.click(button: 3, atRoot: (25, 40))
        #expect(try win.waitForEvent(timeout: 5) { if case .buttonPress = $0 { return true }; return false }
                == .buttonPress(button: 3, x: 5, y: 10))
        #expect(try win.waitForEvent(timeout: 5) { if case .buttonRelease = $0 { return true }; return false }
                == .buttonRelease(button: 3, x: 5, y: 10))
        try x.key(keycode: 38)
        // A bare Xvfb has focus PointerRoot: the key goes to the window under the pointer.
        #expect(try win.waitForEvent(timeout: 5) { if case .keyPress = $0 { return true }; return false } == .keyPress(keycode: 38))

        let image = try x.capture(window: win.window)
        #expect(image.width == 120 && image.height == 60)
        let tolerance = depth == 16 ? 8 : 0
        let matching = image.count(near: colour, tolerance: tolerance)
        if matching != image.width * image.height { image.saveArtifact(named: "selftest-depth\(depth)") }
        #expect(matching == image.width * image.height, "first pixel \(image.pixel(x: 0, y: 0)) expected \(colour)")
        let part = try x.capture(window: win.window, rect: PixelRect(x: 10, y: 10, width: 5, height: 7))
        #expect(part.width == 5 && part.height == 7 && part.origin == (10, 10))
        #expect(part.differingPixels(from: image, tolerance: 0) == 0)

        let name = try x.property(window: win.window, name: "WM_NAME")
        #expect(name?.string == "hello" && name?.typeName == "STRING" && name?.format == 8)
        #expect(try x.property(window: win.window, name: "_NET_WM_NAME") == nil)

        try x.sendDeleteWindow(window: win.window)
        let protocols = try x.atom("WM_PROTOCOLS"), delete = try x.atom("WM_DELETE_WINDOW")
        #expect(try win.waitForEvent(timeout: 5) { if case .clientMessage = $0 { return true }; return false }
                == .clientMessage(type: protocols, format: 32, data0: delete))
    }

    @Test("XvfbServer.kill: clients see the connection break")
    func serverKill() throws {
        let server = try XvfbServer.start()
        let win = try TestWindow(display: server.display)
        server.kill()
        #expect(!server.isRunning)
        #expect(throws: HarnessError.self) { _ = try win.waitForEvent(timeout: 5) { _ in false } }
    }

    @Test("Separate servers get separate displays")
    func separateServers() throws {
        let a = try XvfbServer.start(), b = try XvfbServer.start()
        #expect(a.display != b.display)
        #expect(throws: HarnessError.self) { _ = try XTestClient(display: ":7777x") }
    }

    @Test("JSON values")
    func json() throws {
        let v = try JSONValue(parsing: #"{"a":[1,2.5,true,null],"b":{"c":"d"},"e":-3}"#)
        #expect(v["a"]?[0]?.int == 1 && v["a"]?[1]?.double == 2.5 && v["a"]?[2]?.bool == true && v["a"]?[3]?.isNull == true)
        #expect(v["b"]?["c"]?.string == "d" && v["e"]?.int == -3)
        #expect(throws: JSONParseError.self) { _ = try JSONValue(parsing: "{\"a\":}") }
    }
}
