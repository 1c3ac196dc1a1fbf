@testable import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// `forEachClassified` through a `CandidateCache` makes the same calls, in the
/// same order, as the search of the tree (itself checked against the brute
/// force in `FenceIndexPropertyTests`), on tracks that keep the cache busy
/// (small steps), defeat it (jumps), cross the antimeridian and the poles,
/// and across index changes.
final class CandidateCacheTests: XCTestCase {
    typealias Call = (slot: Int32, state: FenceState)

    static func tree(_ index: FenceIndex, _ lat: Double, _ lon: Double, _ a: Double, _ m: Double, stopAfter: Int = .max) -> [Call] {
        var out: [Call] = []
        index.forEachClassified(lat: lat, lon: lon, accuracy: a, exitMargin: m) { c in
            out.append((c.slot, c.state))
            return out.count < stopAfter
        }
        return out
    }

    static func cached(_ index: FenceIndex, _ cache: inout CandidateCache, _ lat: Double, _ lon: Double, _ a: Double, _ m: Double,
                       stopAfter: Int = .max) -> [Call] {
        var out: [Call] = []
        index.forEachClassified(lat: lat, lon: lon, accuracy: a, exitMargin: m, cache: &cache) { c in
            out.append((c.slot, c.state))
            return out.count < stopAfter
        }
        return out
    }

    func assertSame(_ index: FenceIndex, _ cache: inout CandidateCache, _ lat: Double, _ lon: Double, _ a: Double, _ m: Double,
                    stopAfter: Int = .max, _ label: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        let want = Self.tree(index, lat, lon, a, m, stopAfter: stopAfter)
        let got = Self.cached(index, &cache, lat, lon, a, m, stopAfter: stopAfter)
        XCTAssertEqual(got.map(\.slot), want.map(\.slot), "\(label()) at (\(lat), \(lon)) accuracy \(a) margin \(m)", file: file, line: line)
        XCTAssertEqual(got.map(\.state), want.map(\.state), "\(label()) at (\(lat), \(lon))", file: file, line: line)
    }

    /// A track: mostly small steps (1 m – 3 km), sometimes a jump to a fresh point near a fence.
    func walk(_ index: FenceIndex, _ fences: [Fence], steps: Int, jumpChance: Double, seed: UInt64, label: String,
              stepsAside: Bool = false) -> CandidateCache {
        var rng = SeededGenerator(seed: seed)
        var cache = CandidateCache(stepsAside: stepsAside)
        var p = FenceSets.point(fences, &rng)
        for i in 0..<steps {
            if rng.chance(jumpChance) {
                p = FenceSets.point(fences, &rng)
            } else {
                let q = Geodesic.wgs84.direct(lat: p.lat, lon: p.lon, azimuth: rng.uniform(0, 360), distance: rng.logUniform(1, 3000))
                p = (q.lat, q.lon)
            }
            let a = rng.chance(0.7) ? 0 : rng.logUniform(1, 500)
            let m = rng.chance(0.7) ? 0 : rng.logUniform(1, 200)
            let stop = rng.chance(0.05) ? 1 : Int.max
            assertSame(index, &cache, p.lat, p.lon, a, m, stopAfter: stop, "\(label) step \(i)")
        }
        return cache
    }

    func testTracksOverCitiesAndSpecialCircles() throws {
        var rng = SeededGenerator(seed: 21)
        let fences = FenceSets.clusteredCircles(4000, &rng) + FenceSets.uniformCircles(2000, &rng) + FenceSets.specialCircles(&rng)
        let index = try FenceIndex(fences)
        let cache = walk(index, fences, steps: 6000, jumpChance: 0.02, seed: 22, label: "cities")
        XCTAssertGreaterThan(cache.hits, cache.fills, "small steps are mostly answered from the cache")
        XCTAssertGreaterThan(cache.fills, 50)
        XCTAssertLessThan(cache.bypassed, 100, "only windows crossing the antimeridian go to the tree")
        // The same track with the cache free to step aside: same answers.
        _ = walk(index, fences, steps: 3000, jumpChance: 0.02, seed: 22, label: "cities, adaptive", stepsAside: true)
    }

