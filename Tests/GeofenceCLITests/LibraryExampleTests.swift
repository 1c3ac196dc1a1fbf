import Foundation
import XCTest
import GeofenceTestSupport

/// The library example of docs/library.md (target `geofence-example`) prints the same
/// bytes as the CLI on the same files: `geofence evaluate` then `geofence nearest`.
final class LibraryExampleTests: XCTestCase {
    func testExampleOutputEqualsTheCLI() throws {
        let root = CLI.packageRoot
        let example = try CLI.run([], executable: "geofence-example", directory: root)
        XCTAssertEqual(example.status, 0, example.stderr)
        let fences = ["--fences", "data/ports.csv", "--fences", "data/airports.csv", "--fences", "data/us_counties_va_nc.geojson"]
        let events = try CLI.run(["evaluate"] + fences + ["--log", "data/virginia_beach_ais.csv", "--exit-margin", "20",
                                                          "--dwell", "900", "--quiet", "--threads", "2"], directory: root)
        XCTAssertEqual(events.status, 0, events.stderr)
        let nearest = try CLI.run(["nearest"] + fences + ["--at", "36.85,-76.30", "-k", "5"], directory: root)
        XCTAssertEqual(nearest.status, 0, nearest.stderr)
        XCTAssertGreaterThan(events.stdout.split(separator: "\n").count, 100, "the bundled trace makes events")
        XCTAssertEqual(example.stdout, events.stdout + nearest.stdout)
    }
}
