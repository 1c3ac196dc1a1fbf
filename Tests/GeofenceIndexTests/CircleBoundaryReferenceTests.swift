@testable import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// Circle decisions next to their thresholds, against PROJ's geodesic (an independent
/// implementation): the haversine filter bounds `cos φ` of the centre from the query's
/// latitude (`CompiledCircle.looseBounds`), so it must bracket the true distance at every
/// latitude (near the poles `tan φ` makes that bound wide), across the antimeridian, and
/// the classification must be the exact geodesic decision through every query path.
final class CircleBoundaryReferenceTests: XCTestCase {
    let proj = PROJGeodesic()

    /// Centre latitudes: uniform on the sphere, close to a pole (down to 1e-7°), the poles, the equator.
    static func latitude(_ i: Int, _ rng: inout SeededGenerator) -> Double {
        let sign: Double = rng.chance(0.5) ? 1 : -1
        switch i % 5 {
        case 0, 1: return FenceSets.randomLatitude(&rng)
        case 2: return sign * (90 - rng.logUniform(1e-7, 10))
        case 3: return sign * rng.uniform(60, 89)
        default: return [90.0, -90, 0, sign * 89.99][rng.int(0..<4)]
        }
    }

    /// Centre longitudes: uniform, on or next to the antimeridian.
    static func longitude(_ i: Int, _ rng: inout SeededGenerator) -> Double {
        switch i % 3 {
        case 0: return rng.uniform(-180, 180)
        case 1: return [180.0, -180, 179.9999, -179.9999][rng.int(0..<4)]
        default: return rng.chance(0.5) ? rng.uniform(179, 180) : rng.uniform(-180, -179)
        }
    }

    static let radii = [1.0, 50, 500, 2_000, 20_000, 200_000, 2_000_000]

    /// The loose bounds (no cosine of the centre) bracket PROJ's distance, and the bounds of
    /// `cos φc · cos φp` bracket the product of libm cosines.
    func testLooseBoundsBracketPROJ() {
        var rng = SeededGenerator(seed: 140)
        var nearPole = 0
        for i in 0..<60_000 {
            let lat = Self.latitude(i, &rng), lon = Self.longitude(i / 5, &rng)
            let r = Self.radii[i % Self.radii.count] * rng.uniform(0.5, 1)
            let c = CompiledCircle(lat: lat, lon: lon, radius: r)
            let scale = i % 4 == 0 ? rng.uniform(0, 3) : 1 + (rng.chance(0.5) ? 1 : -1) * rng.logUniform(1e-9, 0.05)
            let q = proj.direct(lat: lat, lon: lon, azimuth: rng.uniform(-180, 180), distance: r * scale)
            let d = proj.distance(lat1: lat, lon1: lon, lat2: q.lat, lon2: q.lon)
            var p = QueryPoint(lat: q.lat, lon: q.lon)
            let b = c.looseBounds(&p)
            XCTAssertLessThanOrEqual(b.lower, d + 1e-8, "lower: centre \(lat),\(lon) r \(r) point \(q.lat),\(q.lon)")
            XCTAssertGreaterThanOrEqual(b.upper, d - 1e-8, "upper: centre \(lat),\(lon) r \(r) point \(q.lat),\(q.lon)")
            let cc = c.cosProductBounds(&p)
            let product = cos(lat * .pi / 180) * cos(q.lat * .pi / 180)
            XCTAssertLessThanOrEqual(cc.lower, product + 1e-15, "centre \(lat) point \(q.lat)")
            XCTAssertGreaterThanOrEqual(cc.upper, product - 1e-15, "centre \(lat) point \(q.lat)")
            if abs(lat) > 89 { nearPole += 1 }
        }
        XCTAssertGreaterThan(nearPole, 10_000)
    }

    /// For city fences away from the poles the loose bounds are nearly as tight as those with
    /// the exact cosine (wider by `tan φ · |Δφ|` relative on the longitude term, against the
    /// sphere bound's 1.5 %), so they decide about as often; a bound made wide for safety
    /// would pass the test above.
    func testLooseBoundsStayTight() {
        var rng = SeededGenerator(seed: 141)
        for i in 0..<20_000 {
            let lat = rng.uniform(-60, 60), lon = rng.uniform(-180, 180)
            let r = [50.0, 500, 2_000][i % 3]
            let c = CompiledCircle(lat: lat, lon: lon, radius: r)
            let q = proj.direct(lat: lat, lon: lon, azimuth: rng.uniform(-180, 180), distance: r * rng.uniform(0.5, 1.5))
            var p = QueryPoint(lat: q.lat, lon: q.lon)
            let loose = c.looseBounds(&p), exact = c.distanceBounds(&p)
            XCTAssertLessThanOrEqual(loose.upper - loose.lower, (exact.upper - exact.lower) * 1.1 + 1e-6, "\(lat),\(lon) r \(r)")
        }
    }

