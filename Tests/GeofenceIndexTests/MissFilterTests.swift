import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// `MissFilter.certainlyMisses` never answers "no fence" where the tree (itself checked against
/// the brute force in `FenceIndexPropertyTests`) or the brute force finds one: points at every
/// distance from fence edges, within and beyond a grid cell, windows up to and past the one-bit
/// limit, at the poles and the antimeridian, and across index changes.
final class MissFilterTests: XCTestCase {
    static func tree(_ index: FenceIndex, _ lat: Double, _ lon: Double, _ metres: Double) -> Int {
        var n = 0
        index.forEachClassified(lat: lat, lon: lon, accuracy: metres, exitMargin: 0) { _ in n += 1; return true }
        return n
    }

    /// A point near a fence: on, inside or outside its edge by up to a few grid cells
    /// (`spread` degrees), or uniform on the sphere.
    static func point(_ fences: [Fence], spread: Double, _ rng: inout SeededGenerator) -> (lat: Double, lon: Double) {
        if rng.chance(0.15) { return FenceSets.point(fences, &rng) }
        if rng.chance(0.15) { return (asin(rng.uniform(-1, 1)) * 180 / Double.pi, rng.uniform(-180, 180)) }
        switch fences[rng.int(0..<fences.count)].record {
        case .circle(let c):
            let beyond = rng.uniform(0, 3 * spread) * 111_000
            let p = Geodesic.wgs84.direct(lat: c.lat, lon: c.lon, azimuth: rng.uniform(0, 360), distance: c.radius + beyond)
            return (p.lat, p.lon)
        case .polygon(let p):
            let s = p.shape
            let v = rng.int(0..<s.vertexCount - 1)
            let lat = s.coordinates[2 * v + 1] + rng.uniform(-3, 3) * spread
            let lon = s.coordinates[2 * v] + rng.uniform(-3, 3) * spread
            return (max(-90, min(90, lat)), lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon))
        }
    }

    func check(_ index: FenceIndex, _ fences: [Fence], queries: Int, seed: UInt64, label: String,
               brute: BruteForce? = nil) -> (misses: Int, fast: Int) {
        let filter = index.missFilter()
        XCTAssertTrue(filter.matches(index))
        var rng = SeededGenerator(seed: seed)
        var misses = 0, fast = 0, bruteChecked = 0
        // Cells are 180/height degrees tall; spread points over a few of them.
        let spread = max(0.01, filter.fastMetres / 111_000)
        for i in 0..<queries {
            let p = Self.point(fences, spread: spread, &rng)
            let limit = max(1, filter.fastMetres)
            let metres = rng.chance(0.3) ? 0 : (rng.chance(0.8) ? rng.uniform(0, limit) : rng.logUniform(limit, 3 * limit + 10))
            guard filter.certainlyMisses(lat: p.lat, lon: p.lon, metres: metres) else { continue }
            misses += 1
            if metres <= filter.fastMetres && abs(p.lat) <= 80 { fast += 1 }
            let n = Self.tree(index, p.lat, p.lon, metres)
            XCTAssertEqual(n, 0, "\(label) \(i): the filter said no fence at (\(p.lat), \(p.lon)) ± \(metres) m; the tree found \(n)")
            if let brute, i % 7 == 0 {
                bruteChecked += 1
                let near = BruteForce.PointView(brute, lat: p.lat, lon: p.lon).classify(accuracy: metres, margin: 0)
                XCTAssertTrue(near.isEmpty, "\(label) \(i): the filter said no fence; the brute force finds \(near.keys.sorted())")
            }
        }
        if brute != nil { XCTAssertGreaterThan(bruteChecked, 50, label) }
        return (misses, fast)
    }

    func testNeverMissesAFenceTheTreeOrTheBruteForceFinds() throws {
        var rng = SeededGenerator(seed: 71)
        let bf = BruteForce()
        let polygons = FenceIndexPropertyTests.validOnly(FenceSets.polygons(30, &rng, near: FenceSets.cities), bf)
        var fences = FenceSets.uniformCircles(600, &rng) + FenceSets.clusteredCircles(200, &rng)
            + FenceSets.specialCircles(&rng).filter { !$0.id.hasPrefix("huge") } + polygons
        for k in 0..<30 {
            let lat = k % 2 == 0 ? rng.uniform(-89.99, 89.99) : (k % 4 == 1 ? 89.9 : -89.9)
            let lon = k % 3 == 0 ? 179.999 : (k % 3 == 1 ? -179.999 : rng.uniform(-180, 180))
            fences.append(.circle(CircleRecord(id: "edge\(k)", lat: lat, lon: lon, radius: rng.logUniform(50, 5_000))))
        }
        let index = try FenceIndex(fences)
        let brute = BruteForce(fences)
        let r = check(index, fences, queries: 20_000, seed: 72, label: "mixed", brute: brute)
        // Not a filter that never answers: most points away from fences end in one bit.
        XCTAssertGreaterThan(r.misses, 2_000)
        XCTAssertGreaterThan(r.fast, 1_000)
    }

    func testAcrossIndexChangesAndWithLargeFences() throws {
        var rng = SeededGenerator(seed: 73)
        var fences = FenceSets.uniformCircles(3000, &rng)
        var index = try FenceIndex(fences)
        let before = index.missFilter()
        // A fence added where the filter was clear: the old filter no longer matches the index.
        let spot = (lat: -40.123, lon: 100.456)
        XCTAssertTrue(before.certainlyMisses(lat: spot.lat, lon: spot.lon, metres: 0))
        let late = Fence.circle(CircleRecord(id: "late", lat: spot.lat, lon: spot.lon, radius: 100))
        _ = try index.insert(late)
        fences.append(late)
        XCTAssertFalse(before.matches(index))
        XCTAssertFalse(index.missFilter().certainlyMisses(lat: spot.lat, lon: spot.lon, metres: 0))
        _ = check(index, fences, queries: 8_000, seed: 74, label: "after insert")
        // Continent-sized circles (one across the antimeridian) are kept aside from the grid and
        // tested one by one, grown by a cell.
        for (k, lon) in [0.0, 100, 179].enumerated() {
            let big = Fence.circle(CircleRecord(id: "big\(k)", lat: 20 * Double(k) - 20, lon: lon, radius: 4_500_000))
            _ = try index.insert(big)
            fences.append(big)
        }
        let r = check(index, fences, queries: 8_000, seed: 75, label: "large fences")
        XCTAssertGreaterThan(r.fast, 500)
    }
}

