import BadgeCore

/// The keys a JSON document may hold, as a tree, so that every key nobody reads can be named with
/// its path and the nearest known key ("`buttons[1].sorce`: unknown key; did you mean `source`?").
///
/// Only names are checked here; a value of the wrong type is the reader's error. A key whose
/// value is free-form (monitor names, say) is ``anything``.
package indirect enum JSONKeySchema: Sendable {
    /// Any value: nothing inside it is checked.
    case anything
    /// An object with these keys; other keys are unknown. A value that is not an object is not checked.
    case object([String: JSONKeySchema])
    /// An array whose items follow the schema. A value that is not an array is not checked.
    case array(of: JSONKeySchema)
    /// An object with these keys, or an array of such objects (one account, or several).
    case objectOrArray([String: JSONKeySchema])
    /// A key that belongs elsewhere (people put it here): warned with `advice`, which says where
    /// it goes ("belongs beside \"imap\", as source.open").
    case misplaced(advice: Sentence)

    /// One key no schema names.
    package struct UnknownKey: Hashable, Sendable, CustomStringConvertible {
        /// Where it is: `buttons[1].sorce`.
        package let path: String
        /// The known key at the same place nearest to it, when one is near enough to be a typo.
        package let suggestion: String?
        /// Where a key known to belong elsewhere goes (``JSONKeySchema/misplaced(advice:)``), or nil.
        package var advice: Sentence? = nil

        /// "`buttons[1].sorce`: unknown key; did you mean `source`?", or "PATH: ADVICE" for a misplaced key.
        package var description: String { sentence.english }

        /// The same, to say in the user's language.
        package var sentence: Sentence {
            if let advice { return Sentence("%1$s: %2$s", .text(path), .sentence(advice)) }
            return suggestion.map { Sentence("%1$s: unknown key; did you mean \"%2$s\"?", .text(path), .text($0)) }
                ?? Sentence("%s: unknown key", .text(path))
        }

        /// The path of the object that holds the key ("buttons[1]" for "buttons[1].sorce").
        package var parent: String {
            guard let dot = path.lastIndex(of: ".") else { return "" }
            return String(path[..<dot])
        }
    }

    /// Every unknown key in `value`, in the document's order; `path` prefixes the paths.
    package func unknownKeys(in value: JSONValue, path: String = "") -> [UnknownKey] {
        switch (self, value) {
        case (.object(let known), .object(let members)):
            var found: [UnknownKey] = []
            for (key, member) in members {
                let at = path.isEmpty ? InputEcho.escaped(key) : "\(path).\(InputEcho.escaped(key))"
                if case .misplaced(let advice)? = known[key] {
                    found.append(UnknownKey(path: at, suggestion: nil, advice: advice))
                } else if let schema = known[key] {
                    found += schema.unknownKeys(in: member, path: at)
                } else {
                    let candidates = known.compactMap { name, schema -> String? in
                        if case .misplaced = schema { return nil }
                        return name
                    }
                    found.append(UnknownKey(path: at, suggestion: Self.nearest(to: key, among: candidates)))
                }
            }
            return found
        case (.objectOrArray(let known), .object):
            return JSONKeySchema.object(known).unknownKeys(in: value, path: path)
        case (.objectOrArray(let known), .array(let items)):
            return items.enumerated().flatMap { index, member in JSONKeySchema.object(known).unknownKeys(in: member, path: "\(path)[\(index)]") }
        case (.array(let item), .array(let items)):
            return items.enumerated().flatMap { index, member in item.unknownKeys(in: member, path: "\(path)[\(index)]") }
        default:
            return []
        }
    }

    /// The candidate nearest to `key` by edit distance (a swap of two neighbours counts as one
    /// edit, case is ignored), when it differs only in case or by 1 edit, or by 2 for keys of 5 letters or more.
    package static func nearest<Keys: Sequence>(to key: String, among candidates: Keys) -> String? where Keys.Element == String {
        let typed = Array(key.lowercased())
        var best: (distance: Int, key: String)?
        for candidate in candidates.sorted() {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            guard distance <= 1 || (distance == 2 && max(typed.count, candidate.count) >= 5) else { continue }
            if let nearer = best, nearer.distance <= distance { continue }
            best = (distance, candidate)
        }
        return best?.key
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours each cost 1.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
