import Foundation
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

final class LogTimeTests: XCTestCase {
    func testForms() {
        let t = 1591279897.0                                      // 2020-06-04T14:11:37Z
        XCTAssertEqual(LogTime.parse("2020-06-04T14:11:37Z"), t)
        XCTAssertEqual(LogTime.parse("2020-06-04t14:11:37z"), t)
        XCTAssertEqual(LogTime.parse("2020-06-04 14:11:37Z"), t)
        XCTAssertEqual(LogTime.parse("2020-06-04T14:11:37"), t, "no zone: UTC")
        XCTAssertEqual(LogTime.parse("2020-06-04T16:11:37+02:00"), t)
        XCTAssertEqual(LogTime.parse("2020-06-04T16:11:37+0200"), t)
        XCTAssertEqual(LogTime.parse("2020-06-04T16:11:37+02"), t)
        XCTAssertEqual(LogTime.parse("2020-06-04T08:41:37-05:30"), t)
        XCTAssertEqual(LogTime.parse("2020-06-04T14:11Z"), t - 37)
        XCTAssertEqual(LogTime.parse("2020-06-04T14:11:37.5Z"), t + 0.5)
        XCTAssertEqual(LogTime.parse("2020-06-04T14:11:37,25Z"), t + 0.25)
        XCTAssertEqual(LogTime.parse("2020-06-04T14:11:37.123Z"), Double("1591279897.123"))
        XCTAssertEqual(LogTime.parse("2020-06-04T14:11:37.1234567891234Z"), Double("1591279897.1234567891234"))
        XCTAssertEqual(LogTime.parse("2016-12-31T23:59:60Z"), LogTime.parse("2017-01-01T00:00:00Z"), "leap second")
        XCTAssertEqual(LogTime.parse("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(LogTime.parse("1969-12-31T23:59:59.5Z"), -0.5)
        XCTAssertEqual(LogTime.parse("2000-02-29T00:00:00Z"), 951782400)
        // Unix seconds
        XCTAssertEqual(LogTime.parse("1591279897"), t)
        XCTAssertEqual(LogTime.parse("1591279897.25"), t + 0.25)
        XCTAssertEqual(LogTime.parse("1.591279897e9"), t)
        XCTAssertEqual(LogTime.parse("-86400"), -86400)
    }

    func testInvalid() {
        for text in ["", "2020-02-30T00:00:00Z", "2021-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
                     "2020-13-01T00:00:00Z", "2020-00-01T00:00:00Z", "2020-06-00T00:00:00Z", "2020-06-04T24:00:00Z",
                     "2020-06-04T14:60:00Z", "2020-06-04T14:11:61Z", "2020-06-04T14:11:37Q", "2020-06-04T14:11:37+25:00",
                     "2020-06-04T14:11:37.Z", "2020-06-04T14:11:37Z ", "2020-06-04X14:11:37Z", "2020-6-04T14:11:37Z",
                     "2020-06-04T14:11:37+02:0", "2020-06-04T1:11:37Z", "June 4 2020", "yesterday", "12:00"] {
            XCTAssertNil(LogTime.parse(text), text)
        }
    }

    /// Against Foundation's ISO8601DateFormatter on random times 1900–2100, whole seconds and milliseconds.
    func testAgainstFoundation() {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let offset = ISO8601DateFormatter()
        offset.timeZone = TimeZone(secondsFromGMT: -(9 * 3600 + 30 * 60))
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let s = Int.random(in: -2_208_988_800...4_102_444_800, using: &rng)
            let date = Date(timeIntervalSince1970: Double(s))
            let text = plain.string(from: date)
            XCTAssertEqual(LogTime.parse(text), Double(s), text)
            XCTAssertEqual(LogTime.parse(text), plain.date(from: text)!.timeIntervalSince1970, text)
            let local = offset.string(from: date)                 // e.g. 2020-06-04T04:41:37-09:30
            XCTAssertEqual(LogTime.parse(local), Double(s), local)
            let ms = Int.random(in: 0..<1000, using: &rng)
            let withMs = fractional.string(from: Date(timeIntervalSince1970: Double(s) + Double(ms) / 1000))
            let ours = LogTime.parse(withMs)!
            XCTAssertEqual(ours, Double(s * 1000 + ms) / 1000, withMs)  // correctly rounded decimal
            XCTAssertEqual(ours, fractional.date(from: withMs)!.timeIntervalSince1970, accuracy: 1e-6, withMs)
        }
    }

    func testCivilRoundTripAndFormat() {
        for days in stride(from: -800_000, through: 800_000, by: 97) {
            let (y, m, d) = LogTime.civilFromDays(days)
            XCTAssertEqual(LogTime.daysFromCivil(y, m, d), days)
        }
        XCTAssertEqual(LogTime.format(1591279897), "2020-06-04T14:11:37Z")
        XCTAssertEqual(LogTime.format(1591279897.25), "2020-06-04T14:11:37.25Z")
        XCTAssertEqual(LogTime.format(-0.5), "1969-12-31T23:59:59.5Z")
        XCTAssertEqual(LogTime.format(1449845000.994), "2015-12-11T14:43:20.994Z")
    }
}
