import BadgeCore
import BadgeDrawing
import BadgeX11
import Glibc
import BadgeControl

/// Control commands, from standard input (`--control`) and from the control socket alike.
extension BadgeApplication {
    // MARK: Control commands

    /// Runs one control request; false once the app is quitting (the rest of the batch is left).
    func execute(_ request: ControlChannel.Request) -> Bool {
        guard let host, let control else { return false }
        switch request {
        case .debug(.badRequest):
            host.connection.sendRefusedRequest()
        case .command(let command):
            switch execute(command, host: host) {
            case .done: break
            case .failed(let reason): control.emitError(reason.localized)
            case .answer(let event): control.emit(event)
            case .synchronize(let token):
                host.synchronize { [weak control] in control?.emit(ControlEvents.sync(token)) }
            }
        }
        return exitStatus == nil
    }

    /// What a command did, for the channel that sent it to answer.
    enum Outcome {
        case done
        case failed(Sentence)
        case answer(JSONValue)
        case synchronize(String)
    }

    /// Runs one command, from standard input or the socket alike (cause "control").
    func execute(_ command: ControlCommand, host: ToolbarHost) -> Outcome {
        func target(_ id: String) -> ToolbarButton? { toolbar.button(id: id) }
        func unknown(_ id: String) -> Outcome {
            .failed(Sentence("unknown button \"%1$s\"; buttons are %2$s", .text(InputEcho.escaped(id, quote: true)),
                             .text(toolbar.buttons.map(\.id).joined(separator: ", "))))
        }
        /// One edit through the model's funnel, under the rules every front end shares (D-Bus too).
        func edit(_ id: String, _ edit: BadgeEdit, verb: String) -> Outcome {
            guard let button = target(id) else { return unknown(id) }
            return model.applying(edit, to: button, cause: .control, verb: verb).map { .failed($0) } ?? .done
        }
        switch command {
        case .set(let id, let count):
            return edit(id, .set(count), verb: "set")
        case .increment(let id, let step):
            return edit(id, .increment(step), verb: "inc")
        case .decrement(let id, let step):
            return edit(id, .decrement(step), verb: "dec")
        case .addItem(let id, var item):
            if item.time == nil { item.time = SystemTime.realtime }
            return edit(id, .addItem(item), verb: "add")
        case .removeItem(let id, let key):
            return edit(id, .removeItem(key), verb: "remove")
        case .items(let id):
            guard let button = target(id) else { return unknown(id) }
            return .answer(.object([("event", .string("items")), ("id", .string(id))]
                + button.badge.items.jsonFields(limit: BadgeItemList.maximumCount)))
        case .text(let id, let text):
            return edit(id, .text(text), verb: "text")
        case .dot(let id, let blink):
            return edit(id, .dot(blink: blink), verb: "dot")
        case .clear(let id):
            if let id, target(id) == nil { return unknown(id) }
            let buttons = id.flatMap { target($0).map { [$0] } } ?? toolbar.buttons
            for button in buttons { model.applying(.clear, to: button, cause: .control, verb: "clear") }
        case .click(let id, let pointer):
            guard let button = target(id) else { return unknown(id) }
            click(button, with: pointer, host: host)
        case .peek(let id, let anchor):
            if let id, target(id) == nil { return unknown(id) }
            openPeek(id: id, at: anchor, host: host)
        case .state:
            return .answer(state(of: host))
        case .refresh(let id):
            if let id, target(id) == nil { return unknown(id) }
            guard bindings?.refresh(id) == true else {
                return .failed(id.map { Sentence("%s has no source to read again", .text(InputEcho.escaped($0))) }
                               ?? Sentence("no button has a source"))
            }
        case .explain(let id):
            guard let button = target(id) else { return unknown(id) }
            var fields: [(String, JSONValue)] = [("event", .string("explain")), ("id", .string(id)),
                                                 ("description", .string(button.badge.accessibilityDescription)),
                                                 ("confidence", .string(button.badge.confidence.rawValue))]
            if let why = bindings?.explanation(of: id) {
                fields.append(("text", .string(locale.badgeStrings.join(button.badge.valueDescription, why.localized))))
                fields.append(("source", bindings?.state(of: id) ?? .null))
            } else {
                fields.append(("text", .string(locale.badgeStrings.join(button.badge.accessibilityDescription, originWords(of: id)))))
                if let from = origins.origin(of: id).saved { fields.append(("from", .string(from))) }
                fields.append(("source", .null))
            }
            return .answer(.object(fields + button.badge.items.jsonFields(limit: BadgeItemList.maximumCount)))
        case .act(let id, let key, .read):
            guard target(id) != nil else { return unknown(id) }
            guard let bindings else { return .failed(Sentence("%s has no source to mark anything read", .text(InputEcho.escaped(id)))) }
            if let refused = bindings.markRead(id, keys: key.map { [$0] }) { return .failed(refused) }
        case .sync(let token):
            return .synchronize(token)
        case .activate(let startupID):
            host.activate(startupID: startupID)
        case .quit:
            quit(.closed)
        }
        return .done
    }

