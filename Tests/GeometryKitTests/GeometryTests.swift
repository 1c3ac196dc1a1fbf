import XCTest
@testable import GeometryKit

final class GeometryTests: XCTestCase {
    var ctx: GEOSContext!

    override func setUpWithError() throws { ctx = try GEOSContext() }
    override func tearDown() { ctx = nil }

    // MARK: - Round trips

    func testWKTRoundTrip() throws {
        let text = try fixture("polygon-with-hole.wkt")
        XCTAssertEqual(try ctx.geometry(wkt: text).wkt(), text)
        let precise = "POINT (0.1 -33.868820000000014)"
        XCTAssertEqual(try ctx.geometry(wkt: precise).wkt(), precise)
        XCTAssertEqual(try ctx.geometry(wkt: "POINT (0.123456 1.5)").wkt(precision: 2), "POINT (0.12 1.5)")
        // The writer is shared: precision does not stick to the next call.
        XCTAssertEqual(try ctx.geometry(wkt: "POINT (0.123456 1.5)").wkt(), "POINT (0.123456 1.5)")
    }

    func testWKBRoundTrip() throws {
        let g = try ctx.geometry(wkt: try fixture("polygon-with-hole.wkt"))
        let bytes = try g.wkb()
        XCTAssertEqual(bytes.count, 1 + 4 + 4 + (4 + 5 * 16) * 2)
        XCTAssertEqual(bytes[0], 1, "little-endian")
        let back = try ctx.geometry(wkb: bytes)
        XCTAssertEqual(try back.wkt(), try g.wkt())
        XCTAssertEqual(try back.wkb(), bytes)
    }

    func testGeoJSONRoundTrip() throws {
        let g = try ctx.geometry(wkt: try fixture("polygon-with-hole.wkt"))
        let json = try g.geoJSON()
        XCTAssertEqual(json, #"{"type":"Polygon","coordinates":[[[0.0,0.0],[10.0,0.0],[10.0,10.0],[0.0,10.0],[0.0,0.0]],[[2.0,2.0],[2.0,4.0],[4.0,4.0],[4.0,2.0],[2.0,2.0]]]}"#)
        XCTAssertEqual(try ctx.geometry(geoJSON: json).wkt(), try g.wkt())
        let multi = #"{"type":"MultiPolygon","coordinates":[[[[102.0,2.0],[103.0,2.0],[103.0,3.0],[102.0,3.0],[102.0,2.0]]]]}"#
        XCTAssertEqual(try ctx.geometry(geoJSON: multi).geoJSON(), multi)
    }

    func testGeoJSONFeatureGivesItsGeometry() throws {
        let feature = #"{"type":"Feature","properties":{"name":"x"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#
        XCTAssertEqual(try ctx.geometry(geoJSON: feature).wkt(), "POINT (2.35 48.85)")
    }

    // MARK: - Measures

    func testBounds() throws {
        let b = try ctx.geometry(wkt: "MULTIPOLYGON (((-5 1, 0 1, 0 3, -5 1)), ((10 -2, 12 -2, 12 0, 10 -2)))").bounds()
        XCTAssertEqual(b.minX, -5); XCTAssertEqual(b.minY, -2); XCTAssertEqual(b.maxX, 12); XCTAssertEqual(b.maxY, 3)
        XCTAssertThrowsError(try ctx.geometry(wkt: "POLYGON EMPTY").bounds()) { error in
            XCTAssertEqual(error as? GeometryInputError, .emptyGeometry(operation: "bounds"))
        }
    }

    func testMinimumBoundingCircleOfSquare() throws {
        let circle = try ctx.geometry(wkt: "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))").minimumBoundingCircle()
        XCTAssertEqual(circle.centerX, 1, accuracy: 1e-12)
        XCTAssertEqual(circle.centerY, 1, accuracy: 1e-12)
        XCTAssertEqual(circle.radius, 2.0.squareRoot(), accuracy: 1e-12)
        let offset = try ctx.geometry(wkt: "POLYGON ((10 20, 16 20, 16 26, 10 26, 10 20))").minimumBoundingCircle()
        XCTAssertEqual(offset.centerX, 13, accuracy: 1e-12)
        XCTAssertEqual(offset.centerY, 23, accuracy: 1e-12)
        XCTAssertEqual(offset.radius, 18.0.squareRoot(), accuracy: 1e-12)
    }

    func testDistance() throws {
        let square = try ctx.geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")
        XCTAssertEqual(try square.distance(to: ctx.point(x: 13, y: 14)), 5)
        XCTAssertEqual(try square.distance(to: ctx.point(x: 5, y: 5)), 0)
    }

    // MARK: - Predicates

    func testCoversIncludesBoundaryContainsDoesNot() throws {
        let polygon = try ctx.geometry(wkt: try fixture("polygon-with-hole.wkt"))
        let cases: [(x: Double, y: Double, covers: Bool, contains: Bool)] = [
            (5, 5, true, true),      // inside
            (10, 5, true, false),    // on the shell's edge
            (0, 0, true, false),     // on a vertex
            (3, 3, false, false),    // in the hole
            (2, 3, true, false),     // on the hole's edge
            (11, 5, false, false),   // outside
        ]
        for c in cases {
            let point = try ctx.point(x: c.x, y: c.y)
            XCTAssertEqual(try polygon.covers(point), c.covers, "covers \(c)")
            XCTAssertEqual(try polygon.contains(point), c.contains, "contains \(c)")
        }
    }

    // MARK: - Validity

    func testSelfIntersectingBowtie() throws {
        let bowtie = try ctx.geometry(wkt: try fixture("bowtie.wkt"))
        XCTAssertFalse(try bowtie.isValid())
        XCTAssertEqual(try bowtie.validityReason(), "Self-intersection[1 1]")
        let repaired = try bowtie.makeValid()
        XCTAssertTrue(try repaired.isValid())
        XCTAssertNil(try repaired.validityReason())
        XCTAssertEqual(try repaired.typeName, "MultiPolygon")
        XCTAssertEqual(try repaired.area(), 2, accuracy: 1e-12)   // two triangles of area 1
        XCTAssertEqual(try repaired.polygons().count, 2)
    }

    func testValidPolygonHasNoReason() throws {
        XCTAssertNil(try ctx.geometry(wkt: try fixture("polygon-with-hole.wkt")).validityReason())
        XCTAssertEqual(try ctx.geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (20 20, 20 21, 21 21, 20 20))").validityReason(),
                       "Hole lies outside shell[20 20]")
    }