    /// Scattered queries: fills cost more than tree searches, so the cache
    /// sends queries to the tree; the answers agree either way.
    func testJumpsAndTrials() throws {
        var rng = SeededGenerator(seed: 23)
        let fences = FenceSets.clusteredCircles(3000, &rng) + FenceSets.specialCircles(&rng)
        let index = try FenceIndex(fences)
        let cache = walk(index, fences, steps: 9000, jumpChance: 0.9, seed: 24, label: "jumps", stepsAside: true)
        XCTAssertGreaterThan(cache.bypassed, 4000, "a cache that keeps refilling stands aside")
        XCTAssertEqual(cache.hits + cache.fills + cache.bypassed, 9000, "every query counted once")
    }

    /// Scattered queries (uniform on the sphere, every accuracy): the cache steps aside and its
    /// occupancy grid answers most of them; every answer as the tree's, across index changes.
    func testScatteredQueriesThroughTheOccupancyGrid() throws {
        var prng = SeededGenerator(seed: 25)
        let polygons = FenceIndexPropertyTests.validOnly(FenceSets.polygons(45, &prng, near: FenceSets.cities), BruteForce())
        var rng = SeededGenerator(seed: 41)
        // The special circles but the huge ones (a circle over most of the world leaves nothing clear).
        var fences = FenceSets.uniformCircles(4000, &rng) + FenceSets.specialCircles(&rng).filter { !$0.id.hasPrefix("huge") } + polygons
        // Small circles hugging the antimeridian and the poles (split boxes, full-longitude boxes).
        for k in 0..<40 {
            let lat = k % 2 == 0 ? rng.uniform(-89.99, 89.99) : (k % 4 == 1 ? 89.9 : -89.9)
            let lon = k % 3 == 0 ? 179.999 : (k % 3 == 1 ? -179.999 : rng.uniform(-180, 180))
            fences.append(.circle(CircleRecord(id: "edge\(k)", lat: lat, lon: lon, radius: rng.logUniform(50, 5_000))))
        }
        var index = try FenceIndex(fences)
        var cache = CandidateCache()
        func scatter(_ n: Int, _ label: String) {
            for i in 0..<n {
                // Uniform on the sphere, sometimes next to a fence, at the edges of the lon/lat ranges.
                var p = (lat: asin(rng.uniform(-1, 1)) * 180 / Double.pi, lon: rng.uniform(-180, 180))
                if rng.chance(0.1) { p = FenceSets.point(fences, &rng) }
                if rng.chance(0.02) { p.lon = rng.chance(0.5) ? 180 : -180 }
                if rng.chance(0.02) { p.lat = rng.chance(0.5) ? 90 : -90 }
                let a = rng.chance(0.5) ? 0 : rng.logUniform(1, rng.chance(0.1) ? 2_000_000 : 500)
                let m = rng.chance(0.7) ? 0 : rng.logUniform(1, 2_000)
                assertSame(index, &cache, p.lat, p.lon, a, m, "\(label) \(i)")
            }
        }
        scatter(12_000, "scattered")
        XCTAssertGreaterThan(cache.cleared, 4_000, "the grid answers most scattered queries (hits \(cache.hits), fills \(cache.fills), bypassed \(cache.bypassed))")
        // The probe a caller prefetches through points at the word of the point's cell (found
        // here from the grid's size by floor and clamp): for a point in a small circle (its box
        // meets the cell and is in the bits, not among the large boxes kept aside), a word with
        // that cell's bit set; for any latitude and longitude, a word inside the bits.
        let probe = try XCTUnwrap(cache.occupancyProbe, "the cache consults the grid after scattered queries")
        let grid = try XCTUnwrap(cache.occupancy)
        let (base, words) = grid.bits.withUnsafeBufferPointer { (UnsafeRawPointer($0.baseAddress!), $0.count) }
        func cell(_ lat: Double, _ lon: Double) -> Int {
            let row = Swift.min(Int(((lat + 90) * Double(grid.height) / 180).rounded(.down)), grid.height - 1)
            let column = Swift.min(Int(((lon + 180) * Double(grid.width) / 360).rounded(.down)), grid.width - 1)
            return row * grid.width + column
        }
        let small = Array(fences.prefix(4000))
        var inside = 0
        for _ in 0..<2_000 {
            let p = FenceSets.point(small, &rng)
            guard abs(p.lat) < 75, !Self.tree(index, p.lat, p.lon, 0, 0).isEmpty else { continue }
            inside += 1
            let address = try XCTUnwrap(probe.word(lat: p.lat, lon: p.lon))
            let c = cell(p.lat, p.lon)
            XCTAssertEqual(address, base + (c >> 6) * 8, "the word of (\(p.lat), \(p.lon))")
            XCTAssertEqual(address.load(as: UInt64.self) >> UInt64(c & 63) & 1, 1, "the bit of (\(p.lat), \(p.lon)), inside a fence")
        }
        XCTAssertGreaterThan(inside, 500)
        for lat in [-90, 90, -.infinity, .infinity, .nan, -1e300, 1e300] as [Double] {
            for lon in [-180, 180, -.infinity, .infinity, .nan, 0] as [Double] {
                let address = try XCTUnwrap(probe.word(lat: lat, lon: lon))
                XCTAssert(address >= base && address < base + words * 8, "(\(lat), \(lon)) inside the bits")
            }
        }
        // Changes after the grid was built: a fence appears where the grid was clear.
        let spot = (lat: -40.123, lon: 100.456)
        XCTAssertTrue(Self.tree(index, spot.lat, spot.lon, 0, 0).isEmpty)
        try index.insert(.circle(CircleRecord(id: "late", lat: spot.lat, lon: spot.lon, radius: 100)))
        for _ in 0..<3 { assertSame(index, &cache, spot.lat, spot.lon, 0, 0, "after insert") }
        XCTAssertEqual(Self.cached(index, &cache, spot.lat, spot.lon, 0, 0).count, 1)
        index.remove(id: "late")
        scatter(3_000, "after changes")
    }

