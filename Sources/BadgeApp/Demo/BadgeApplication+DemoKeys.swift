import BadgeCore
import BadgeX11

/// The demo's keys (`KeyCommand`): Ctrl+Q, and the keys that show off the bundled buttons
/// (chat's texts, the updates dot blinking, mail's overflow) and reduced motion.
extension BadgeApplication {
    func perform(_ command: KeyCommand) {
        guard let host else { return }
        switch command {
        case .quit:
            quit(.closed)
        case .cycleChatText:
            guard let chat = toolbar.button(id: "chat") else { return }
            var current: String?
            if case .text(let text) = chat.badge.value { current = text }
            model.change(chat, cause: .key) { $0.setText(KeyCommand.nextChatText(after: current)) }
        case .toggleBlink:
            guard let updates = toolbar.button(id: "updates") else { return }
            // Remembered here: under reduced motion the badge shows a steady dot even when asked to blink.
            updatesBlinkRequested = !(updates.badge.value == .dot && updatesBlinkRequested)
            let blink = updatesBlinkRequested
            model.change(updates, cause: .key) { $0.showDot(blink: blink) }
        case .toggleOverflow:
            guard let mail = toolbar.button(id: "mail") else { return }
            model.change(mail, cause: .key) { $0.value = .count($0.count == 120 ? 12 : 120) }
        case .toggleReducedMotion:
            host.reducesMotion.toggle()
            sources.reducedMotion = .key
            board.apply(.event(.motion(reduced: host.reducesMotion)))
        }
    }
}
