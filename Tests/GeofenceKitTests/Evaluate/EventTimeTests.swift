import Foundation
import XCTest
import GeofenceKit
import GeofenceTestSupport
@testable import GeofenceEvaluation
@testable import GeofenceLogs

/// Event times as written (`EventWriter.iso8601`) against Foundation's ISO 8601 formatter (UTC,
/// milliseconds) from 1600 on, and parsed back by the log reader over the whole range of years.
final class EventTimeTests: XCTestCase {
    func testEventTimesMatchFoundationAndParseBack() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SeededGenerator(seed: 91)
        let from1600 = LogTime.parse("1600-01-01T00:00:00Z")!
        for k in 0..<20_000 {
            var t = rng.uniform(k % 2 == 0 ? from1600 : LogTime.earliest, LogTime.latest)
            let whole = k % 3 == 0
            if whole { t = t.rounded(.down) }
            let text = EventWriter.iso8601(t)
            guard let back = LogTime.parse(text) else { XCTFail("\(text) does not parse"); continue }
            if whole {
                XCTAssertEqual(back, t, text)
                if t >= from1600 {
                    // Foundation always writes the milliseconds; we write them only when not zero.
                    let expected = formatter.string(from: Date(timeIntervalSince1970: t))
                    XCTAssertEqual(text, String(expected.dropLast(5)) + "Z", "t = \(t)")
                }
            } else {
                // Milliseconds, rounded to nearest (a double near year 9999 is within 4e-5 s).
                XCTAssertEqual(back, t, accuracy: 0.0005 + 4e-5, text)
                if t >= from1600 {
                    // The date and the whole seconds as Foundation has them (it truncates the fraction).
                    let expected = formatter.string(from: Date(timeIntervalSince1970: back.rounded(.down)))
                    XCTAssertEqual(String(text.prefix(19)), String(expected.prefix(19)), "t = \(t)")
                }
            }
        }
        XCTAssertEqual(EventWriter.iso8601(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(EventWriter.iso8601(-0.5), "1969-12-31T23:59:59.500Z")
        XCTAssertEqual(EventWriter.iso8601(LogTime.earliest), "0001-01-01T00:00:00Z")
    }
}
