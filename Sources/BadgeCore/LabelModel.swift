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

    /// This model with text (not a count) cut with "…" so that it measures at most `maximumTextWidth`
    /// (``BadgeTextTruncation``); counts, dots and text that fits are returned as they are. Text of
    /// which not even "…" fits is cut to "…" alone, so that something stays on show.
    func fitting(maximumTextWidth: Double, measure: (String) -> Double) -> LabelModel {
        guard count == nil, case .text(let text) = label else { return self }
        var cut = BadgeTextTruncation.truncate(text, maximumWidth: maximumTextWidth, ellipsis: BadgeFormat.ellipsis,
                                               measure: measure)
        if cut == text { return self }
        if cut.isEmpty { cut = BadgeFormat.ellipsis }
        var model = self
        model.label = .text(cut)
        model.columns = [(.whole, cut)]
        return model
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
