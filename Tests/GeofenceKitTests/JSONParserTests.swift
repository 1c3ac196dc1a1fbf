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
}
