import BadgeCore

/// How one process's counts go into a state file that other processes may share: each writes only
/// the buttons it changed since its own last save, on top of what the file holds at that moment
/// (read under the file's lock). So for each button the change saved last wins, and the buttons
/// another process changed, or that this one does not have, are kept.
enum SavedCountsMerge {
    /// The file's new contents, in `shown`'s order and then the file's other buttons by id.
    ///
    /// - Parameters:
    ///   - shown: this process's buttons and what they show now.
    ///   - changed: the buttons this process changed since its last save.
    ///   - inFile: what the file holds now.
    static func merge<Value>(shown: [(id: String, content: Value)], changed: Set<String>,
                             inFile: [String: Value]) -> [(id: String, content: Value)] {
        var merged: [(id: String, content: Value)] = []
        var placed = Set<String>()
        for (id, content) in shown where placed.insert(id).inserted {
            // Changed here, or not in the file at all (a new button, a file removed or damaged): ours.
            let ours = changed.contains(id) || inFile[id] == nil
            merged.append((id, ours ? content : inFile[id] ?? content))
        }
        for (id, content) in inFile.sorted(by: { $0.key < $1.key }) where !placed.contains(id) {
            merged.append((id, content))
        }
        return merged
    }
}
