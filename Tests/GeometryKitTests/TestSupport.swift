import Foundation
import XCTest
import GeofenceTestSupport
@testable import GeometryKit


/// Reads a fixture shipped under Tests/GeometryKitTests/Fixtures.
func fixture(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let url = try XCTUnwrap(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"),
                            "missing fixture \(name)", file: file, line: line)
    return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The message of a thrown `GEOSError`, or a test failure.
func assertGEOSError<T>(_ expression: @autoclosure () throws -> T, _ expected: String,
                        file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try expression(), file: file, line: line) { error in
        guard case .library(let message)? = error as? GEOSError else {
            return XCTFail("expected GEOSError, got \(type(of: error)): \(error)", file: file, line: line)
        }
        XCTAssertEqual(message, expected, file: file, line: line)
    }
}