extension MissFilterTests {
    /// A grid marked by several workers (each a part of the leaves, merged) answers as the
    /// one marked by one, and as the tree.
    func testGridMarkedBySeveralWorkersAnswersTheSame() throws {
        var rng = SeededGenerator(seed: 76)
        let fences = FenceSets.uniformCircles(80_000, &rng) + FenceSets.specialCircles(&rng).filter { !$0.id.hasPrefix("huge") }
        let index = try FenceIndex(fences)
        let one = index.missFilter(threads: 1), four = index.missFilter(threads: 4)
        var misses = 0
        for _ in 0..<20_000 {
            let p = Self.point(fences, spread: max(0.01, one.fastMetres / 111_000), &rng)
            let metres = rng.chance(0.5) ? 0 : rng.uniform(0, 2 * max(1, one.fastMetres))
            let a = one.certainlyMisses(lat: p.lat, lon: p.lon, metres: metres)
            XCTAssertEqual(a, four.certainlyMisses(lat: p.lat, lon: p.lon, metres: metres), "(\(p.lat), \(p.lon)) ± \(metres) m")
            if a {
                misses += 1
                XCTAssertEqual(Self.tree(index, p.lat, p.lon, metres), 0)
            }
        }
        XCTAssertGreaterThan(misses, 1_000)
    }
}