    func testPolygonsIncludingAntimeridianAndPolarOnes() throws {
        var rng = SeededGenerator(seed: 25)
        let bf = BruteForce()
        let polygons = FenceIndexPropertyTests.validOnly(FenceSets.polygons(45, &rng, near: FenceSets.cities), bf)
        let fences = polygons + FenceSets.clusteredCircles(500, &rng) + FenceSets.specialCircles(&rng)
        let index = try FenceIndex(fences)
        _ = walk(index, fences, steps: 4000, jumpChance: 0.05, seed: 26, label: "polygons")
    }

    /// Along the antimeridian and up to the poles, where windows cross or cover every longitude.
    func testTracksAcrossTheAntimeridianAndThePoles() throws {
        var rng = SeededGenerator(seed: 27)
        let fences = FenceSets.specialCircles(&rng) + FenceSets.uniformCircles(500, &rng)
            + FenceSets.polygons(20, &rng, near: [(-16, 179.5), (88, 0), (-87, 45)])
        let index = try FenceIndex(fences)
        var cache = CandidateCache(stepsAside: false)
        for (start, azimuth) in [((-16.6, 179.2), 90.0), ((10.0, -179.99), 270.0), ((60.0, 179.0), 80.0), ((85.0, 10.0), 0.0), ((-85.0, 45.0), 180.0)] {
            var p = start
            for i in 0..<400 {
                let q = Geodesic.wgs84.direct(lat: p.0, lon: p.1, azimuth: azimuth + rng.uniform(-5, 5), distance: rng.logUniform(10, 2000))
                p = (q.lat, q.lon)
                let a = rng.chance(0.5) ? 0 : rng.logUniform(1, 3000)
                assertSame(index, &cache, p.0, p.1, a, 0, "from \(start) step \(i)")
            }
        }
        // Exactly on the antimeridian and the poles.
        for lat in [-90.0, -89.999, 0, 10, 60, 89.999, 90] {
            for lon in [-180.0, 180, 179.99999, -179.99999] {
                assertSame(index, &cache, lat, lon, 0, 0, "on (\(lat), \(lon))")
                assertSame(index, &cache, lat, lon, 100, 50, "near (\(lat), \(lon))")
            }
        }
    }

    /// A fence split at the antimeridian (two boxes) under a window spanning
    /// every longitude (near the pole): both boxes meet it, the fence is still
    /// reported once, as by the tree.
    func testSplitFenceUnderAPolarWindow() throws {
        let twin = Fence.circle(CircleRecord(id: "twin", lat: 89, lon: 180, radius: 100_000))
        let index = try FenceIndex([twin, .circle(CircleRecord(id: "other", lat: 89.5, lon: 0, radius: 5_000))])
        XCTAssertTrue(index.bounds(of: index.slot(of: "twin")!).0.crossesAntimeridian, "a box crossing the antimeridian")
        var cache = CandidateCache(stepsAside: false)
        for lon in stride(from: -180.0, through: 180, by: 45) {
            assertSame(index, &cache, 89.95, lon, 20_000, 0, "polar window at \(lon)")
            assertSame(index, &cache, 89.95, lon, 15_000, 10_000, "polar window at \(lon), margin")
            let calls = Self.cached(index, &cache, 89.95, lon, 20_000, 0)
            XCTAssertEqual(calls.filter { index.identifier(of: $0.slot) == "twin" }.count, 1, "once at \(lon)")
        }
        XCTAssertGreaterThan(cache.hits, 0)
    }

