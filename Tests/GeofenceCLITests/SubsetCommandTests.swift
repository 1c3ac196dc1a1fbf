import Foundation
import XCTest
import GeofenceTestSupport

final class SubsetCommandTests: XCTestCase {
    func testBboxOnRealData() throws {
        let r = try CLI.run(["subset", "--fences", CLI.data("airports.csv"), "--bbox", "4.8,45.6,5.0,45.8", "--format", "csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, """
        id,lat,lon,radius,name,iata,country
        LFHJ,45.6542,4.91361,1000,Lyon Corbas Airport,,FR
        LFLY,45.7272,4.94427,3000,Lyon-Bron Airport,LYN,FR

        """)
        XCTAssertEqual(r.stderr, "geofence subset: 2 of 28298 fences (bbox 4.8,45.6,5.0,45.8, intersects)\n")
    }

    func testAntimeridianBboxIsNotAnError() throws {
        let r = try CLI.run(["subset", "-f", CLI.data("airports.csv"), "--bbox", "179,-20,-179,-10", "--format", "ndjson"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 11)
        XCTAssertTrue(r.stdout.contains(#""id":"NFMO""#) && r.stdout.contains(#""id":"NFCI""#))
        XCTAssertEqual(r.stderr, "geofence subset: 11 of 28298 fences (bbox 179,-20,-179,-10 (across the antimeridian), intersects)\n")
    }

    func testWithinNearAndNearest() throws {
        let region = CLI.fixture("subset/region_holes.geojson")
        let w = try CLI.run(["subset", "-f", CLI.data("us_counties_va_nc.geojson"), "--within", region, "--mode", "within", "-q"])
        XCTAssertEqual(w.status, 0, w.stderr)
        XCTAssertTrue(w.stdout.hasPrefix(#"{"type":"FeatureCollection","features":["#))
        XCTAssertFalse(w.stdout.contains(#""id":"51760""#), "Richmond lies in the region's hole")
        XCTAssertEqual(w.stderr, "")
        let n = try CLI.run(["subset", "-f", CLI.data("ports.csv"), "--near", "36.85,-76.30", "--radius", "20000", "--format", "csv"])
        XCTAssertEqual(n.status, 0, n.stderr)
        XCTAssertTrue(n.stdout.hasPrefix("id,lat,lon,radius,name,alternate_name,unlocode,country,harbor_size,harbor_type\nWPI8280,"), n.stdout)
        let k = try CLI.run(["subset", "-f", CLI.data("airports.csv"), "--nearest", "3", "--at", "45.764,4.8357", "--format", "csv"])
        XCTAssertEqual(k.stdout.split(separator: "\n").dropFirst().map { String($0.prefix(4)) }, ["LFLY", "LFKL", "LFHJ"])
        XCTAssertEqual(k.stderr, "geofence subset: 3 of 28298 fences (3 nearest to 45.764,4.8357)\n")
    }

    func testEmptyResultIsNotAnError() throws {
        let out = CLI.tempPath("empty.geojson")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try CLI.run(["subset", "-f", CLI.data("airports.csv"), "--bbox", "-30,-50,-29,-49", "-o", out])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "geofence subset: no fence matches (bbox -30,-50,-29,-49, intersects) among 28298 fences; the output is empty\n")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n")
    }

    func testUsageAndDataErrors() throws {
        let f = CLI.data("airports.csv")
        func check(_ args: [String], _ code: Int32, _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let r = try CLI.run(["subset"] + args)
            XCTAssertEqual(r.status, code, r.stderr, file: file, line: line)
            XCTAssertEqual(r.stderr, message + "\n", file: file, line: line)
        }
        try check(["-f", f], 64, "geofence subset: error: give one of --bbox, --within, --near (with --radius), --nearest (with --at) or --tiles")
        try check(["-f", f, "--bbox", "0,0,1,1", "--near", "1,1"], 64, "geofence subset: error: give only one selector, got --bbox and --near")
        try check(["-f", f, "--near", "1,1"], 64, "geofence subset: error: --near needs --radius <metres>")
        try check(["-f", f, "--bbox", "0,1,1"], 64, "geofence subset: error: option '--bbox' expects W,S,E,N in degrees (west, south, east, north), got '0,1,1'")
        try check(["-f", f, "--bbox", "0,10,1,5"], 64, "geofence subset: error: '--bbox' south 10.0 is north of north 5.0 (W,S,E,N order)")
        try check(["-f", f, "--nearest", "3"], 64, "geofence subset: error: --nearest needs --at LAT,LON")
        try check(["-f", f, "--tiles", "5"], 64, "geofence subset: error: --tiles needs --out <dir>")
        try check(["-f", f, "--tiles", "5", "--out", "/tmp/x", "--bbox", "0,-86,10,0"], 64,
                   "geofence subset: error: south latitude: -86 is outside the Web Mercator tile range ±85.0511287798°")
        try check(["-f", f, "--tiles", "5", "--out", "/tmp/x", "--at", "89.5,0"], 64,
                   "geofence subset: error: latitude: 89.5 is outside the Web Mercator tile range ±85.0511287798°")
        try check(["-f", f, "--out", "/tmp/x", "--bbox", "0,0,1,1"], 64, "geofence subset: error: option '--out' needs --tiles")
        try check(["-f", CLI.data("us_counties_va_nc.geojson"), "--bbox", "-77,36,-76,37", "--format", "csv"], 64,
                   "geofence subset: error: --format: CSV holds circles only; the result has 22 polygon fences (first: 37015); write GeoJSON or NDJSON")
        let missing = CLI.tempPath("none.geojson")
        try check(["-f", f, "--within", missing], 66, "geofence subset: error: \(missing): polygon file not found")
    }

    func testTilesBuildIsStableAndReportsChanges() throws {
        let dir = CLI.tempPath("tiles"), other = CLI.tempPath("tiles2")
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: other) }
        let args = ["subset", "-f", CLI.data("ports.csv"), "--tiles", "7", "-k", "10", "--bbox", "-80,34,-70,42", "--reach", "50000"]
        let first = try CLI.run(args + ["--out", dir, "-j", "1"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.hasPrefix("geofence subset: zoom 7, k 10: "), first.stderr)
        XCTAssertTrue(first.stderr.contains(" omitted: no fence within 50000 m), "), first.stderr)
        let second = try CLI.run(args + ["--out", other, "-j", "2"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let m1 = try Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json"))
        XCTAssertEqual(m1, try Data(contentsOf: URL(fileURLWithPath: other + "/manifest.json")))
        // Again into the same directory: compared with the manifest there.
        let changes = CLI.tempPath("changes.json")
        defer { try? FileManager.default.removeItem(atPath: changes) }
        let third = try CLI.run(args + ["--out", dir, "--changes", changes])
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertTrue(third.stderr.contains("geofence subset: vs previous manifest: 0 changed, 0 added, 0 removed, "), third.stderr)
        XCTAssertTrue(try String(contentsOfFile: changes, encoding: .utf8).hasPrefix(#"{"added":[],"removed":[],"changed":[],"unchanged":"#))
        XCTAssertEqual(m1, try Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json")))
    }

    func testHelp() throws {
        let r = try CLI.run(["subset", "--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("--tiles <zoom>"))
        XCTAssertTrue(r.stdout.contains("W > E crosses the antimeridian"))
        let top = try CLI.run(["--help"])
        XCTAssertTrue(top.stdout.contains("  subset      "))
    }
}
