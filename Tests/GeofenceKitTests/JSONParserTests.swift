import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceLogs
@testable import GeofenceFences
@testable import GeofenceEvaluation
@testable import GeofencePlanning
@testable import GeofenceSimulation
@testable import GeofenceSubsets

final class JSONParserTests: XCTestCase {
    func testValuesAndOrder() throws {
        let v = try JSONParser.parse(#"{"b":1.50,"a":[true,false,null,"x\u00e9\n"],"c":{"d":-0.0e+3}}"#)
        XCTAssertEqual(v.objectValue?.map(\.0), ["b", "a", "c"])
        XCTAssertEqual(v["b"], .number("1.50"))
        XCTAssertEqual(v["a"]?.arrayValue?[3], .string("xé\n"))
        XCTAssertEqual(JSONWriter.string(v), #"{"b":1.50,"a":[true,false,null,"xé\n"],"c":{"d":-0.0e+3}}"#)
    }

    func testErrorsNameLineAndColumn() {
        func err(_ s: String) -> String {
            do { _ = try JSONParser.parse(s); return "no error" } catch { return error.description }
        }
        XCTAssertEqual(err("{\"a\":1,}"), "line 1, column 8: unexpected '}', expected a member name in double quotes")
        XCTAssertEqual(err("[1,\n 2,\n 03]"), "line 3, column 2: invalid number: leading zero")
        XCTAssertEqual(err("{\"a\": NaN}"), "line 1, column 7: unexpected 'N', expected a value")
        XCTAssertEqual(err("\"abc"), "line 1, column 1: unterminated string")
        XCTAssertEqual(err(""), "line 1, column 1: empty input, expected a JSON value")
        XCTAssertEqual(err("[1] x"), "line 1, column 5: unexpected 'x' after the JSON value")
        XCTAssertEqual(err("\"\\ud800\""), "line 1, column 8: lone high surrogate in \\u escape")
    }

    func testSurrogatePairs() throws {
        XCTAssertEqual(try JSONParser.parse(#""\ud83d\ude00""#), .string("😀"))
    }

    /// Strings written as JSON (bytes, as events are formatted) parse back to themselves, with
    /// the escapes the documentation names and every other character as UTF-8.
    func testWrittenStringsParseBackAndUseTheNamedEscapes() throws {
        XCTAssertEqual(String(decoding: bytes("a\"b\\c"), as: UTF8.self), #""a\"b\\c""#)
        XCTAssertEqual(String(decoding: bytes("\n\r\t\u{08}\u{0C}\u{01}\u{1F}"), as: UTF8.self), #""\n\r\t\b\f\u0001\u001f""#)
        XCTAssertEqual(String(decoding: bytes("café ☃ 😀 /"), as: UTF8.self), "\"café ☃ 😀 /\"")
        var g = SeededGenerator(seed: 5)
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{00}", "\u{08}", "\u{0C}", "\u{1B}", "\u{1F}",
                                      "\u{7F}", "é", "☃", "😀", "\u{FFFD}"]
        for _ in 0..<2000 {
            var s = ""
            for _ in 0..<Int(g.next() % 12) { s.unicodeScalars.append(pool[Int(g.next() % UInt64(pool.count))]) }
            let written = bytes(s)
            XCTAssertEqual(try JSONParser.parse(written), .string(s), s.debugDescription)
            var text = ""
            JSONWriter.writeString(s, to: &text)
            XCTAssertEqual(Array(text.utf8), written)
        }
    }

    /// Decimal digits appended as bytes equal the standard library's text of the integer.
    func testDecimalDigitsAppendedAsBytes() {
        var g = SeededGenerator(seed: 6)
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 999_999_999_999_999, Int64.max, Int64.min, Int64.min + 1]
        for _ in 0..<1000 { values.append(Int64(bitPattern: g.next()) >> (g.next() % 63)) }
        for v in values {
            var out: [UInt8] = [0x41]
            out.append(decimal: v)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "A" + String(v))
        }
    }

    private func bytes(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.writeString(s, to: &out)
        return out
    }
}
