import Foundation
import XCTest
@testable import GeometryKit

/// SplitMix64: a small seeded generator so random tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
