import BadgeCore
import BadgeDrawing
import CGlibcExtras
import Glibc

/// Drawing: damaged rectangles into the back buffer, copied to the window; then the window state
/// as a diff, the tooltip, the flush, and only then the answers to ``ToolbarHost/synchronize(_:)``.
extension ToolbarHost {
    /// Draws what changed since the last refresh (nothing when nothing did), copies it and any
    /// exposed area to the window, pushes the window state that changed, shows a due tooltip,
    /// flushes, and then runs the completions of ``synchronize(_:)``.
    ///
    /// Does nothing once detached. Throws ``X11Error/connectionLost(display:reason:)`` when the
    /// connection is broken; frames that cannot be drawn are reported once as a warning.
    public func refresh() throws(X11Error) {
        if connection.failure != nil { throw lost(nil) }
        for bus in buses { bus.handleDeadlines() }
        guard isAttached else {
            runSyncs()
            return
        }
        // The monitor's scale first: a new scale is laid out before this frame is drawn.
        monitorScaleFollower?.evaluateIfNeeded()
        retryPeekGrabIfDue()
        fireLongPressIfDue()
        let now = clock.now
        var presented = drawDamage(at: now)
        if let exposed, mapped, bufferPainted {
            surface.present(exposed)
            self.exposed = nil
            presented = true
        }
        // A window manager waiting for the frame of a new size gets it: the counter follows the upload.
        if let resizeSync, resizeSync.isPending, bufferPainted {
            resizeSync.frameDrawn()
            presented = true
        }
        // What the user sees first: the badge is on its way to the server before anything else.
        if presented { try flush() }
        // One frame after the first frame is on its way, the rest is set up: the server shows the
        // frame before it serves the keymap and the window icon.
        if mapped, bufferPainted, startupPhase == .firstFrame { startupPhase = .firstFrameSent(due: now + 1 / Self.frameRate) }
        if case .firstFrameSent(let due) = startupPhase, now >= due { completeStartup() }
        if startupPhase.isSetUp, let identity, let publisher {
            let changes = publisher.request(WindowState(toolbar: toolbar, identity: identity, urgent: isUrgent),
                                            immediately: windowStateIsDueNow)
            if !changes.isEmpty, let state = publisher.pushed { onEvent?(.windowStateChanged(state)) }
        }
        windowStateIsDueNow = false
        // Screen readers hear what changed (focus, descriptions, the title, the window's activation).
        updateAccessibility()
        tooltips?.follow(toolbar, host: surface.window, owner: tooltipOwner)
        tooltips?.fireIfDue(toolbar, host: surface.window, mapped: mapped, owner: tooltipOwner)
        try flush()
        if mapped && bufferPainted && startupPhase == .setUp {
            startupPhase = .ready
            if !presented {
                surface.present(surface.bounds)
                try? connection.flush()
            }
            // "ready" promises the first frame is on the server: wait until it has processed the copy.
            connection.roundTrip()
            onEvent?(.ready)
        }
        if !pendingSyncs.isEmpty {
            // A sync promises that the server has processed every copy before it: wait for it to.
            connection.roundTrip()
            runSyncs()
        }
    }

    private func flush() throws(X11Error) {
        do {
            try connection.flush()
        } catch {
            throw lost(error)
        }
    }

    private func runSyncs() {
        let syncs = pendingSyncs
        pendingSyncs.removeAll()
        for sync in syncs { sync() }
    }

    /// Renders the damaged part of the toolbar into the back buffer and copies it; true when copied.
    ///
    /// While something animates, frames are paced at ``frameRate``: input that arrives between two
    /// frames is drawn with the next one (a burst of 200 clicks a second costs 60 frames, not 200),
    /// unless a sync waits for it. Input after a quiet spell is drawn at once.
    private func drawDamage(at now: Double) -> Bool {
        if let last = lastFrameTime, now - last < 1 / Self.frameRate - 0.0005, pendingSyncs.isEmpty, bufferPainted {
            return false
        }
        let scale = toolbar.scale
        var damage = toolbar.takeDamage()
        if !bufferPainted { damage = toolbar.bounds }
        if let end = toolbar.animationEndTime, end > now {
            lastFrameTime = now
        } else {
            if lastFrameTime != nil {
                // Animations just ended and the loop is about to sleep: give the memory a burst of
                // frames used back to the system (glibc keeps freed heap pages otherwise).
                malloc_trim(0)
            }
            lastFrameTime = nil
        }
        guard let damage, !damage.isEmpty else { return false }
        // Round the damage out to whole device pixels once, and clip the drawing to exactly that.
        let pixels = damage.pixels(scale: scale, rounding: .outward).intersection(surface.bounds)
        guard !pixels.isEmpty else { return false }
        let clip = Rect(x: Double(pixels.x) / scale, y: Double(pixels.y) / scale,
                        width: Double(pixels.width) / scale, height: Double(pixels.height) / scale)
        let wholeBuffer = !bufferPainted
        surface.prepareToDraw()
        do {
            try surface.backBuffer.draw { context in
                renderer.draw(toolbar, at: now, in: context, clip: wholeBuffer ? nil : clip)
            }
            bufferPainted = true
        } catch {
            warn("\(error)", once: true)
        }
        guard mapped else { return false }
        surface.present(pixels)
        return true
    }
}