    /// Where a button without a source got its value, in the user's language.
    func originWords(of id: String) -> String {
        switch origins.origin(of: id) {
        case .demo: return locale.translate("the demo's sample value (no source)", domain: Self.domain)
        case .config: return locale.translate("set in the config file (no source)", domain: Self.domain)
        case .hand, .source: return locale.translate("set by hand (no source)", domain: Self.domain)
        }
    }

    /// The `state` event now.
    func state(of host: ToolbarHost) -> JSONValue {
        ControlEvents.state(host, now: clock.now, theme: renderer.theme, sources: sources, monitor: monitorName, socket: socket.status,
                            dbus: busState, tray: trayState,
                            buttonSource: { [bindings] id in bindings?.state(of: id) ?? .null })
    }

    /// An event every listener gets: `--control`'s standard output and every socket subscriber
    /// (`msg --watch`, the bar streams). Its one caller is the board's ``EventStreamOutput``: every
    /// other part applies a change or a ``StreamEvent`` to the board.
    func publish(_ event: JSONValue) {
        control?.emit(event)
        socket.broadcast(event.serialized)
    }

    // MARK: Control socket

    /// Takes what the launch claimed (``SingleInstance``): the profile (and its bus name), its lock
    /// and the bound socket; or why there is no socket.
    func adopt(_ claim: SingleInstance.Claim) {
        socket.adopt(claim, allowsRoot: config.allowsRoot)
        if case .primary(let profile, _, _, _) = claim { busName = Self.busName(forProfile: profile.optionValue) }
    }

    /// Serves the control socket bound at start (from the first frame on).
    func startSocket() {
        socket.start(on: loop, allowsRoot: config.allowsRoot, paused: { [weak self] in self?.control?.isBackedUp == true },
                     onLine: { [weak self] line, client, server in self?.socketLine(line, from: client, server: server) },
                     onLog: { [weak self] message in
                         StandardError.write("badge-demo: \(message)")
                         self?.board.apply(.event(.error(source: "socket", reason: message)))
                     })
    }

    /// What root may do through another user's socket, when the config allows root at all:
    /// change and read counts. Not quit the app, raise its window, open its peek or do a click
    /// (which may run a program).
    static func rootMay(_ command: ControlCommand) -> Bool {
        switch command {
        case .quit, .activate, .click, .peek, .act: return false
        default: return true
        }
    }

    /// One line from a socket client: every line gets a reply.
    func socketLine(_ line: String, from client: ControlSocketServer.ClientID, server: ControlSocketServer) {
        let ok = #"{"reply":"ok"}"#
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let trimmed = words.count == 1 ? String(words[0]) : ""
        if trimmed == "hello" {
            server.reply(JSONValue.object([("reply", .string("ok")), ("protocol", .int(ControlSocketServer.protocolVersion)),
                                           ("pid", .int(Int(getpid()))), ("profile", .string(socket.profile.name))]).serialized, to: client)
            return
        }
        if trimmed == "subscribe" {
            // The stream starts with the state as it is, so a bar shows the counts before any change.
            server.reply(ok, to: client)
            if let host {
                server.reply(state(of: host).serialized, to: client)
            }
            server.subscribe(client)
            return
        }
        guard let host else { return server.reply(ControlSocketServer.errorLine(Sentence("the window is gone").localized), to: client) }
        switch ControlCommand.parse(line) {
        case .failure(let error):
            server.reply(ControlSocketServer.errorLine(error.sentence.localized), to: client)
        case .success(let command) where server.peer(of: client)?.isForeignRoot == true && !Self.rootMay(command):
            let verb = String(line.split(separator: " ").first ?? "")
            server.reply(ControlSocketServer.errorLine(Sentence("root may only change and read counts here, not %s", .text(verb)).localized), to: client)
        case .success(let command):
            switch execute(command, host: host) {
            case .done:
                server.reply(ok, to: client)
            case .failed(let reason):
                server.reply(ControlSocketServer.errorLine(reason.localized), to: client)
            case .answer(let event):
                server.reply(Self.reply(event).serialized, to: client)
            case .synchronize(let token):
                host.synchronize { [weak server] in
                    server?.reply(JSONValue.object([("reply", .string("ok")), ("token", .string(token))]).serialized, to: client)
                }
            }
        }
    }

    /// An event as a reply: `{"reply":"ok", ...the event's fields}`.
    static func reply(_ event: JSONValue) -> JSONValue {
        guard case .object(let fields) = event else { return event }
        return .object([("reply", .string("ok"))] + fields)
    }

    func printError(_ error: any Error) {
        if case X11Error.noDisplay = error {
            StandardError.say(Sentence("%s; or render offscreen with --screenshot FILE.png", .sentence(X11Error.noDisplay.sentence)))
        } else if let error = error as? X11Error {
            StandardError.say(error.sentence)
        } else {
            StandardError.write("badge-demo: \(error)")
        }
    }
}
