import GeofenceIndex
import Foundation
import Geodesy
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

final class SubsetTileTests: XCTestCase {
    func testTileBoxes() {
        XCTAssertEqual(Tile.maxLatitude, 85.0511287798066, accuracy: 1e-12)
        let world = Tile(z: 0, x: 0, y: 0).box
        XCTAssertEqual(world.west, -180); XCTAssertEqual(world.east, 180)
        XCTAssertEqual(world.north, Tile.maxLatitude, accuracy: 1e-12); XCTAssertEqual(world.south, -Tile.maxLatitude, accuracy: 1e-12)
        // Zoom 10: OpenStreetMap's tile 10/525/365 covers Lyon's centre.
        let t = try! Tile.containing(lat: 45.764, lon: 4.8357, zoom: 10)
        XCTAssertEqual(t, Tile(z: 10, x: 525, y: 365))
        XCTAssertTrue(t.box.contains(lat: 45.764, lon: 4.8357))
        XCTAssertEqual(t.description, "10/525/365")
        // The last column ends at 180; the first starts at -180; rows meet exactly.
        XCTAssertEqual(Tile(z: 10, x: 1023, y: 0).box.east, 180)
        XCTAssertEqual(Tile(z: 10, x: 0, y: 0).box.west, -180)
        XCTAssertEqual(Tile(z: 10, x: 3, y: 7).box.south, Tile(z: 10, x: 3, y: 8).box.north)
    }

    func testContainingPointsOnEdgesAndLimits() throws {
        var rng = SeededGenerator(seed: 9)
        for _ in 0..<2000 {
            let z = Int(rng.uniform(0, 19))
            let lat = rng.uniform(-Tile.maxLatitude, Tile.maxLatitude), lon = rng.uniform(-180, 180)
            XCTAssertTrue(try Tile.containing(lat: lat, lon: lon, zoom: z).box.contains(lat: lat, lon: lon))
        }
        // Tile corners belong to a tile whose closed box holds them.
        for y in [0, 1, 511, 512, 1023] {
            let lat = Tile.latitude(row: y, zoom: 10)
            XCTAssertTrue(try Tile.containing(lat: lat, lon: 0, zoom: 10).box.contains(lat: lat, lon: 0))
        }
        XCTAssertEqual(try Tile.containing(lat: Tile.maxLatitude, lon: 180, zoom: 4), Tile(z: 4, x: 15, y: 0))
        XCTAssertEqual(try Tile.containing(lat: -Tile.maxLatitude, lon: -180, zoom: 4), Tile(z: 4, x: 0, y: 15))
        XCTAssertThrowsError(try Tile.containing(lat: 85.06, lon: 0, zoom: 4)) { e in
            XCTAssertEqual((e as? GeofenceError)?.category, .badArgument)
            XCTAssertEqual((e as? GeofenceError)?.description, "latitude: 85.06 is outside the Web Mercator tile range ±85.0511287798°")
        }
        XCTAssertThrowsError(try Tile.containing(lat: -89, lon: 0, zoom: 4))
        XCTAssertThrowsError(try Tile.containing(lat: 0, lon: 0, zoom: 25))
    }

    func testCoveringBoxes() throws {
        let r = try Tile.covering(GeoBox(west: -10, south: 35, east: 20, north: 55), zoom: 6)
        XCTAssertEqual(r.columns, [30...35]); XCTAssertEqual(r.rows, 20...25); XCTAssertEqual(r.count, 36)
        // Across the antimeridian: the two ends of the column range.
        let am = try Tile.covering(GeoBox(west: 170, south: -20, east: -170, north: -10), zoom: 4)
        XCTAssertEqual(am.columnList, [0, 15])
        // West > east reaching round: every column.
        XCTAssertEqual(try Tile.covering(GeoBox(west: 1, south: 0, east: 0.5, north: 1), zoom: 3).columnList, Array(0...7))
        XCTAssertThrowsError(try Tile.covering(GeoBox(west: 0, south: -86, east: 1, north: 0), zoom: 3))
        XCTAssertEqual(try Tile.world(zoom: 10).count, 1 << 20)
    }

    /// `BundleCell.radius` (the corner distance) bounds the geodesic distance from
    /// the centre to every point of the cell: dense sampling of the edges and the
    /// interior, over latitudes up to the Mercator limit and widths up to 60°.
    func testCellRadiusBoundsEveryPoint() {
        let g = Geodesic.wgs84
        var rng = SeededGenerator(seed: 17)
        var cases: [(Double, Double, Double)] = []  // half-width, south, north
        for hw in [0.001, 0.05, 0.35, 2.8, 11.25, 22.5, 45, 60, 89] {
            for (s, n) in [(-1.0, 1.0), (40.0, 42.0), (84.0, 85.0511287798), (-85.0511287798, -60.0), (-10.0, 70.0), (0.0, 0.001)] {
                let span = n - s
                cases.append((hw, s, s + min(span, hw * 4)))
            }
        }
        for (hw, s, n) in cases {
            let lon0 = rng.uniform(-180 + hw, 180 - hw)
            let cell = BundleCell(west: lon0 - hw, south: s, east: lon0 + hw, north: n)
            var worst = 0.0
            for i in 0...200 {
                let t = Double(i) / 200
                for (la, lo) in [(n, cell.west + t * 2 * hw), (s, cell.west + t * 2 * hw),
                                 (s + t * (n - s), cell.west), (s + t * (n - s), cell.east),
                                 (rng.uniform(s, n), rng.uniform(cell.west, cell.east))] {
                    worst = max(worst, g.distance(lat1: cell.lat, lon1: cell.lon, lat2: la, lon2: lo))
                }
            }
            XCTAssertLessThanOrEqual(worst, cell.radius, "half-width \(hw) lat \(s)...\(n)")
            XCTAssertGreaterThan(worst, cell.radius * (1 - 1e-6) - 1e-3, "the bound is the corner distance")
        }
        // 90° and wider: no corner argument, the bound is every distance.
        XCTAssertGreaterThan(BundleCell.radius(halfWidth: 90, south: -10, north: 10), 20_003_931.46)
    }

