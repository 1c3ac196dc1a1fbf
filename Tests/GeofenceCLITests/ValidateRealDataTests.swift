import Foundation
import XCTest
import GeofenceTestSupport

/// `geofence validate` on the bundled real data (data/README.md lists the defects checked here).
final class ValidateRealDataTests: XCTestCase {
    func testAirports() throws {
        let p = CLI.data("airports.csv")
        let r = try CLI.run(["validate", "--fences", p])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("\(p): 28298 rows read: 28298 fences (28298 circles, 0 polygons)\ntotal: 28298 fences, 0 problems\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("phone warnings: 5\n  radius under the reliable minimum: 5\n"), r.stdout)
        for id in ["BGSG", "KHLR", "KMUI", "RK5M", "YRSH"] {
            XCTAssertTrue(r.stdout.contains("(id \"\(id)\"): radius 60 m is under 100 m; iOS fires unreliably for small regions"), id)
        }
        // A tighter maximum turns the 3 km airports into warnings too.
        let tight = try CLI.run(["validate", "--fences", p, "--max-radius", "2000"])
        XCTAssertTrue(tight.stdout.contains("radius over the platform maximum: 7882\n"), tight.stdout)
    }

    func testCountriesReportRealDefects() throws {
        let p = CLI.data("countries.geojson")
        let r = try CLI.run(["validate", "--fences", p])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stdout.contains("total: 176 fences, 4 problems (2 fences affected)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  \(p): feature 18 (id \"RUS\"): longitude of point 0 of exterior ring of polygon 0 of MultiPolygon is 180.00000000000006, out of range [-180, 180] by 5.684341886080802e-14°; --repair clamps it to 180 [repairable]\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  \(p): feature 159 (id \"ATA\"): exterior ring of polygon 7 of MultiPolygon crosses the antimeridian (edge 1 goes from longitude 180 to -179.99999999999994); split it at ±180° as RFC 7946 §3.1.9 requires\n"), r.stdout)
        // Fiji straddles the antimeridian: its enclosing circle stays on Fiji.
        let all = try CLI.run(["validate", "--fences", p, "--all"])
        XCTAssertTrue(all.stdout.contains("(id \"FJI\"): a phone can only monitor this polygon as its enclosing circle: centre -17.092601,178.794070, radius 192 km"), all.stdout)
        // Russia's clamp is repairable, Antarctica's crossing is not: nothing is written.
        let out = CLI.tempPath("countries.geojson")
        let rep = try CLI.run(["validate", "--fences", p, "--repair", "-o", out])
        XCTAssertEqual(rep.status, 65)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertTrue(rep.stdout.contains("repair: 1 problem cannot be repaired; nothing written:\n"), rep.stdout)
    }

    func testCountiesAreValid() throws {
        let p = CLI.data("us_counties_va_nc.geojson")
        let r = try CLI.run(["validate", "--fences", p, "--fences", CLI.data("ports.csv")])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("\(p): 234 features read: 234 fences (0 circles, 234 polygons)\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("total: 3930 fences, 0 problems\n"), r.stdout)
    }

    /// The GSHHS Antarctic coastline fetched by `scripts/fetch-data` has one real self-intersection
    /// (not committed: that data is LGPL-3). Skipped when the fetched data is absent.
    func testFetchedCoastlineSelfIntersectionAndRepair() throws {
        let p = CLI.data("fetched/gshhs_c_L6.geojson")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: p), "run scripts/fetch-data first")
        let r = try CLI.run(["validate", "--fences", p])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stdout.contains("  \(p): feature 1 (id \"5-W\"): invalid polygon: Self-intersection[-169.514672673675 -83.3096879890653] [repairable]\n"), r.stdout)
        let out = CLI.tempPath("gshhs.geojson")
        defer { try? FileManager.default.removeItem(atPath: out) }
        XCTAssertEqual(try CLI.run(["validate", "--fences", p, "--repair", "-o", out]).status, 0)
        let again = try CLI.run(["validate", "--fences", out])
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("total: 21 fences, 0 problems\n"), again.stdout)
    }
}
