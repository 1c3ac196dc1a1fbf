import Foundation
import XCTest
import GeofenceTestSupport

final class QueryCommandTests: XCTestCase {
    func testContainsOnRealData() throws {
        let r = try CLI.run(["contains", "--fences", CLI.data("ports.csv"), "--fences", CLI.data("us_counties_va_nc.geojson"), "--at", "36.85,-76.30", "--accuracy", "50"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Norfolk city (FIPS 51710) and the Norfolk port circle (WPI8280, 5 km) contain the point.
        XCTAssertTrue(r.stdout.hasPrefix(#"{"lat":36.85,"lon":-76.3,"accuracy":50,"inside":[{"id":"51710","#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"{"id":"WPI8280","#), r.stdout)
    }

    func testNearestAnswersPlannerShape() throws {
        let r = try CLI.run(["nearest", "--fences", CLI.data("airports.csv"), "--at", "45.764,4.8357", "-k", "5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Lyon: Bron (LFLY) nearest, then the refresh radius reaches the 5th airport.
        XCTAssertTrue(r.stdout.contains(#""monitor":[{"id":"LFLY","#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#""next":"LFHV""#), r.stdout)
        let bad = try CLI.run(["nearest", "--fences", CLI.data("airports.csv"), "--at", "4.8357"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertEqual(bad.stderr, "geofence nearest: error: option '--at' expects LAT,LON in degrees (latitude first), got '4.8357'\n")
    }
}