    /// Points on the corners and edges of indexed boxes, after a fill nearby.
    func testPointsOnBoxEdges() throws {
        var rng = SeededGenerator(seed: 29)
        let fences = FenceSets.clusteredCircles(2000, &rng) + FenceSets.specialCircles(&rng)
        let index = try FenceIndex(fences)
        var cache = CandidateCache(stepsAside: false)
        for slot in index.liveSlots where rng.chance(0.25) {
            let (box, other) = index.bounds(of: slot)
            for b in [box] + (other.map { [$0] } ?? []) where !b.crossesAntimeridian {
                let lat = min(90, max(-90, (b.south + b.north) / 2)), lon = (b.west + b.east) / 2
                assertSame(index, &cache, lat, lon, 0, 0, "centre of \(index.identifier(of: slot))")
                for (y, x) in [(b.south, b.west), (b.north, b.east), (b.south, lon), (lat, b.east), (b.north, b.west)] {
                    assertSame(index, &cache, min(90, max(-90, y)), x, 0, 0, "edge of \(index.identifier(of: slot))")
                    assertSame(index, &cache, min(90, max(-90, y.nextUp)), x.nextDown, 0, 0, "edge of \(index.identifier(of: slot))")
                }
            }
        }
        XCTAssertGreaterThan(cache.hits, 0)
    }

    /// A cache filled from one index is never used for a changed copy.
    func testIndexChangesRefillTheCache() throws {
        var rng = SeededGenerator(seed: 31)
        var index = try FenceIndex(FenceSets.clusteredCircles(1000, &rng))
        var cache = CandidateCache()
        let paris = (48.8566, 2.3522)
        assertSame(index, &cache, paris.0, paris.1, 0, 0, "before")
        // An unchanged copy is the same index: answered from the cache.
        let copy = index
        let hits = cache.hits
        assertSame(copy, &cache, paris.0 + 1e-5, paris.1, 0, 0, "copy")
        XCTAssertEqual(cache.hits, hits + 1)
        // A fence added over the point, then removed, then one replaced: each seen at once.
        try index.insert(.circle(CircleRecord(id: "new", lat: paris.0, lon: paris.1, radius: 50)))
        assertSame(index, &cache, paris.0, paris.1, 0, 0, "after insert")
        XCTAssertTrue(Self.cached(index, &cache, paris.0, paris.1, 0, 0).contains { index.identifier(of: $0.slot) == "new" })
        index.remove(id: "new")
        assertSame(index, &cache, paris.0, paris.1, 0, 0, "after remove")
        XCTAssertFalse(Self.cached(index, &cache, paris.0, paris.1, 0, 0).contains { index.identifier(of: $0.slot) == "new" })
        for i in 0..<200 {  // enough changes to go through the second tree and a repack
            try index.insert(.circle(CircleRecord(id: "n\(i)", lat: paris.0 + Double(i) * 1e-4, lon: paris.1, radius: 30 + Double(i))))
            if i % 3 == 0 { index.remove(id: "c\(i)") }
            assertSame(index, &cache, paris.0 + Double(i) * 1e-4, paris.1, 0, 0, "change \(i)")
        }
        // The old copy still answers as before, through the same cache.
        assertSame(copy, &cache, paris.0, paris.1, 0, 0, "old copy")
    }

    func testResetForgets() throws {
        var rng = SeededGenerator(seed: 33)
        let index = try FenceIndex(FenceSets.clusteredCircles(500, &rng))
        var cache = CandidateCache()
        assertSame(index, &cache, 48.8566, 2.3522, 0, 0, "first")
        let fills = cache.fills
        cache.reset()
        assertSame(index, &cache, 48.8566, 2.3522, 0, 0, "after reset")
        XCTAssertEqual(cache.fills, fills + 1)
    }
}
