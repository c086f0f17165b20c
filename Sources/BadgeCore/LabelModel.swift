/// A formatted label plus what animations need: the numeric count and the text split into columns.
struct LabelModel: Hashable {
    /// The shown label.
    var label: BadgeLabel
    /// The count behind a count label (>= 0), nil for text, dot and hidden.
    var count: Int?
    /// The label text by column, in visual order.
    var columns: [(key: ColumnKey, text: String)]

    init(content: BadgeContent, format: BadgeFormat) {
        label = format.label(for: content)
        count = nil
        columns = []
        guard case .text(let text) = label else { return }
        if case .count(let value) = content {
            let parts = format.countParts(for: value)
            count = Swift.max(value, 0)
            let digits = Array(parts.body)
            for (index, character) in digits.enumerated() {
                columns.append((.body(digits.count - 1 - index), String(character)))
            }
            if !parts.suffix.isEmpty { columns.append((.suffix, parts.suffix)) }
        } else {
            columns = [(.whole, text)]
        }
    }

    /// The text of the column `key`, "" when this label has no such column.
    func text(of key: ColumnKey) -> String {
        columns.first { $0.key == key }?.text ?? ""
    }

    static func == (lhs: LabelModel, rhs: LabelModel) -> Bool {
        lhs.label == rhs.label && lhs.count == rhs.count
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(label)
        hasher.combine(count)
    }
}
