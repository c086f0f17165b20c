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
}
