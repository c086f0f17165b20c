/// A polybar or lemonbar line as the bar shows it: without the action tags around each button's
/// text (`%{A1:…:}`, `%{A}`), colours and the rest kept.
public enum BarText {
    /// `line` with its action tags taken out.
    public static func plain(_ line: String) -> String {
        var result = ""
        var rest = line[...]
        while let start = rest.firstRange(of: "%{A") {
            result += rest[..<start.lowerBound]
            rest = rest[start.upperBound...]
            if rest.hasPrefix("}") {
                rest = rest.dropFirst()
                continue
            }
            // %{A[N]:command:} — the command ends at a ':' not written "\:".
            if let digit = rest.first, digit.isNumber { rest = rest.dropFirst() }
            guard rest.hasPrefix(":") else { continue }
            rest = rest.dropFirst()
            var escaped = false
            while let character = rest.first {
                rest = rest.dropFirst()
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == ":" { break }
            }
            if rest.hasPrefix("}") { rest = rest.dropFirst() }
        }
        return result + rest
    }
}
