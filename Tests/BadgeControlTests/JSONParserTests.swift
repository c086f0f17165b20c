import BadgeControl
import Testing

@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "x\"y\u00e9\ud83d\udd25\n"}, "d": 9223372036854775807} "#)
        #expect(value["a"] == .array([.int(1), .double(-2.5), .double(300), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("x\"yé🔥\n"))
        #expect(value["d"] == .int(Int.max))
        #expect(value["missing"] == nil)
        #expect(try parse("\"一个信息\"") == .string("一个信息"))
    }

    @Test func roundTripsWhatTheControlChannelWrites() throws {
        let original = JSONValue.object([("event", .string("state")), ("n", .int(-3)), ("t", .string("a\"b\\c\u{1}"))])
        #expect(try parse(original.serialized) == original)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,\"a\":2}", "01", "1.", "-", "\"abc", "\"\\x\"", "\"\\ud800\"",
                      "tru", "nul", "[1] 2", "1e999", "\"a\u{1}b\"", String(repeating: "[", count: 100) + String(repeating: "]", count: 100)])
    func rejectsBadTextWithAReasonAndOffset(text: String) {
        #expect(throws: JSONParseError.self) { try parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xff, 0x22]) }
    }
}

@Suite struct JSONErrorPlaceTests {
    @Test("An error names its line and column as an editor counts them, characters not bytes")
    func lineAndColumn() {
        let text = "{\n  \"théme\": \"dark\",\n  \"buttons\" []\n}"
        do {
            _ = try JSONValue.parse(Array(text.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.line == 3 && error.column == 13, "\(error)")
            #expect(error.description == "expected ':' after an object key at line 3, column 13", "\(error)")
        }
        do {
            _ = try JSONValue.parse(Array("é x".utf8))
        } catch {
            #expect(error.line == 1 && error.column == 1)
        }
    }

    @Test("Every cut of a valid text ran out (a file read while it is written); a mistake before the end did not")
    func ranOutOnlyAtTheEnd() throws {
        let whole = Array(#"{"theme": "dark", "scale": 1.5e0, "buttons": [{"id": "mail", "label": "M\u00e9l ✉", "on": true, "x": null, "n": -12}]}"#.utf8)
        #expect(throws: Never.self) { try JSONValue.parse(whole) }
        for length in 0..<whole.count {
            do {
                _ = try JSONValue.parse(Array(whole.prefix(length)))
            } catch {
                #expect(error.ranOut, "cut at \(length) (\(String(decoding: whole.prefix(length), as: UTF8.self))): \(error)")
            }
        }
        for text in ["{\"a\" 1}", "[1,]", "{\"a\":1,\"a\":2}", "01", "[1] 2", "tx", "\"\\x\"", "\"\\u00G", "{\"a\":1}}", "[1 2", "{\"a\":1,\"a\"", "[01", "1e999"] {
            do {
                _ = try JSONValue.parse(Array(text.utf8))
                Issue.record("\(text) parsed")
            } catch {
                #expect(!error.ranOut, "\(text): \(error)")
            }
        }
    }
}