    /// States of circles at many latitudes (poles and antimeridian included) for points next
    /// to each threshold (`r - a`, `r`, `r + a`, `r + a + m`): from the single-fence query,
    /// the tree search, the candidate cache, containment, `within` and `distance`, all as
    /// PROJ's distance decides; where PROJ and our geodesic are too close to the threshold to
    /// tell (within 1e-7 m), as our geodesic decides (the documented exact test).
    func testClassificationNearBoundariesAgainstPROJ() throws {
        var rng = SeededGenerator(seed: 142)
        var fences: [Fence] = []
        var circles: [CircleRecord] = []
        for i in 0..<240 {
            let c = CircleRecord(id: "b\(i)", lat: Self.latitude(i, &rng), lon: Self.longitude(i / 5, &rng),
                                 radius: Self.radii[i % Self.radii.count] * rng.uniform(0.5, 1))
            circles.append(c)
            fences.append(.circle(c))
        }
        let index = try FenceIndex(fences)
        var cache = CandidateCache(stepsAside: false)
        var checked = 0, byOurs = 0, states: [FenceState: Int] = [:]
        for (k, c) in circles.enumerated() {
            let slot = index.slot(of: c.id)!
            XCTAssertEqual(slot, Int32(k))
            for j in 0..<24 {
                let a = [0.0, 0.0, 5, rng.logUniform(0.01, 2 * c.radius)][j % 4]
                let m = j % 3 == 0 ? 0 : rng.logUniform(0.01, 2 * c.radius)
                let threshold = [c.radius - a, c.radius, c.radius + a, c.radius + a + m][j % 4 == 3 ? 3 : rng.int(0..<4)]
                guard threshold > 0 else { continue }
                let offset = (rng.chance(0.5) ? 1 : -1) * (rng.chance(0.5) ? rng.logUniform(1e-6, 1) : threshold * rng.logUniform(1e-9, 0.02))
                let q = proj.direct(lat: c.lat, lon: c.lon, azimuth: rng.uniform(-180, 180), distance: max(0, threshold + offset))
                let reference = referenceStates(circles, lat: q.lat, lon: q.lon, accuracy: a, margin: m, closeCalls: &byOurs)
                let want = reference[slot] ?? .outside
                states[want, default: 0] += 1
                let label = "\(c.id) (\(c.lat), \(c.lon)) r \(c.radius) at (\(q.lat), \(q.lon)) a \(a) m \(m)"
                XCTAssertEqual(index.state(of: slot, lat: q.lat, lon: q.lon, accuracy: a, exitMargin: m), want, "state: " + label)
                var tree: [Int32: FenceState] = [:], cached: [Int32: FenceState] = [:]
                index.forEachClassified(lat: q.lat, lon: q.lon, accuracy: a, exitMargin: m) { tree[$0.slot] = $0.state; return true }
                index.forEachClassified(lat: q.lat, lon: q.lon, accuracy: a, exitMargin: m, cache: &cache) { cached[$0.slot] = $0.state; return true }
                XCTAssertEqual(tree, reference, "tree: " + label)
                XCTAssertEqual(cached, reference, "cache: " + label)
                let inside = referenceStates(circles, lat: q.lat, lon: q.lon, accuracy: 0, margin: 0, closeCalls: &byOurs)
                    .filter { $0.value == .inside }.keys.sorted()
                XCTAssertEqual(index.containing(lat: q.lat, lon: q.lon), inside, "containing: " + label)
                XCTAssertEqual(index.contains(slot, lat: q.lat, lon: q.lon), inside.contains(slot), "contains: " + label)
                XCTAssertEqual(index.within(0, ofLat: q.lat, lon: q.lon), inside, "within 0: " + label)
                XCTAssertEqual(index.distance(to: slot, lat: q.lat, lon: q.lon) == 0, inside.contains(slot), "distance: " + label)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 5_000)
        for s in [FenceState.inside, .outside, .outsideWithinMargin, .uncertain] {
            XCTAssertGreaterThan(states[s, default: 0], 200, "\(s) exercised")
        }
        XCTAssertLessThan(byOurs, checked / 10, "most calls decided by PROJ's distance")
    }

    /// docs/evaluation.md states of every circle not outside, from PROJ's distance, or from
    /// ours when PROJ's is within 1e-7 m of a threshold (counted in `closeCalls`).
    func referenceStates(_ circles: [CircleRecord], lat: Double, lon: Double, accuracy a: Double, margin m: Double,
                         closeCalls: inout Int) -> [Int32: FenceState] {
        var out: [Int32: FenceState] = [:]
        for (k, c) in circles.enumerated() {
            var d = proj.distance(lat1: c.lat, lon1: c.lon, lat2: lat, lon2: lon)
            if [c.radius - a, c.radius + a, c.radius + a + m].contains(where: { abs(d - $0) < 1e-7 }) {
                d = Geodesic.wgs84.distance(lat1: c.lat, lon1: c.lon, lat2: lat, lon2: lon)
                closeCalls += 1
            }
            let s: FenceState = d + a <= c.radius ? .inside : d - a > c.radius + m ? .outside : d - a > c.radius ? .outsideWithinMargin : .uncertain
            if s != .outside { out[Int32(k)] = s }
        }
        return out
    }
}
