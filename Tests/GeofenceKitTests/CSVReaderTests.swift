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

final class CSVReaderTests: XCTestCase {
    func parse(_ s: String) throws -> [[String]] { try CSVReader().records(Array(s.utf8)).map(\.fields) }

    func testQuotingAndLineEnds() throws {
        XCTAssertEqual(try parse("a,b\r\n\"x,1\",\"he said \"\"hi\"\"\"\n\n3,\n"), [["a", "b"], ["x,1", "he said \"hi\""], ["3", ""]])
        XCTAssertEqual(try parse("\u{FEFF}id\nq"), [["id"], ["q"]])
        XCTAssertEqual(try parse("a\n\"multi\nline\",z"), [["a"], ["multi\nline", "z"]])
    }

    func testLineNumbersCountPhysicalLines() throws {
        let r = try CSVReader().records(Array("h\n\"a\nb\"\nc\r\n".utf8))
        XCTAssertEqual(r.map(\.line), [1, 2, 4])
    }

    func testErrors() {
        XCTAssertThrowsError(try parse("a\n\"open")) { XCTAssertEqual(($0 as? CSVReader.SyntaxError)?.description, "line 2: unterminated quoted field") }
        XCTAssertThrowsError(try parse("\"a\"b")) { XCTAssertEqual(($0 as? CSVReader.SyntaxError)?.description, "line 1: unexpected character after closing quote in field 1") }
    }
}
