import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// Adds, replacements and removals interleaved with queries, against the brute force.
final class FenceIndexChangesTests: XCTestCase {
    func testRandomizedChangesAgreeWithBruteForce() throws {
        var rng = SeededGenerator(seed: 31)
        let bf = BruteForce()
        var initial = FenceSets.clusteredCircles(900, &rng, prefix: "c") + FenceSets.uniformCircles(600, &rng, prefix: "u")
        initial += FenceIndexPropertyTests.validOnly(FenceSets.polygons(10, &rng, near: FenceSets.cities, prefix: "p"), bf)
        initial += FenceSets.specialCircles(&rng)
        var index = try FenceIndex(initial)
        for (i, f) in initial.enumerated() { bf.set(f, slot: Int32(i)) }
        var nextID = 0
        var polygonPool = FenceIndexPropertyTests.validOnly(FenceSets.polygons(40, &rng, near: FenceSets.cities, prefix: "q"), bf)

        func randomFence(id: String) -> Fence {
            if rng.chance(0.05), let p = polygonPool.popLast(), case .polygon(var pf) = p.record {
                pf.id = id
                return .polygon(pf)
            }
            let base = rng.chance(0.5) ? FenceSets.clusteredCircles(1, &rng) : (rng.chance(0.9) ? FenceSets.uniformCircles(1, &rng) : FenceSets.specialCircles(&rng))
            guard case .circle(var c) = base[rng.int(0..<base.count)].record else { fatalError() }
            c.id = id
            return .circle(c)
        }

        var queries = 0, adds = 0, replaces = 0, removes = 0, compactions = 0
        for step in 0..<3000 {
            let roll = rng.uniform(0, 1)
            let live = bf.liveSlots
            if roll < 0.35 {
                let id = "new-\(nextID)"; nextID += 1
                let f = randomFence(id: id)
                let slot = try index.insert(f)
                XCTAssertEqual(Int(slot), bf.fences.count, "new slots are dense")
                bf.set(f, slot: slot)
                adds += 1
            } else if roll < 0.55, !live.isEmpty {
                let old = live[rng.int(0..<live.count)]
                let id = index.identifier(of: old)
                let f = randomFence(id: id)
                let slot = try index.insert(f)
                XCTAssertNotEqual(slot, old)
                XCTAssertFalse(index.isLive(old))
                XCTAssertEqual(index.slot(of: id), slot)
                bf.remove(slot: old)
                bf.set(f, slot: slot)
                replaces += 1
            } else if roll < 0.75, !live.isEmpty {
                let old = live[rng.int(0..<live.count)]
                let id = index.identifier(of: old)
                XCTAssertEqual(index.remove(id: id), old)
                XCTAssertNil(index.remove(id: id))
                XCTAssertNil(index.slot(of: id))
                bf.remove(slot: old)
                removes += 1
            } else if roll < 0.752 {
                index.compact()
                XCTAssertEqual(index.pendingChanges, 0)
                compactions += 1
            } else {
                let fences = bf.liveSlots.map { bf.fences[Int($0)]! }
                let p = FenceSets.point(fences, &rng)
                assertAgrees(index, bf, lat: p.lat, lon: p.lon, accuracy: rng.logUniform(1, 300), margin: rng.logUniform(1, 100),
                             within: rng.logUniform(1, 100_000), k: 20, "step \(step)")
                queries += 1
            }
            XCTAssertEqual(index.count, bf.liveSlots.count)
        }
        XCTAssertGreaterThan(queries, 500)
        XCTAssertGreaterThan(adds + replaces, 1100, "enough to force a full repack")
        XCTAssertGreaterThan(removes, 300)
        XCTAssertGreaterThan(compactions, 0)
        // The survivors rebuilt from scratch answer alike.
        let rebuilt = try FenceIndex(bf.liveSlots.map { Fence(id: index.identifier(of: $0), shape: index.shape(at: $0)!) })
        XCTAssertEqual(rebuilt.count, index.count)
    }

    func testReplaceKeepsIdentifierAndMovesFence() throws {
        var index = try FenceIndex([.circle(CircleRecord(id: "a", lat: 10, lon: 10, radius: 100))])
        XCTAssertEqual(index.containing(lat: 10, lon: 10), [0])
        let slot = try index.insert(.circle(CircleRecord(id: "a", lat: 20, lon: 20, radius: 100)))
        XCTAssertEqual(slot, 1)
        XCTAssertEqual(index.count, 1)
        XCTAssertEqual(index.containing(lat: 10, lon: 10), [])
        XCTAssertEqual(index.containing(lat: 20, lon: 20), [1])
        XCTAssertEqual(index.nearest(5, lat: 10, lon: 10).map(\.slot), [1])
        XCTAssertNil(index.shape(at: 0))
        XCTAssertEqual(index.identifier(of: 0), "a")
        index.compact()
        XCTAssertEqual(index.containing(lat: 20, lon: 20), [1])
        XCTAssertEqual(index.remove(id: "a"), 1)
        XCTAssertEqual(index.count, 0)
        XCTAssertEqual(index.nearest(5, lat: 10, lon: 10), [])
        XCTAssertEqual(index.containing(lat: 20, lon: 20), [])
    }

