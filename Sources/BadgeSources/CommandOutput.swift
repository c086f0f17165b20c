import BadgeControl
import BadgeCore

/// What a command's standard output means: a number (a count), or one JSON object with `count`,
/// `text` or `dot`, and optionally `description` and `items` (a list of item objects, see
/// `BadgeItem(json:)`: a command's item may name a `command` to run when activated). With
/// `items` and no `count`, the count is the number of items; a `count` above it counts the rest
/// as unlisted. Empty output means no badge.
package struct CommandOutput: Equatable, Sendable {
    /// The badge content.
    package var content: BadgeContent
    /// The source's description, when the output names one.
    package var description: String?
    /// The items, when the output lists them.
    package var items: BadgeItemList?

    /// Reads `bytes`; the reason when they mean nothing (quoted, shortened).
    package static func parse(_ bytes: [UInt8]) -> Result<CommandOutput, CommandOutputError> {
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return .success(CommandOutput(content: .none)) }
        if trimmed.allSatisfy(\.isASCII), let number = Int(trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed) {
            guard number >= 0 else { return .failure(CommandOutputError(output: trimmed, reason: Sentence("a count cannot be negative"))) }
            return .success(CommandOutput(content: .count(number)))
        }
        guard trimmed.hasPrefix("{") else {
            return .failure(CommandOutputError(output: trimmed, reason: Sentence("neither a number nor JSON like {\"count\": 3}")))
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(trimmed.utf8))
        } catch {
            return .failure(CommandOutputError(output: trimmed, reason: Sentence("not valid JSON (%s)", .sentence(error.sentence))))
        }
        return interpret(value, output: trimmed)
    }

    private static func interpret(_ value: JSONValue, output: String) -> Result<CommandOutput, CommandOutputError> {
        func failure(_ reason: Sentence) -> Result<CommandOutput, CommandOutputError> {
            .failure(CommandOutputError(output: output, reason: reason))
        }
        var description: String?
        switch value["description"] {
        case nil, .null?: break
        case .string(let text)?: description = text
        default: return failure(Sentence("\"description\" must be a string"))
        }
        var items: BadgeItemList?
        switch value["items"] {
        case nil, .null?: break
        case .array(let elements)?:
            var list = BadgeItemList()
            for element in elements.prefix(BadgeItemList.maximumCount * 4) {
                do throws(ControlCommandError) {
                    list.insert(try BadgeItem(json: element))
                } catch {
                    return failure(Sentence("\"items\": %s", .sentence(error.sentence)))
                }
            }
            items = list
            if value["count"] == nil, value["text"] == nil, value["dot"] == nil {
                return .success(CommandOutput(content: .count(list.count), description: description, items: list))
            }
        default: return failure(Sentence("\"items\" must be a list of objects with \"key\" and \"title\""))
        }
        let content: BadgeContent
        switch (value["count"], value["text"], value["dot"]) {
        case (.int(let count)?, nil, nil):
            guard count >= 0 else { return failure(Sentence("\"count\" cannot be negative")) }
            content = .count(count)
        case (.double(let count)?, nil, nil):
            guard count >= 0, count.rounded() == count, count < 1e15 else {
                return failure(Sentence("\"count\" must be a whole number of 0 or more"))
            }
            content = .count(Int(count))
        case (.string(let text)?, nil, nil):
            return failure(Sentence("\"count\" must be a number, not the string \"%s\"", .text(InputEcho.escaped(text, quote: true))))
        case (nil, .string(let text)?, nil):
            content = .text(text)
        case (nil, nil, .bool(let dot)?):
            content = dot ? .dot : .none
        case (nil, nil, nil):
            return failure(Sentence("a JSON object needs \"count\", \"text\" or \"dot\""))
        case (_?, _, _), (_, _?, _), (_, _, _?):
            let given = [("count", value["count"]), ("text", value["text"]), ("dot", value["dot"])].filter { $0.1 != nil }
            if given.count > 1 { return failure(Sentence("give only one of \"count\", \"text\" and \"dot\"")) }
            return failure(Sentence("\"%s\" has the wrong type (count: number, text: string, dot: true or false)", .text("\(given.first?.0 ?? "count")")))
        }
        if var list = items, case .count(let count) = content, count > list.items.count {
            list.setUnlisted(count - list.items.count)
            items = list
        }
        return .success(CommandOutput(content: content, description: description, items: items))
    }
}

/// Why a command's output was not understood.
package struct CommandOutputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The output, trimmed.
    package var output: String
    /// What is wrong with it, to say in the user's language.
    package var reasonSentence: Sentence
    /// What is wrong with it.
    package var reason: String { reasonSentence.english }

    /// A reason for `output`.
    package init(output: String, reason: Sentence) {
        self.output = output
        reasonSentence = reason
    }

    /// `printed "…", which is REASON`.
    package var description: String { sentence.english }

    /// The description, to say in the user's language.
    package var sentence: Sentence {
        Sentence("printed \"%1$s\": %2$s", .text(InputEcho.escaped(output, limit: 60, quote: true)), .sentence(reasonSentence))
    }
}
