import Foundation
import XCTest
import GeofenceTestSupport

/// Fence inputs as users have them (docs/fences.md#field-mapping): mapped and recognised
/// names, delimiters, units, CRS rules, gzip and stdin, duplicates, every problem of a row,
/// and the winding of the GeoJSON we write.
final class FenceInputCommandTests: XCTestCase {
    private func write(_ name: String, _ text: String) throws -> String {
        let path = CLI.tempPath(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The ids and boundary distances `contains` answers at a point.
    private func inside(_ args: [String], at: String = "48.85,2.35", stdin: String? = nil) throws -> String {
        let r = try CLI.run(["contains"] + args + ["--at", at], stdin: stdin)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func testRecognisedHeadersAndDelimitersReadAsTheCanonicalCSV() throws {
        let canonical = try inside(["-f", try write("canon.csv", "id,lat,lon,radius\nA,48.85,2.35,100\nB,48.851,2.351,200\n")])
        XCTAssertTrue(canonical.contains(#"{"id":"A","boundary_distance":100,"#), canonical)
        let variants = [
            "store_id,latitude,longitude,radius_m\nA,48.85,2.35,100\nB,48.851,2.351,200\n",
            "ID;Lat;Lon;Radius\nA;48.85;2.35;100\nB;48.851;2.351;200\n",
            "ID\tLat\tLng\tRadius\nA\t48.85\t2.35\t100\nB\t48.851\t2.351\t200\n",
            "site_id|LATITUDE|LONG|r\nA|48.85|2.35|100\nB|48.851|2.351|200\n",
            "uuid,Latitude,Longitude,radius_km\nA,48.85,2.35,0.1\nB,48.851,2.351,0.2\n",
        ]
        for (k, text) in variants.enumerated() {
            XCTAssertEqual(try inside(["-f", try write("variant\(k).csv", text)]), canonical, text)
        }
        // geojson.io-style: the id and radius_m in properties.
        let io = try write("io.geojson", #"""
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"store_id":"A","radius_m":100}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[2.351,48.851]},"properties":{"store_id":"B","radius_m":200}}]}
        """#)
        XCTAssertEqual(try inside(["-f", io]), canonical)
        // The same names as GDAL attributes: the file converted to a GeoPackage by ogr2ogr.
        if let ogr = GDALRoundTripTests.ogr2ogrPath {
            let gpkg = CLI.tempPath("io.gpkg")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: ogr)
            p.arguments = ["-f", "GPKG", gpkg, io]
            try p.run(); p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
            XCTAssertEqual(try inside(["-f", gpkg]), canonical)
        }
        // A forced delimiter that does not fit says so, with the one the header seems to use.
        let semi = try write("semi.csv", "id;lat;lon;radius\nA;48.85;2.35;100\n")
        let r = try CLI.run(["contains", "-f", semi, "--delimiter", ",", "--at", "48.85,2.35"])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stderr.contains(#"(columns: "id;lat;lon;radius"); the header looks semicolon-separated: pass --delimiter ';'"#), r.stderr)
    }

    func testMissingColumnSuggestsTheFieldsLineAndFieldsMapIt() throws {
        let path = try write("odd.csv", "code,lat_deg,lng_deg,size\nA,48.85,2.35,0.1\n")
        let r = try CLI.run(["contains", "-f", path, "--at", "48.85,2.35"])
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "geofence contains: error: \(path):1: CSV header has no id, lat, lon, radius column (columns: \"code\", \"lat_deg\", \"lng_deg\", \"size\"); use --fields id=code,lat=lat_deg,lon=lng_deg,radius=size\n")
        let mapped = try inside(["-f", path, "--fields", "id=code,lat=lat_deg,lon=lng_deg,radius=size", "--radius-unit", "km"])
        XCTAssertTrue(mapped.contains(#"{"id":"A","boundary_distance":100,"#), mapped)
        let miles = try inside(["-f", path, "--fields", "id=code,lat=lat_deg,lon=lng_deg", "--radius-field", "size", "--radius-unit", "mi"])
        XCTAssertTrue(miles.contains(#"{"id":"A","boundary_distance":160.934,"#), miles)
        let bad = try CLI.run(["contains", "-f", path, "--fields", "id=nope,lat=lat_deg,lon=lng_deg,radius=size", "--at", "0,0"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains(#"--fields maps id to "nope", which is not a column"#), bad.stderr)
    }

    func testDefaultRadiusForPointsWithout() throws {
        let csv = try write("noradius.csv", "id,lat,lon,radius\nA,48.85,2.35,\nB,48.851,2.351,300\n")
        let strict = try CLI.run(["contains", "-f", csv, "--at", "48.85,2.35"])
        XCTAssertEqual(strict.status, 65)
        let out = try inside(["-f", csv, "--default-radius", "250"])
        XCTAssertTrue(out.contains(#"{"id":"A","boundary_distance":250,"#), out)
        let geo = try write("noradius.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"A","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{}}]}"#)
        XCTAssertTrue(try inside(["-f", geo, "--default-radius", "250"]).contains(#"{"id":"A","boundary_distance":250,"#))
    }

    func testWKTColumnGivesPolygonFences() throws {
        let csv = try write("wkt.csv", "id,wkt\nsq,\"POLYGON((2.34 48.84, 2.36 48.84, 2.36 48.86, 2.34 48.86, 2.34 48.84))\"\nfar,\"POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))\"\n")
        let out = try inside(["-f", csv])
        XCTAssertTrue(out.contains(#"{"id":"sq","#) && out.contains(#""shape":"polygon""#), out)
        XCTAssertFalse(out.contains(#""far""#), out)
    }

    func testCRSRefusesLatLonColumnsAndHonoursTheGeoJSONMember() throws {
        let csv = try write("latlon.csv", "id,latitude,longitude,radius\nA,48.85,2.35,100\n")
        let r = try CLI.run(["validate", "-f", csv, "--crs", "EPSG:2154"])
        XCTAssertEqual(r.status, 64, r.stdout)
        XCTAssertTrue(r.stderr.contains("--crs EPSG:2154 applies to projected x/y columns, but this header has latitude/longitude columns (latitude, longitude)"), r.stderr)
        // Lambert-93 x/y read with --crs, and the same positions in a GeoJSON naming its CRS.
        let xy = try write("xy.csv", "id,x,y,radius\nA,652469,6862035,100\n")
        let member = try write("member.geojson", #"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2154"}},"features":[{"type":"Feature","id":"A","geometry":{"type":"Point","coordinates":[652469,6862035]},"properties":{"radius":100}}]}"#)
        let plain = try write("plain.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"A","geometry":{"type":"Point","coordinates":[652469,6862035]},"properties":{"radius":100}}]}"#)
        let fromCSV = try CLI.run(["nearest", "-f", xy, "--crs", "EPSG:2154", "--at", "48.8566,2.3522", "-k", "2"])
        let fromMember = try CLI.run(["nearest", "-f", member, "--at", "48.8566,2.3522", "-k", "2"])
        let fromFlag = try CLI.run(["nearest", "-f", plain, "--crs", "EPSG:2154", "--at", "48.8566,2.3522", "-k", "2"])
        XCTAssertEqual(fromCSV.status, 0, fromCSV.stderr)
        XCTAssertEqual(fromMember.stdout, fromCSV.stdout, fromMember.stderr)
        XCTAssertEqual(fromFlag.stdout, fromCSV.stdout)
        // Paris is within a few hundred metres of that Lambert-93 point.
        XCTAssertTrue(fromCSV.stdout.contains(#""monitor":[{"id":"A""#), fromCSV.stdout)
        let conflict = try CLI.run(["validate", "-f", member, "--crs", "EPSG:3857"])
        XCTAssertEqual(conflict.status, 64)
        XCTAssertTrue(conflict.stderr.contains("conflicts with the \"crs\" member"), conflict.stderr)
        // Without a CRS, projected-looking coordinates get a hint naming --crs.
        let hint = try CLI.run(["validate", "-f", plain])
        XCTAssertEqual(hint.status, 65)
        XCTAssertTrue(hint.stdout.contains("the coordinates look projected (not degrees): give their CRS with --crs EPSG:n"), hint.stdout)
    }

    func testDuplicateKeepsTheFirstDefinitionEverywhere() throws {
        let csv = try write("dup.csv", "id,lat,lon,radius\nA,48.85,2.35,100\nA,48.85,2.35,500\nA,48.85,2.35,700\nB,48.851,2.351,200\n")
        let r = try CLI.run(["contains", "-f", csv, "--skip-invalid", "--at", "48.85,2.35"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains(#"{"id":"A","boundary_distance":100,"#), r.stdout)
        XCTAssertEqual(r.stderr, "geofence contains: skipped 2 fence problems: duplicate identifier 2\n")
        let out = CLI.tempPath("dup-subset.csv")
        let s = try CLI.run(["subset", "-f", csv, "--skip-invalid", "--bbox", "2,48,3,49", "--format", "csv", "-o", out])
        XCTAssertEqual(s.status, 0, s.stderr)
        let written = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(written.contains("A,48.85,2.35,100"), written)
        XCTAssertFalse(written.contains(",500") || written.contains(",700"), written)
        // validate lists each later definition and warns about the first one (radius under 150 m).
        let v = try CLI.run(["validate", "-f", csv, "--min-radius", "150"])
        XCTAssertEqual(v.status, 65)
        XCTAssertTrue(v.stdout.contains("duplicate identifier: 2"), v.stdout)
        XCTAssertTrue(v.stdout.contains("(id \"A\"): radius 100"), v.stdout)
    }

    func testEveryProblemOfARowAndEmptyOptionCells() throws {
        let csv = try write("rows.csv", "id,lat,lon,radius,dwell,notifyOnExit\nA,48.85,2.35,100,,\nB,95,200,-1,x,maybe\n")
        let v = try CLI.run(["validate", "-f", csv])
        XCTAssertEqual(v.status, 65)
        for m in ["radius must be greater than 0 metres, got -1", "latitude is 95", "longitude is 200",
                  "dwell must be a number of seconds ≥ 0, got \"x\"", "notifyOnExit must be true or false, got \"maybe\""] {
            XCTAssertTrue(v.stdout.contains("rows.csv:3 (id \"B\"): \(m)"), m + "\n" + v.stdout)
        }
        XCTAssertFalse(v.stdout.contains("rows.csv:2"), v.stdout)
        let geo = try write("rows.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"B","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"radius":"big","dwell":-1,"repeats":"often","dwell2":""}},{"type":"Feature","id":"A","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"radius":5,"dwell":""}}]}"#)
        let g = try CLI.run(["validate", "-f", geo])
        XCTAssertTrue(g.stdout.contains("total: 1 fence, 3 problems"), g.stdout)
    }

    func testGzipAndStandardInput() throws {
        let text = "id,lat,lon,radius\nA,48.85,2.35,100\n"
        let plain = try write("gz.csv", text)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        p.arguments = ["-kf", plain]
        try p.run(); p.waitUntilExit()
        let expected = try inside(["-f", plain])
        XCTAssertEqual(try inside(["-f", plain + ".gz"]), expected)
        // gzip by magic bytes, whatever the name.
        let renamed = CLI.tempPath("gz-noext")
        try FileManager.default.copyItem(atPath: plain + ".gz", toPath: renamed)
        XCTAssertEqual(try inside(["-f", renamed]), expected)
        XCTAssertEqual(try inside(["-f", "-"], stdin: text), expected)
        // Two members (the file split at a row, each part gzipped): one file. Cut short, or a
        // trailer damaged: an error naming the file, exit 65.
        let gz = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain + ".gz")))
        let head = try write("gz-head.csv", "id,lat,lon,radius\n"), tail = try write("gz-tail.csv", "A,48.85,2.35,100\n")
        for part in [head, tail] {
            let z = Process()
            z.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
            z.arguments = ["-kf", part]
            try z.run(); z.waitUntilExit()
        }
        let members = CLI.tempPath("gz-members.csv.gz")
        try (Data(contentsOf: URL(fileURLWithPath: head + ".gz")) + Data(contentsOf: URL(fileURLWithPath: tail + ".gz")))
            .write(to: URL(fileURLWithPath: members))
        XCTAssertEqual(try inside(["-f", members]), expected)
        let cut = CLI.tempPath("gz-cut.csv.gz"), damaged = CLI.tempPath("gz-damaged.csv.gz")
        try Data(gz.prefix(gz.count - 6)).write(to: URL(fileURLWithPath: cut))
        var flipped = gz
        flipped[gz.count - 6] ^= 0xFF          // the CRC-32
        try Data(flipped).write(to: URL(fileURLWithPath: damaged))
        for (path, message) in [(cut, "gzip stream is truncated"), (damaged, "corrupt gzip data (incorrect data check)")] {
            let r = try CLI.run(["validate", "-f", path])
            XCTAssertEqual(r.status, 65, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(path): \(message)"), r.stderr)
        }
        // Standard input is read once, so a command loading fences twice (subset) still sees them.
        let s = try CLI.run(["subset", "-f", "-", "--bbox", "2,48,3,49", "--format", "csv"], stdin: text)
        XCTAssertEqual(s.status, 0, s.stderr)
        XCTAssertTrue(s.stdout.contains("A,48.85,2.35,100"), s.stdout)
    }

    func testGeoJSONWeWriteHasRFC7946Winding() throws {
        // Exterior clockwise, hole counter-clockwise: the opposite of RFC 7946.
        let geo = try write("cw.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"P","geometry":{"type":"Polygon","coordinates":[[[0,0],[0,10],[10,10],[10,0],[0,0]],[[2,2],[4,2],[4,4],[2,4],[2,2]]]},"properties":{}}]}"#)
        let out = CLI.tempPath("wound.geojson")
        let r = try CLI.run(["subset", "-f", geo, "--bbox", "-1,-1,11,11", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let repaired = CLI.tempPath("wound-repair.geojson")
        let v = try CLI.run(["validate", "-f", geo, "--repair", "-o", repaired])
        XCTAssertEqual(v.status, 0, v.stderr)
        for path in [out, repaired] {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
            let feature = (json["features"] as! [[String: Any]])[0]
            let rings = (feature["geometry"] as! [String: Any])["coordinates"] as! [[[Double]]]
            /// Shoelace sum: positive counter-clockwise.
            func area(_ r: [[Double]]) -> Double { zip(r, r.dropFirst()).reduce(0) { $0 + $1.0[0] * $1.1[1] - $1.1[0] * $1.0[1] } }
            XCTAssertGreaterThan(area(rings[0]), 0, path)
            XCTAssertLessThan(area(rings[1]), 0, path)
            XCTAssertEqual(Set(rings[0].map { "\($0)" }), Set([[0, 0], [0, 10], [10, 10], [10, 0]].map { "\($0.map(Double.init))" }))
        }
    }
}