    func testRejectsBadFences() throws {
        XCTAssertThrowsError(try FenceIndex([.circle(CircleRecord(id: "a", lat: 0, lon: 0, radius: 1)),
                                             .circle(CircleRecord(id: "a", lat: 1, lon: 1, radius: 1))])) { e in
            XCTAssertEqual(e as? FenceIndexError, .duplicateIdentifier("a"))
        }
        for bad in [CircleRecord(id: "r", lat: 0, lon: 0, radius: 0), CircleRecord(id: "n", lat: 0, lon: 0, radius: .nan),
                    CircleRecord(id: "i", lat: 0, lon: 0, radius: .infinity), CircleRecord(id: "l", lat: 91, lon: 0, radius: 1),
                    CircleRecord(id: "o", lat: 0, lon: 181, radius: 1)] {
            XCTAssertThrowsError(try FenceIndex([.circle(bad)]))
        }
        var index = FenceIndex()
        XCTAssertThrowsError(try index.insert(.polygon(PolygonRecord(id: "t", polygons: [[[Coordinate(lon: 0, lat: 0), Coordinate(lon: 1, lat: 0)]]]))))
        XCTAssertEqual(index.count, 0)
        XCTAssertEqual(index.containing(lat: 0, lon: 0), [])
        XCTAssertEqual(index.nearest(3, lat: 0, lon: 0), [])
    }

    /// A point inside hundreds of circles: nearest-N is the N smallest
    /// identifiers (bytewise) at distance 0, before and after changes (fences
    /// added since the build fall between the built ones, several in one gap),
    /// and after a compaction.
    func testDenseTiesOrderByIdentifierThroughChanges() throws {
        var rng = SeededGenerator(seed: 32)
        let centre = (lat: -33.8688, lon: 151.2093)
        func circle(_ id: String) -> Fence {
            let p = Geodesic.wgs84.direct(lat: centre.lat, lon: centre.lon, azimuth: rng.uniform(0, 360), distance: rng.uniform(0, 3000))
            return .circle(CircleRecord(id: id, lat: p.lat, lon: p.lon, radius: rng.logUniform(500, 5000)))
        }
        func id(_ i: Int) -> String {
            // Shared 8-byte prefixes, varied lengths, non-ASCII.
            ["zone-00-\(i)", "zone-00-\(i)-b", "é\(i % 7)-\(i)", "z\(i)", "zone-00-\(i % 10)x\(i)"][i % 5]
        }
        let bf = BruteForce()
        var fences: [Fence] = (0..<700).map { circle(id($0)) }
        var index = try FenceIndex(fences)
        for (i, f) in fences.enumerated() { bf.set(f, slot: Int32(i)) }
        func check(_ label: String) {
            for (dlat, dlon) in [(0.0, 0.0), (0.01, -0.01), (0.03, 0.02), (-0.2, 0.3)] {
                let v = bf.view(lat: centre.lat + dlat, lon: centre.lon + dlon)
                let ranked = v.ranked(maxDistance: .infinity)
                for k in [1, 20, 150] {
                    let got = index.nearest(k, lat: centre.lat + dlat, lon: centre.lon + dlon)
                    assertSameRanking(index, got, Array(ranked.prefix(k)), next: ranked.count > k ? ranked[k].distance : nil,
                                      "\(label) k=\(k) at +\(dlat),+\(dlon)")
                }
            }
        }
        check("built")
        XCTAssertGreaterThan(bf.view(lat: centre.lat, lon: centre.lon).containing().count, 200)
        for i in 700..<900 {
            let f = circle(id(i) + (i % 3 == 0 ? "" : "-late"))
            bf.set(f, slot: try index.insert(f))
        }
        for _ in 0..<60 {
            let live = bf.liveSlots
            let old = live[rng.int(0..<live.count)]
            let name = index.identifier(of: old)
            if rng.chance(0.5) {
                _ = index.remove(id: name)
                bf.remove(slot: old)
            } else {
                let f = circle(name)
                let slot = try index.insert(f)
                bf.remove(slot: old)
                bf.set(f, slot: slot)
            }
        }
        XCTAssertGreaterThan(index.pendingChanges, 0)
        check("changed")
        index.compact()
        check("compacted")
        fences = []
    }
}
