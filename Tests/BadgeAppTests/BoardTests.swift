import BadgeCore
@testable import BadgeApp
import Testing

/// The board hands every change to the keepers of state first, then to every output, once each.
@Suite struct BoardTests {
    final class Recorder: BoardOutput {
        let name: String
        let log: Log
        init(_ name: String, _ log: Log) {
            self.name = name
            self.log = log
        }
        func board(_ board: Board, didChange change: Board.Change) {
            if case .urgency(let on) = change { log.lines.append("\(name) \(on) r\(board.revision)") }
        }
    }

    final class Log { var lines: [String] = [] }

    @Test("Keepers of state see a change before any output; an observer added twice sees it once")
    func order() {
        let board = Board()
        let log = Log()
        let tray = Recorder("tray", log), saved = Recorder("saved", log), origins = Recorder("origins", log)
        board.observe(tray)
        board.observe(saved)
        board.observe(origins, at: .state)
        board.observe(tray)
        board.apply(.urgency(true))
        #expect(log.lines == ["origins true r1", "tray true r1", "saved true r1"])
        board.apply(.urgency(false))
        #expect(log.lines.count == 6 && board.revision == 2)
    }

    @Test("Where each value came from follows the changes: a source's is its kind's, a person's is by hand")
    func origins() throws {
        let origins = BadgeOrigins()
        origins.sourceKind = { $0 == "mail" ? "maildir" : nil }
        origins.set("mail", .demo)
        origins.set("bell", .demo)
        origins.changed("mail", by: .source, sourceKind: "maildir")
        origins.changed("bell", by: .source, sourceKind: nil)  // Do Not Disturb on an unbound button
        #expect(origins.origin(of: "mail") == .source("maildir") && origins.origin(of: "bell") == .demo)
        origins.changed("mail", by: .control, sourceKind: "maildir")
        #expect(origins.origin(of: "mail") == .hand)
        origins.follow(["mail", "news"]) { _ in .config }
        #expect(origins.origin(of: "news") == .config && origins.origin(of: "mail") == .hand && origins.origin(of: "bell") == .hand)
    }
}