    // MARK: - Extraction

    func testPolygonsOfPolygonWithHole() throws {
        let polygons = try ctx.geometry(wkt: try fixture("polygon-with-hole.wkt")).polygons()
        XCTAssertEqual(polygons.count, 1)
        XCTAssertEqual(polygons[0].count, 2)
        XCTAssertEqual(polygons[0][0].map { [$0.x, $0.y] }, [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]])
        XCTAssertEqual(polygons[0][1].map { [$0.x, $0.y] }, [[2, 2], [2, 4], [4, 4], [4, 2], [2, 2]])
    }

    func testPolygonsOfMultiPolygonAndCollection() throws {
        let multi = try ctx.geometry(wkt: "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 9 5, 9 9, 5 9, 5 5), (6 6, 6 7, 7 7, 6 6)))")
        let polygons = try multi.polygons()
        XCTAssertEqual(polygons.map(\.count), [1, 2])
        XCTAssertEqual(polygons[1][1].map { [$0.x, $0.y] }, [[6, 6], [6, 7], [7, 7], [6, 6]])
        // The extraction feeds the builder back to the same geometry.
        XCTAssertEqual(try ctx.multiPolygon(polygons).wkt(), try multi.wkt())

        let collection = try ctx.geometry(wkt: "GEOMETRYCOLLECTION (POLYGON ((0 0, 1 0, 1 1, 0 0)), MULTIPOLYGON (((2 2, 3 2, 3 3, 2 2))), POLYGON EMPTY)")
        XCTAssertEqual(try collection.polygons().map { $0[0][0].x }, [0, 2])
    }

    func testPolygonsOfOtherTypesThrow() throws {
        XCTAssertThrowsError(try ctx.geometry(wkt: "LINESTRING (0 0, 1 1)").polygons()) { error in
            XCTAssertEqual(error as? GeometryInputError, .notPolygonal(typeName: "LineString"))
        }
        XCTAssertThrowsError(try ctx.geometry(wkt: "GEOMETRYCOLLECTION (POLYGON ((0 0, 1 0, 1 1, 0 0)), POINT (1 1))").polygons()) { error in
            XCTAssertEqual(error as? GeometryInputError, .notPolygonal(typeName: "Point"))
        }
    }

    func testTypeNamesAndEmptiness() throws {
        XCTAssertEqual(try ctx.geometry(wkt: "POINT (1 1)").typeName, "Point")
        XCTAssertEqual(try ctx.geometry(wkt: "GEOMETRYCOLLECTION EMPTY").typeName, "GeometryCollection")
        XCTAssertTrue(try ctx.geometry(wkt: "GEOMETRYCOLLECTION EMPTY").isEmpty)
        XCTAssertFalse(try ctx.geometry(wkt: "POINT (1 1)").isEmpty)
    }
}
