import XCTest
@testable import GeometryKit

final class GEOSContextTests: XCTestCase {
    let square: [(x: Double, y: Double)] = [(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)]
    let hole: [(x: Double, y: Double)] = [(2, 2), (2, 4), (4, 4), (4, 2), (2, 2)]
    let unclosed: [(x: Double, y: Double)] = [(0, 0), (1, 0), (1, 1), (0, 1)]
    let unclosedMessage = "IllegalArgumentException: Points of LinearRing do not form a closed linestring"

    // MARK: - Readers and their errors

    func testInvalidWKTThrowsGEOSParseMessage() throws {
        let ctx = try GEOSContext()
        assertGEOSError(try ctx.geometry(wkt: "POLYGN ((0 0, 1 0, 1 1, 0 0))"), "ParseException: Unknown type: 'POLYGN'")
        assertGEOSError(try ctx.geometry(wkt: "POLYGON ((0 0, 1 0, 1 1, 0 1))"), unclosedMessage)
    }

    func testInvalidWKBAndGeoJSONThrowGEOSMessages() throws {
        let ctx = try GEOSContext()
        assertGEOSError(try ctx.geometry(wkb: [1, 3, 0, 0]), "ParseException: Unexpected EOF parsing WKB")
        XCTAssertThrowsError(try ctx.geometry(geoJSON: #"{"type":"Polygon","coordinates":[[[0,0],[1,0]]"#)) { error in
            let message = (error as? GEOSError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("ParseException: Error parsing JSON"), message)
        }
    }

    func testEmbeddedNULIsRejectedBeforeGEOS() throws {
        let ctx = try GEOSContext()
        XCTAssertThrowsError(try ctx.geometry(wkt: "POINT (1 1)\u{0}garbage")) { error in
            XCTAssertEqual(error as? GeometryInputError, .embeddedNUL)
        }
    }

    /// The context is long-lived: each error carries its own call's message only.
    func testMessagesAreClearedPerCall() throws {
        let ctx = try GEOSContext()
        assertGEOSError(try ctx.geometry(wkt: "POLYGN EMPTY"), "ParseException: Unknown type: 'POLYGN'")
        _ = try ctx.geometry(wkt: "POINT (1 2)")
        assertGEOSError(try ctx.polygon(rings: [unclosed]), unclosedMessage)
        assertGEOSError(try ctx.polygon(rings: [unclosed]), unclosedMessage)
    }

    // MARK: - Builders

    func testPolygonFromRings() throws {
        let ctx = try GEOSContext()
        let polygon = try ctx.polygon(rings: [square, hole])
        XCTAssertEqual(try polygon.typeName, "Polygon")
        XCTAssertEqual(try polygon.wkt(), try fixture("polygon-with-hole.wkt"))
        XCTAssertEqual(try polygon.area(), 96)
        XCTAssertTrue(try polygon.isValid())
    }

    func testUnclosedRingThrowsGEOSMessage() throws {
        let ctx = try GEOSContext()
        assertGEOSError(try ctx.polygon(rings: [unclosed]), unclosedMessage)
    }

    func testTooFewPointsThrowGEOSMessages() throws {
        let ctx = try GEOSContext()
        assertGEOSError(try ctx.polygon(rings: [[(0, 0)]]),
                        "IllegalArgumentException: point array must contain 0 or >1 elements")
        assertGEOSError(try ctx.polygon(rings: [[(0, 0), (0, 0)]]),
                        "IllegalArgumentException: Invalid number of points in LinearRing found 2 - must be 0 or >= 4")
        // GEOS 3.11 builds a closed 3-point ring; we reject it with GEOS's validation reason.
        assertGEOSError(try ctx.polygon(rings: [[(0, 0), (1, 0), (0, 0)]]),
                        "Too few points in geometry component[0 0]")
    }

    func testInvalidRingsAreAcceptedForLaterValidation() throws {
        let ctx = try GEOSContext()
        let bowtie = try ctx.polygon(rings: [[(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)]])
        XCTAssertFalse(try bowtie.isValid())
    }

    func testEmptyPolygon() throws {
        let ctx = try GEOSContext()
        XCTAssertEqual(try ctx.polygon(rings: []).wkt(), "POLYGON EMPTY")
        XCTAssertEqual(try ctx.polygon(rings: [[]]).wkt(), "POLYGON EMPTY")
        XCTAssertTrue(try ctx.polygon(rings: []).isEmpty)
    }

    func testMultiPolygon() throws {
        let ctx = try GEOSContext()
        let far = square.map { (x: $0.x + 20, y: $0.y) }
        let multi = try ctx.multiPolygon([[square, hole], [far]])
        XCTAssertEqual(try multi.typeName, "MultiPolygon")
        XCTAssertEqual(try multi.area(), 196)
        XCTAssertEqual(try multi.wkt(),
                       "MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2)), ((20 0, 30 0, 30 10, 20 10, 20 0)))")
        assertGEOSError(try ctx.multiPolygon([[square], [unclosed]]), unclosedMessage)
    }

    func testPoint() throws {
        let ctx = try GEOSContext()
        XCTAssertEqual(try ctx.point(x: 2.5, y: -1).wkt(), "POINT (2.5 -1)")
    }

    // MARK: - Ownership

    /// Many geometries made and dropped: each Geometry destroys its handle exactly once
    /// (run under --sanitize=address to see leaks or double frees).
    func testManyGeometriesCreatedAndDestroyed() throws {
        let ctx = try GEOSContext()
        for i in 0..<5_000 {
            let d = Double(i % 100)
            let polygon = try ctx.polygon(rings: [square.map { (x: $0.x + d, y: $0.y) }, hole.map { (x: $0.x + d, y: $0.y) }])
            let parsed = try ctx.geometry(wkt: try polygon.wkt())
            let fromWKB = try ctx.geometry(wkb: try parsed.wkb())
            let prepared = try fromWKB.prepared()
            XCTAssertTrue(try prepared.covers(x: d + 1, y: 1))
            _ = try polygon.makeValid()
            _ = try polygon.minimumBoundingCircle()
            _ = try polygon.polygons()
        }
    }

    /// Failure paths hand ownership over correctly: GEOS frees what it was given (also on
    /// failure) and we free only what we still hold. ASAN reports a leak or a double free
    /// if either side is wrong.
    func testOwnershipOnFailurePaths() throws {
        let ctx = try GEOSContext()
        let point = try ctx.geometry(wkt: "POINT (1 1)")
        let ring = try ctx.geometry(wkt: "LINEARRING (0 0, 1 0, 1 1, 0 0, 0 0)")
        for _ in 0..<500 {
            // GEOSGeom_createPolygon_r deletes a non-ring shell and all holes before throwing.
            assertGEOSError(try ctx.makePolygonHandle(consumingShell: try point.cloneHandle(),
                                                      holes: [try ring.cloneHandle(), try ring.cloneHandle()]),
                            "IllegalArgumentException: Shell is not a LinearRing")
            assertGEOSError(try ctx.makePolygonHandle(consumingShell: try ring.cloneHandle(),
                                                      holes: [try ring.cloneHandle(), try point.cloneHandle()]),
                            "IllegalArgumentException: Hole is not a LinearRing")
            // GEOSGeom_createLinearRing_r frees the sequence of an unclosed ring; the shell made
            // before the failing hole is destroyed by us.
            assertGEOSError(try ctx.polygon(rings: [square, hole, unclosed]), unclosedMessage)
            // The polygons made before the failing one are destroyed by us.
            assertGEOSError(try ctx.multiPolygon([[square], [square, hole], [square, unclosed]]), unclosedMessage)
            // A closed 3-point ring is made by GEOS, then destroyed by us.
            assertGEOSError(try ctx.polygon(rings: [square, [(5, 5), (6, 5), (5, 5)]]),
                            "Too few points in geometry component[5 5]")
        }
    }

    func testGeometryKeepsItsContextAlive() throws {
        weak var weakContext: GEOSContext?
        var geometry: Geometry? = try {
            let ctx = try GEOSContext()
            weakContext = ctx
            return try ctx.geometry(wkt: "POINT (1 2)")
        }()
        XCTAssertNotNil(weakContext)
        XCTAssertEqual(try geometry?.wkt(), "POINT (1 2)")
        geometry = nil
        XCTAssertNil(weakContext)
    }

    func testGeometriesFromDifferentContextsAreRejected() throws {
        let a = try GEOSContext(), b = try GEOSContext()
        let polygon = try a.polygon(rings: [square])
        let point = try b.point(x: 1, y: 1)
        XCTAssertThrowsError(try polygon.covers(point)) { error in
            XCTAssertEqual(error as? GeometryInputError, .differentContexts)
        }
        XCTAssertThrowsError(try polygon.prepared().covers(point))
    }

    func testVersions() {
        XCTAssertTrue(GeometryKit.geosVersion.hasPrefix("3."), GeometryKit.geosVersion)
        XCTAssertTrue(GeometryKit.projVersion.contains("9."), GeometryKit.projVersion)
    }
}
