import XCTest
import GeofenceTestSupport
@testable import GeometryKit

final class CRSTransformerTests: XCTestCase {
    /// EPSG:3857 half-width: π · 6378137 m.
    let webMercatorMaxX = 20_037_508.342789244

    func testUnknownCRSThrowsPROJMessage() throws {
        let proj = try PROJContext()
        XCTAssertThrowsError(try CRSTransformer(from: "EPSG:999999", context: proj)) { error in
            guard case .library(let message)? = error as? PROJError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("proj_create: crs not found"), message)
            // Full text on PROJ 9.1.1: "proj_create: crs not found; Unknown error (code 4096)"
        }
        XCTAssertThrowsError(try CRSTransformer(from: "not a crs", context: proj)) { error in
            let message = (error as? PROJError)?.message ?? ""
            XCTAssertTrue(message.contains("unrecognized format / unknown name"), message)
        }
    }

    /// The log is cleared per call: a later error does not repeat an earlier one.
    func testMessagesAreClearedPerCall() throws {
        let proj = try PROJContext()
        XCTAssertThrowsError(try CRSTransformer(from: "EPSG:999999", context: proj))
        let toMercator = try CRSTransformer(from: "EPSG:4326", to: "EPSG:3857", context: proj)
        XCTAssertThrowsError(try toMercator.transform(x: 0, y: 100)) { error in
            let message = (error as? PROJError)?.message ?? ""
            XCTAssertTrue(message.contains("Invalid latitude"), message)
            XCTAssertFalse(message.contains("crs not found"), message)
        }
        XCTAssertThrowsError(try CRSTransformer(from: "EPSG:999999", context: proj)) { error in
            let message = (error as? PROJError)?.message ?? ""
            XCTAssertFalse(message.contains("Invalid latitude"), message)
            XCTAssertFalse(message.contains("Invalid coordinate"), message)
        }
    }

    /// Lambert-93 is defined with lon0 = 3°, lat0 = 46.5° at x = 700 000 m, y = 6 600 000 m.
    func testLambert93Origin() throws {
        let proj = try PROJContext()
        let toWGS84 = try CRSTransformer(from: "EPSG:2154", context: proj)
        let lonLat = try toWGS84.transform(x: 700_000, y: 6_600_000)
        XCTAssertEqual(lonLat.x, 3, accuracy: 1e-9)      // 1e-9° ≈ 0.1 mm
        XCTAssertEqual(lonLat.y, 46.5, accuracy: 1e-9)

        // EPSG:4326 is lat/lon in its definition; normalization makes the input (lon, lat).
        let toLambert = try CRSTransformer(from: "EPSG:4326", to: "EPSG:2154", context: proj)
        let xy = try toLambert.transform(x: 3, y: 46.5)
        XCTAssertEqual(xy.x, 700_000, accuracy: 0.01)
        XCTAssertEqual(xy.y, 6_600_000, accuracy: 0.01)
    }

    func testWebMercatorKnownValues() throws {
        let proj = try PROJContext()
        let toMercator = try CRSTransformer(from: "EPSG:4326", to: "EPSG:3857", context: proj)
        let east = try toMercator.transform(x: 180, y: 0)
        XCTAssertEqual(east.x, webMercatorMaxX, accuracy: 1e-6)
        XCTAssertEqual(east.y, 0, accuracy: 1e-9)
        XCTAssertEqual(try toMercator.transform(x: -180, y: 0).x, -webMercatorMaxX, accuracy: 1e-6)
        // At 85.0511287798066° (atan(sinh(π))) Web Mercator is square: y = x max.
        XCTAssertEqual(try toMercator.transform(x: 0, y: 85.0511287798066).y, webMercatorMaxX, accuracy: 1e-3)

        let back = try CRSTransformer(from: "EPSG:3857", context: proj).transform(x: webMercatorMaxX / 2, y: 0)
        XCTAssertEqual(back.x, 90, accuracy: 1e-12)
        XCTAssertEqual(back.y, 0, accuracy: 1e-12)
    }

    func testBatchEqualsSingle() throws {
        let proj = try PROJContext()
        let toWGS84 = try CRSTransformer(from: "EPSG:2154", context: proj)
        var rng = SeededGenerator(seed: 2154)
        let points: [(x: Double, y: Double)] = (0..<2_000).map { _ in
            (Double.random(in: 100_000...1_200_000, using: &rng), Double.random(in: 6_000_000...7_100_000, using: &rng))
        }
        var batch = points
        try toWGS84.transform(&batch)
        for (i, p) in points.enumerated() {
            let single = try toWGS84.transform(x: p.x, y: p.y)
            XCTAssertEqual(batch[i].x, single.x, "x of point \(i)")
            XCTAssertEqual(batch[i].y, single.y, "y of point \(i)")
        }
        var empty: [(x: Double, y: Double)] = []
        try toWGS84.transform(&empty)
        XCTAssertTrue(empty.isEmpty)
    }

    func testBatchFailureLeavesPointsUnchanged() throws {
        let proj = try PROJContext()
        let toMercator = try CRSTransformer(from: "EPSG:4326", to: "EPSG:3857", context: proj)
        var points: [(x: Double, y: Double)] = [(0, 0), (0, 100), (1, 1)]
        XCTAssertThrowsError(try toMercator.transform(&points)) { error in
            let message = (error as? PROJError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("point 1: "), message)
            XCTAssertTrue(message.contains("Invalid latitude"), message)
        }
        XCTAssertEqual(points.map { [$0.x, $0.y] }, [[0, 0], [0, 100], [1, 1]])
    }

    func testNonFiniteInputIsRejected() throws {
        let proj = try PROJContext()
        let t = try CRSTransformer(from: "EPSG:4326", to: "EPSG:3857", context: proj)
        XCTAssertThrowsError(try t.transform(x: .nan, y: 0)) { error in
            XCTAssertTrue(error is GeometryInputError, "\(error)")
        }
        var points: [(x: Double, y: Double)] = [(0, .infinity)]
        XCTAssertThrowsError(try t.transform(&points))
    }

    func testTransformerKeepsItsContextAlive() throws {
        weak var weakContext: PROJContext?
        var transformer: CRSTransformer? = try {
            let proj = try PROJContext()
            weakContext = proj
            return try CRSTransformer(from: "EPSG:3857", context: proj)
        }()
        XCTAssertNotNil(weakContext)
        XCTAssertEqual(try transformer?.transform(x: 0, y: 0).x ?? .nan, 0, accuracy: 1e-12)
        transformer = nil
        XCTAssertNil(weakContext)
    }

    func testManyTransformersCreatedAndDestroyed() throws {
        let proj = try PROJContext()
        for _ in 0..<200 {
            let t = try CRSTransformer(from: "EPSG:2154", context: proj)
            _ = try t.transform(x: 700_000, y: 6_600_000)
            XCTAssertThrowsError(try CRSTransformer(from: "EPSG:999999", context: proj))
        }
    }
}
