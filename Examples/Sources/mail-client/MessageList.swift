import BadgeCore
import BadgeDrawing

/// The example's own data: a few messages, some unread.
struct MessageList {
    struct Message {
        var sender: String
        var subject: String
        var unread: Bool
    }

    var items: [Message]

    var unreadCount: Int { items.filter(\.unread).count }

    static let sample = MessageList(items: [
        Message(sender: "Ada", subject: "Engine notes, second draft", unread: true),
        Message(sender: "Grace", subject: "Re: the compiler is working", unread: true),
        Message(sender: "Linus", subject: "Patch series v3", unread: true),
        Message(sender: "Margaret", subject: "Lunar module checklist", unread: false),
        Message(sender: "Dennis", subject: "A new language called C", unread: false),
    ])
}

/// Draws the message list below the toolbar, with BadgeDrawing's public API: unread messages have
/// a blue dot and a bold sender.
struct MessageListView {
    let text: TextLayouts
    let scale: Double
    static let rowHeight = 40.0
    static let accent = Color(red: 0.10, green: 0.45, blue: 0.91)

    /// The message at window y (device pixels), or nil.
    func row(atY y: Int, top: Int, count: Int) -> Int? {
        guard y >= top else { return nil }
        let row = Int(Double(y - top) / (Self.rowHeight * scale))
        return row < count ? row : nil
    }

    func draw(_ list: MessageList, top: Int, width: Int, height: Int, in context: CairoContext) {
        context.paint(Color(red: 1, green: 1, blue: 1))
        context.scale(by: scale)
        let origin = Double(top) / scale
        let logicalWidth = Double(width) / scale
        for (index, message) in list.items.enumerated() {
            let y = origin + Double(index) * Self.rowHeight
            if index % 2 == 1 {
                context.fill(Rect(x: 0, y: y, width: logicalWidth, height: Self.rowHeight), color: Color(red: 0.97, green: 0.97, blue: 0.98))
            }
            if message.unread {
                context.fill(Rect(x: 12, y: y + 16, width: 8, height: 8), color: Self.accent, cornerRadius: 4)
            }
            let senderFont = BadgeFont(family: "DejaVu Sans", size: 13, weight: message.unread ? .bold : .regular)
            text.draw(message.sender, font: senderFont, at: Point(x: 30, y: y + 4), color: Color(red: 0.1, green: 0.1, blue: 0.1), in: context)
            text.draw(message.subject, font: BadgeFont(family: "DejaVu Sans", size: 12, weight: .regular),
                      at: Point(x: 30, y: y + 21), color: Color(red: 0.4, green: 0.4, blue: 0.42), in: context)
            context.fill(Rect(x: 0, y: y + Self.rowHeight - 1, width: logicalWidth, height: 1), color: Color(red: 0.9, green: 0.9, blue: 0.91))
        }
    }
}