    /// The box expansion used to collect candidates holds every point within the distance.
    func testExpandedBoxHoldsTheNeighbourhood() {
        let g = Geodesic.wgs84
        var rng = SeededGenerator(seed: 23)
        for _ in 0..<300 {
            let w = rng.uniform(-180, 179), e = min(180, w + rng.uniform(0, 5))
            let s = rng.uniform(-85, 84), n = min(85, s + rng.uniform(0, 5))
            let metres = [1.0, 1000, 50_000, 500_000, 3_000_000][Int(rng.uniform(0, 5))]
            let box = GeoBounds.expanded(west: w, south: s, east: e, north: n, by: metres)
            for _ in 0..<20 {
                let lat = rng.uniform(s, n), lon = rng.uniform(w, e)
                let q = g.direct(lat: lat, lon: lon, azimuth: rng.uniform(0, 360), distance: metres * rng.uniform(0, 1))
                XCTAssertTrue(box.contains(lat: q.lat, lon: q.lon), "\(q) within \(metres) m of [\(w),\(s),\(e),\(n)] not in \(box)")
            }
        }
    }

    /// Box and point lower bounds never exceed a sampled geodesic distance.
    func testLowerBoundsAreLower() {
        let g = Geodesic.wgs84
        var rng = SeededGenerator(seed: 29)
        for _ in 0..<400 {
            let w = rng.uniform(-180, 170), s = rng.uniform(-85, 80)
            let cell = BundleCell(west: w, south: s, east: w + rng.uniform(0.001, 10), north: min(85, s + rng.uniform(0.001, 5)))
            let plat = rng.uniform(-89.9, 89.9), plon = rng.uniform(-180, 180)
            let lb = cell.lowerDistance(lat: plat, lon: plon, cosLat: cos(plat * .pi / 180))
            for _ in 0..<30 {
                let d = g.distance(lat1: plat, lon1: plon, lat2: rng.uniform(cell.south, cell.north), lon2: rng.uniform(cell.west, cell.east))
                XCTAssertLessThanOrEqual(lb, d + 1e-6)
            }
            let ub = cell.upperCentreDistance(lat: plat, lon: plon, cosLat: cos(plat * .pi / 180))
            XCTAssertGreaterThanOrEqual(ub, g.distance(lat1: cell.lat, lon1: cell.lon, lat2: plat, lon2: plon))
        }
    }
}

/// The polygon upper bound's core: `TileBundler.segmentBound` bounds the true
/// length of every straight lon/lat segment from a point p of the cell to a
/// point q with |P_p(q)| ≤ P (and so the geodesic distance p → q).
final class SubsetSegmentBoundTests: XCTestCase {
    /// True length of the lon/lat segment p → q on WGS84 (fine numerical integration).
    static func segmentLength(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let n = 2000
        var total = 0.0
        for i in 0..<n {
            let t = (Double(i) + 0.5) / Double(n)
            let lat = lat1 + t * (lat2 - lat1)
            let dx = (lon2 - lon1) / Double(n) * GeoBounds.parallelRadius(lat) * .pi / 180
            let dy = (lat2 - lat1) / Double(n) * GeoBounds.meridionalRadius(lat) * .pi / 180
            total += (dx * dx + dy * dy).squareRoot()
        }
        return total
    }

    static func wrap(_ lon: Double) -> Double {
        var l = (lon + 180).truncatingRemainder(dividingBy: 360)
        if l < 0 { l += 360 }
        return l - 180
    }

    func testBoundsSegmentsAndGeodesics() {
        let g = Geodesic.wgs84
        var worst = 0.0
        for (s, n) in [(80.0, 80.1), (60.0, 60.5), (0.0, 0.2), (-85.0, -84.9), (45.0, 45.05)] {
            let cell = BundleCell(west: 10, south: s, east: 10.3, north: n)
            for plane in [1_000.0, 100_000, 1_000_000, 3_000_000] {
                let bound = TileBundler.segmentBound(plane: plane, cell)
                var most = 0.0
                for (plat, plon) in [(s, 10.0), (n, 10.3), ((s + n) / 2, 10.15)] {
                    let k = SubsetReference.scales(lat: plat)
                    for i in 0..<180 {
                        let th = Double(i) * 2 * .pi / 180
                        let qlat = plat + plane * sin(th) / k.1, qlon = plon + plane * cos(th) / k.0
                        guard abs(qlat) <= 90 else { continue }
                        let len = SubsetSegmentBoundTests.segmentLength(plat, plon, qlat, qlon)
                        XCTAssertLessThanOrEqual(len, bound * (1 + 1e-6), "cell \(s)...\(n) P \(plane) θ \(th)")
                        most = max(most, g.distance(lat1: plat, lon1: plon, lat2: qlat, lon2: SubsetSegmentBoundTests.wrap(qlon)))
                    }
                }
                worst = max(worst, bound / most)
                XCTAssertGreaterThanOrEqual(bound, most, "the bound is at least the geodesic")
                print(String(format: "segmentBound lat %.1f P %.0f km: bound/plane %.3f, bound/largest geodesic %.3f", s, plane / 1000, bound / plane, bound / most))
            }
        }
        XCTAssertLessThan(worst, 3.5, "how loose at worst (85°, 3000 km)")
    }
}
