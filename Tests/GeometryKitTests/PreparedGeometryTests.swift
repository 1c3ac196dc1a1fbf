import XCTest
import GeofenceTestSupport
@testable import GeometryKit

final class PreparedGeometryTests: XCTestCase {
    /// A concave polygon with a hole (an "E"-ish comb) and a second part.
    let wkt = """
        MULTIPOLYGON (((0 0, 10 0, 10 2, 3 2, 3 4, 10 4, 10 6, 3 6, 3 8, 10 8, 10 10, 0 10, 0 0), \
        (1 1, 1 9, 2 9, 2 1, 1 1)), ((12 0, 15 3, 12 6, 12 0)))
        """

    func testPreparedCoversXYMatchesUnpreparedOnRandomPoints() throws {
        let ctx = try GEOSContext()
        let shape = try ctx.geometry(wkt: wkt)
        let prepared = try shape.prepared()
        var rng = SeededGenerator(seed: 0x6E0F_E2CE)
        var inside = 0, onBoundary = 0
        for i in 0..<20_000 {
            let x: Double, y: Double
            if i % 4 == 0 {
                // Grid points, many exactly on edges and vertices (integers, halves).
                x = Double(Int.random(in: -2...34, using: &rng)) / 2
                y = Double(Int.random(in: -2...22, using: &rng)) / 2
            } else {
                x = Double.random(in: -1...16, using: &rng)
                y = Double.random(in: -1...11, using: &rng)
            }
            let point = try ctx.point(x: x, y: y)
            let covers = try shape.covers(point)
            let contains = try shape.contains(point)
            XCTAssertEqual(try prepared.covers(x: x, y: y), covers, "covers (\(x), \(y))")
            XCTAssertEqual(try prepared.covers(point), covers, "covers (\(x), \(y))")
            XCTAssertEqual(try prepared.contains(x: x, y: y), contains, "contains (\(x), \(y))")
            XCTAssertEqual(try prepared.distance(x: x, y: y), try shape.distance(to: point), accuracy: 1e-12)
            if covers { inside += 1 }
            if covers && !contains { onBoundary += 1 }
        }
        // The sample exercises all three outcomes.
        XCTAssertGreaterThan(inside, 2_000)
        XCTAssertGreaterThan(onBoundary, 100)
    }

    func testBoundaryPointIsCoveredNotContained() throws {
        let ctx = try GEOSContext()
        let prepared = try ctx.geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))").prepared()
        XCTAssertTrue(try prepared.covers(x: 10, y: 5))
        XCTAssertFalse(try prepared.contains(x: 10, y: 5))
        XCTAssertTrue(try prepared.covers(x: 5, y: 5))
        XCTAssertTrue(try prepared.contains(x: 5, y: 5))
        XCTAssertFalse(try prepared.covers(x: 10.000000001, y: 5))
        XCTAssertEqual(try prepared.distance(x: 13, y: 14), 5)
        XCTAssertEqual(try prepared.distance(to: ctx.point(x: -3, y: 5)), 3)
    }

    func testEmptyAndNonFinite() throws {
        let ctx = try GEOSContext()
        XCTAssertFalse(try ctx.geometry(wkt: "POLYGON EMPTY").prepared().covers(x: 0, y: 0))
        let prepared = try ctx.geometry(wkt: "POLYGON ((0 0, 1 0, 1 1, 0 0))").prepared()
        XCTAssertThrowsError(try prepared.covers(x: .nan, y: 0)) { error in
            XCTAssertTrue(error is GeometryInputError)
        }
    }

    func testPreparedKeepsGeometryAlive() throws {
        let ctx = try GEOSContext()
        weak var weakGeometry: Geometry?
        var prepared: PreparedGeometry? = try {
            let g = try ctx.geometry(wkt: "POLYGON ((0 0, 1 0, 1 1, 0 0))")
            weakGeometry = g
            return try g.prepared()
        }()
        XCTAssertNotNil(weakGeometry)
        XCTAssertTrue(try prepared?.covers(x: 0.9, y: 0.1) ?? false)
        prepared = nil
        XCTAssertNil(weakGeometry)
    }
}
