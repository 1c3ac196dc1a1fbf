import Foundation
import XCTest
import GeofenceTestSupport

final class ValidateCommandTests: XCTestCase {
    func testHelpAndVersion() throws {
        let h = try CLI.run(["--help"])
        XCTAssertEqual(h.status, 0)
        XCTAssertTrue(h.stdout.contains("USAGE: geofence <subcommand>"))
        XCTAssertTrue(h.stdout.contains("validate"))
        let v = try CLI.run(["--version"])
        XCTAssertEqual(v.status, 0)
        XCTAssertTrue(v.stdout.hasPrefix("geofence "))
        let sub = try CLI.run(["validate", "--help"])
        XCTAssertEqual(sub.status, 0)
        XCTAssertTrue(sub.stdout.contains("--repair"))
    }

    func testUsageErrors() throws {
        let r = try CLI.run(["frobnicate"])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr, "geofence: unknown subcommand 'frobnicate' (see 'geofence --help')\n")
        let m = try CLI.run(["validate"])
        XCTAssertEqual(m.status, 64)
        XCTAssertEqual(m.stderr, "geofence validate: error: missing required option '--fences'\n")
        let u = try CLI.run(["validate", "--fences", "x.csv", "--bogus"])
        XCTAssertEqual(u.status, 64)
        XCTAssertEqual(u.stderr, "geofence validate: error: unknown option '--bogus' (see 'geofence validate --help')\n")
        let n = try CLI.run(["validate", "--fences", "x.csv", "--min-radius", "abc"])
        XCTAssertEqual(n.status, 64)
        XCTAssertEqual(n.stderr, "geofence validate: error: option '--min-radius' expects a number, got 'abc'\n")
        let rep = try CLI.run(["validate", "--fences", "x.csv", "--repair"])
        XCTAssertEqual(rep.status, 64)
    }

    func testMissingFileIs66() throws {
        let r = try CLI.run(["validate", "--fences", "/nonexistent/fences.geojson"])
        XCTAssertEqual(r.status, 66)
        XCTAssertEqual(r.stderr, "geofence validate: error: /nonexistent/fences.geojson: fences file not found\n")
    }

    func testMalformedIs65() throws {
        let p = CLI.fixture("bad/malformed.geojson")
        let r = try CLI.run(["validate", "--fences", p])
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "geofence validate: error: \(p): malformed JSON at line 2, column 30: unexpected '}', expected a member name in double quotes\n")
    }

    func testProblemsListedAndRepair() throws {
        let p = CLI.fixture("bad/bowtie.geojson")
        let r = try CLI.run(["validate", "--fences", p])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stdout.contains("\(p): 2 features read: 2 fences (0 circles, 2 polygons)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  \(p): feature 1 (id \"bowtie\"): invalid polygon: Self-intersection[1 1] [repairable]"), r.stdout)
        let out = CLI.tempPath("repaired.geojson")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let fixed = try CLI.run(["validate", "--fences", p, "--repair", "-o", out])
        XCTAssertEqual(fixed.status, 0, fixed.stdout + fixed.stderr)
        XCTAssertTrue(fixed.stdout.contains("repair: 1 fence repaired, 2 written to \(out)"), fixed.stdout)
        let again = try CLI.run(["validate", "--fences", out])
        XCTAssertEqual(again.status, 0, again.stdout)
        XCTAssertTrue(again.stdout.contains("total: 2 fences, 0 problems"), again.stdout)
        XCTAssertTrue(again.stdout.contains("\"bow tie\"") == false)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(text.contains("\"kept\":{\"nested\":[1,2.50]}"), text)
    }

    func testUnrepairableWritesNothing() throws {
        let p = CLI.fixture("bad/radius_values.geojson")
        let out = CLI.tempPath("never.geojson")
        let r = try CLI.run(["validate", "--fences", p, "--repair", "-o", out])
        XCTAssertEqual(r.status, 65)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertTrue(r.stdout.contains("repair: 4 problems cannot be repaired; nothing written"), r.stdout)
    }
}
