import BadgeCore
import BadgeIO
import BadgeSources

/// Marking a source's items read (issue 37): the items leave the badge at once (the count drops
/// before the source answers), the source confirms it with its next reading, and a failure puts
/// them back and says why.
extension SourceBindings {
    /// Marks items of `buttonID` read through its source (every item its source counts with nil):
    /// the items leave the badge at once and the count drops (optimistic), the source confirms it
    /// with its next reading; a failure puts them back, and says why in ``explanation(of:)``, the
    /// peek (``readFailure(of:)``) and the event streams (``onMarkRead``). Nil when it was asked;
    /// else why not (no source, an item the badge does not list).
    func markRead(_ buttonID: String, keys: [String]?) -> Sentence? {
        guard let binding = binding(of: buttonID), let button = toolbar?.button(id: buttonID) else {
            return Sentence("%s has no source to mark anything read", .text(InputEcho.escaped(buttonID)))
        }
        if let keys {
            guard !keys.isEmpty else { return Sentence("no item to mark read") }
            if let missing = keys.first(where: { button.badge.items.item(forKey: $0) == nil }) {
                return Sentence("%1$s has no item \"%2$s\"", .text(InputEcho.escaped(buttonID)), .text(InputEcho.escaped(missing, limit: 80, quote: true)))
            }
        }
        nextMarkNumber += 1
        let number = nextMarkNumber
        binding.marking.append(MarkRequest(number: number, keys: keys.map(Set.init)))
        binding.readFailure = nil
        onMarkRead(buttonID, keys, nil)
        apply(binding.source.reading, to: binding)
        binding.source.markRead(keys) { [weak self, weak binding] outcome in
            guard let self, let binding else { return }
            self.finishMark(number, outcome, keys: keys, binding: binding)
        }
        // A child the source started (notmuch tag) is watched from the loop's next turn on (the group compares descriptors).
        return nil
    }

    private func finishMark(_ number: Int, _ outcome: MarkReadOutcome, keys: [String]?, binding: Binding) {
        guard let index = binding.marking.firstIndex(where: { $0.number == number }) else { return }
        switch outcome {
        case .marked:
            binding.marking[index].marked = true
        case .failed(let reason):
            binding.marking.remove(at: index)
            binding.readFailure = (reason, SystemTime.realtime)
            // The items come back as the source still counts them.
            apply(binding.source.reading, to: binding)
        }
        onMarkRead(binding.buttonID, keys, outcome)
    }

    /// Whether `buttonID`'s source can mark items read (IMAP, Maildir, notmuch).
    func marksRead(_ buttonID: String) -> Bool {
        switch binding(of: buttonID)?.config {
        case .imap?, .maildir?, .notmuch?, .sum?: return true
        default: return false
        }
    }

    /// Why the last request to mark `buttonID`'s items read failed, or nil.
    func readFailure(of buttonID: String) -> String? { binding(of: buttonID)?.readFailure?.reason }

    /// `reading` without the items being marked read (and its count without them).
    func withoutMarked(_ reading: SourceReading, _ binding: Binding) -> SourceReading {
        guard !binding.marking.isEmpty, var items = reading.items, case .count(let total)? = reading.content else { return reading }
        var next = reading
        var dropped = 0
        for request in binding.marking {
            if let keys = request.keys {
                for key in keys where items.remove(key: key) != nil { dropped += 1 }
            } else {
                // Every item counted, listed or not (the source marks them all).
                dropped += items.count
                items = BadgeItemList()
            }
        }
        next.items = items
        next.content = .count(max(0, total - dropped))
        return next
    }
}
