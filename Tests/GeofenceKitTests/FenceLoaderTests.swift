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

func fixture(_ name: String) -> String {
    Bundle.module.resourcePath! + "/Fixtures/" + name
}

final class FenceLoaderTests: XCTestCase {
    func load(_ name: String) throws(GeofenceError) -> FenceSet {
        try FenceSet.load(paths: [fixture(name)], crs: nil)
    }

    func problems(_ name: String) throws -> [String] {
        try load(name).problems.map { $0.description }
    }

    func assertThrows(_ name: String, _ expected: String, code: GeofenceError.Category = .badData, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try load(name)
            XCTFail("expected an error", file: file, line: line)
        } catch {
            XCTAssertEqual(error.description, expected, file: file, line: line)
            XCTAssertEqual(error.category, code, file: file, line: line)
        }
    }

    func testMalformedJSON() {
        let p = fixture("bad/malformed.geojson")
        assertThrows("bad/malformed.geojson", "\(p): malformed JSON at line 2, column 30: unexpected '}', expected a member name in double quotes")
    }

    func testEmptyFile() {
        let p = fixture("bad/empty.geojson")
        assertThrows("bad/empty.geojson", "\(p): empty file, expected a GeoJSON FeatureCollection")
    }

    func testMissingFile() {
        assertThrows("bad/nope.geojson", "\(fixture("bad/nope.geojson")): fences file not found", code: .missingInput)
    }

    func testCSVMissingColumn() {
        let p = fixture("bad/missing_column.csv")
        assertThrows("bad/missing_column.csv", "\(p):1: CSV header has no lon column (columns: \"id\", \"lat\", \"radius\"); use --fields id=id,lat=lat,lon=NAME,radius=radius")
    }

    func testFeatureWithoutGeometry() throws {
        let s = try load("bad/no_geometry.geojson")
        XCTAssertEqual(s.fences.map(\.id), ["ok"])
        XCTAssertEqual(s.problems.map(\.description), ["\(fixture("bad/no_geometry.geojson")): feature 1 (id \"nogeom\"): feature has no geometry"])
        XCTAssertEqual(s.problems.first?.kind, .missingGeometry)
    }

    func testPointWithoutRadius() throws {
        XCTAssertEqual(try problems("bad/point_no_radius.geojson"),
                       ["\(fixture("bad/point_no_radius.geojson")): feature 0 (id \"norad\"): Point feature has no properties.radius (or radius_m, radius_km, r...); map one with --radius-field NAME or give --default-radius"])
    }

    func testBadRadiusValuesGeoJSON() throws {
        let p = fixture("bad/radius_values.geojson")
        XCTAssertEqual(try problems("bad/radius_values.geojson"), [
            "\(p): feature 0 (id \"neg\"): radius must be greater than 0 metres, got -5",
            "\(p): feature 1 (id \"zero\"): radius must be greater than 0 metres, got 0",
            "\(p): feature 2 (id \"inf\"): radius must be a finite number of metres, got 1e999",
            "\(p): feature 3 (id \"str\"): radius must be a number of metres, got a string",
        ])
    }

    func testBadRadiusValuesCSV() throws {
        let p = fixture("bad/radius_values.csv")
        XCTAssertEqual(try problems("bad/radius_values.csv"), [
            "\(p):2 (id \"nan\"): radius must be a finite number of metres, got NaN",
            "\(p):3 (id \"inf\"): radius must be a finite number of metres, got inf",
            "\(p):4 (id \"neg\"): radius must be greater than 0 metres, got -1",
            "\(p):5 (id \"text\"): radius \"abc\" is not a number",
        ])
    }

    func testLatitude91() throws {
        XCTAssertEqual(try problems("bad/lat91.geojson"),
                       ["\(fixture("bad/lat91.geojson")): feature 0 (id \"north\"): latitude is 91, out of range [-90, 90]"])
    }

    func testUnclosedRingIsRepairable() throws {
        let s = try load("bad/unclosed_ring.geojson")
        XCTAssertEqual(s.problems.map(\.description), [
            "\(fixture("bad/unclosed_ring.geojson")): feature 0 (id \"open\"): exterior ring of Polygon is not closed: first point [0, 0] differs from last point [0, 1]",
        ])
        XCTAssertTrue(s.problems[0].repairable)
        // The loader keeps the fence with the ring closed, for --repair.
        guard case .polygon(let polys) = s.fences.first?.shape else { return XCTFail("no polygon") }
        XCTAssertEqual(polys[0][0].first, polys[0][0].last)
        XCTAssertEqual(polys[0][0].count, 5)
        // Strict commands refuse it.
        XCTAssertThrowsError(try s.usable(skipInvalid: false))
        XCTAssertEqual(try s.usable(skipInvalid: true).fences.count, 0)
    }

    func testSelfIntersectingPolygonAndRepair() throws {
        let s = try load("bad/bowtie.geojson")
        XCTAssertEqual(s.problems.map(\.description), [
            "\(fixture("bad/bowtie.geojson")): feature 1 (id \"bowtie\"): invalid polygon: Self-intersection[1 1]",
        ])
        let repaired = try FenceValidator().repair(s)
        XCTAssertEqual(repaired.repaired, ["bowtie"])
        XCTAssertTrue(repaired.unrepairable.isEmpty)
        XCTAssertEqual(repaired.fences.map(\.id), ["square", "bowtie"])
        guard case .polygon(let polys) = repaired.fences[1].shape else { return XCTFail("not a polygon") }
        // GEOSMakeValid splits the bow tie into its two triangles, each of area 1.
        XCTAssertEqual(polys.count, 2)
        func area(_ r: [Coordinate]) -> Double {
            var a = 0.0
            for k in 0..<(r.count - 1) { a += r[k].lon * r[k + 1].lat - r[k + 1].lon * r[k].lat }
            return abs(a) / 2
        }
        XCTAssertEqual(polys.map { area($0[0]) }, [1, 1])
        // Properties survive repair.
        XCTAssertEqual(JSONValue.object(repaired.fences[1].properties)["kept"], try JSONParser.parse("{\"nested\":[1,2.50]}"))
        // The repaired set validates cleanly.
        var again = FenceSet()
        again.add(FenceFile(path: "repaired", fences: repaired.fences, problems: []))
        try FenceValidator().checkPolygons(&again)
        XCTAssertEqual(again.problems, [])
    }

    func testDuplicateIdentifiers() throws {
        let p = fixture("bad/duplicates.geojson")
        let s = try load("bad/duplicates.geojson")
        XCTAssertEqual(s.fences.map(\.id), ["same", "other"])
        XCTAssertEqual(s.problems.map(\.description), ["\(p): feature 2 (id \"same\"): duplicate identifier \"same\" (first defined at \(p): feature 0)"])
    }

    func testDuplicateAcrossFiles() throws {
        let a = fixture("good/options.geojson")
        let s = try FenceSet.load(paths: [a, a], crs: nil)
        XCTAssertEqual(s.fences.count, 3)
        XCTAssertEqual(s.problems.count, 3)
        XCTAssertTrue(s.problems.allSatisfy { $0.kind == .duplicateIdentifier })
    }

    func testAntimeridianCrossingRing() throws {
        XCTAssertEqual(try problems("bad/antimeridian.geojson"), [
            "\(fixture("bad/antimeridian.geojson")): feature 0 (id \"fiji\"): exterior ring of Polygon crosses the antimeridian (edge 0 goes from longitude 179.5 to -179.5); split it at ±180° as RFC 7946 §3.1.9 requires",
        ])
    }

    func testBOMAndCRLFAccepted() throws {
        let s = try load("good/bom_crlf.csv")
        XCTAssertEqual(s.problems, [])
        XCTAssertEqual(s.fences.map(\.id), ["louvre", "eiffel"])
        XCTAssertEqual(s.fences[0].shape, .circle(lat: 48.8606, lon: 2.3376, radius: 150))
        XCTAssertEqual(JSONValue.object(s.fences[0].properties)["name"], .string("Musée du Louvre"))
        XCTAssertEqual(JSONValue.object(s.fences[1].properties)["name"], .string("Tour Eiffel, Paris"))
        XCTAssertEqual(s.fences[1].source.line, 3)
    }

    func testOptionsAndIdentifiers() throws {
        let s = try load("good/options.geojson")
        XCTAssertEqual(s.problems, [])
        XCTAssertEqual(s.fences.map(\.id), ["store-1", "42", "bordeaux"])
        let o = s.fences[0].options
        XCTAssertEqual(o.notifyOnEntry, true)
        XCTAssertEqual(o.notifyOnExit, false)
        XCTAssertEqual(o.dwell, 300)
        XCTAssertEqual(o.repeats, false)
        XCTAssertEqual(o.note, "Lyon Bellecour")
        guard case .polygon(let polys) = s.fences[1].shape else { return XCTFail() }
        XCTAssertEqual(polys.count, 2)
        XCTAssertEqual(polys[0].count, 2, "exterior and one hole")
        XCTAssertEqual(JSONValue.object(s.fences[2].properties)["unicode"], .string("café 😀"))
    }

    func testGeoJSONRoundTripKeepsProperties() throws {
        let s = try load("good/options.geojson")
        let text = FenceWriter.geoJSON(s.fences)
        let tmp = NSTemporaryDirectory() + "roundtrip-\(UUID().uuidString).geojson"
        try text.write(toFile: tmp, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let back = try FenceSet.load(paths: [tmp], crs: nil)
        XCTAssertEqual(back.problems, [])
        XCTAssertEqual(back.fences.count, s.fences.count)
        for (a, b) in zip(s.fences, back.fences) {
            XCTAssertEqual(a.id, b.id)
            XCTAssertEqual(a.shape, b.shape)
            XCTAssertEqual(a.options, b.options)
            // Every source property is written back with the same value and literal (4.50 stays 4.50).
            for (k, v) in a.properties { XCTAssertEqual(JSONValue.object(b.properties)[k], v, "property \(k) of \(a.id)") }
        }
        XCTAssertTrue(text.contains("\"score\":4.50"))
        // CSV fences written as GeoJSON keep their extra columns and radius.
        let csv = try load("good/bom_crlf.csv")
        let feature = FenceWriter.feature(csv.fences[0])
        XCTAssertEqual(JSONWriter.string(feature),
                       #"{"type":"Feature","id":"louvre","geometry":{"type":"Point","coordinates":[2.3376,48.8606]},"properties":{"name":"Musée du Louvre","radius":150}}"#)
    }

    func testUnknownCRS() {
        do {
            _ = try FenceSet.load(paths: [fixture("good/options.geojson")], crs: "EPSG:999999")
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.category, .badArgument)
            XCTAssertTrue(error.description.hasPrefix("crs: unknown or unusable CRS 'EPSG:999999': "), error.description)
        }
    }
}
