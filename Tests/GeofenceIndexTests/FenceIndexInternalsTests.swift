@testable import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// The predicates and bounds the index rests on.
final class FenceIndexInternalsTests: XCTestCase {
    /// Exact orientation against integer arithmetic on grid coordinates
    /// (multiples of 2^-24, so the true determinant is an exact Int64).
    func testOrientationIsExact() {
        var rng = SeededGenerator(seed: 51)
        let scale = 1.0 / Double(1 << 24)
        var fallbacks = 0
        for _ in 0..<20_000 {
            let ax = Int64(rng.int(-(1 << 29)..<(1 << 29))), ay = Int64(rng.int(-(1 << 29)..<(1 << 29)))
            // b and c on a lattice line through a, then c nudged by at most one grid step.
            let dx = Int64(rng.int(-4000..<4000)), dy = Int64(rng.int(-4000..<4000))
            let kb = Int64(rng.int(-30000..<30000)), kc = Int64(rng.int(-30000..<30000))
            let bx = ax + kb * dx, by = ay + kb * dy
            let cx = ax + kc * dx + Int64(rng.int(-1..<2)), cy = ay + kc * dy + Int64(rng.int(-1..<2))
            let det = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
            let expected = det > 0 ? 1 : (det < 0 ? -1 : 0)
            let d = { (v: Int64) in Double(v) * scale }
            // Shifted far from the origin, so the differences are not exact in floating point.
            let o = 100.0 + 1.0 / 3.0
            let got = Orientation.sign(d(ax) + o, d(ay) - o, d(bx) + o, d(by) - o, d(cx) + o, d(cy) - o)
            let exactShifted = Orientation.exactSign(d(ax) + o, d(ay) - o, d(bx) + o, d(by) - o, d(cx) + o, d(cy) - o)
            XCTAssertEqual(got, exactShifted)
            XCTAssertEqual(Orientation.sign(d(ax), d(ay), d(bx), d(by), d(cx), d(cy)), expected)
            XCTAssertEqual(Orientation.exactSign(d(ax), d(ay), d(bx), d(by), d(cx), d(cy)), expected)
            if expected == 0 { fallbacks += 1 }
        }
        XCTAssertGreaterThan(fallbacks, 100, "collinear cases exercised")
    }

    /// The sphere bound the filters rely on, spot-checked here (GeodesyTests own it).
    func testSphereBoundHolds() {
        var rng = SeededGenerator(seed: 52)
        for i in 0..<20_000 {
            let lat1 = FenceSets.randomLatitude(&rng), lon1 = rng.uniform(-180, 180)
            let p = Geodesic.wgs84.direct(lat: lat1, lon: lon1, azimuth: rng.uniform(0, 360),
                                          distance: i % 2 == 0 ? rng.logUniform(0.01, 100_000) : rng.uniform(0, 20_000_000))
            let s = Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: p.lat, lon2: p.lon)
            let d = Sphere.distance(lat1: lat1, lon1: lon1, lat2: p.lat, lon2: p.lon)
            XCTAssertLessThanOrEqual(abs(s - d), Sphere.relativeError * d + Sphere.absoluteError)
        }
    }

    /// Circle distance bounds bracket the exact geodesic; cap boxes hold the circle.
    func testCircleBoundsAndBoxes() {
        var rng = SeededGenerator(seed: 53)
        for i in 0..<5000 {
            let lat = i % 10 == 0 ? rng.uniform(85, 90) * (rng.chance(0.5) ? 1 : -1) : FenceSets.randomLatitude(&rng)
            let lon = i % 7 == 0 ? (rng.chance(0.5) ? 179.99 : -180) : rng.uniform(-180, 180)
            let r = [1.0, 50, 2000, 100_000, 5_000_000, 15_000_000][i % 6] * rng.uniform(0.5, 1)
            let c = CompiledCircle(lat: lat, lon: lon, radius: r)
            let box = SphericalBounds.capBox(lat: lat, lon: lon, angle: SphericalBounds.capAngle(metres: r))
            for _ in 0..<4 {
                let q = Geodesic.wgs84.direct(lat: lat, lon: lon, azimuth: rng.uniform(0, 360), distance: r * rng.uniform(0, 1))
                XCTAssertTrue(box.contains(lat: q.lat, lon: q.lon), "cap box \(box) misses \(q) of \(lat),\(lon) r=\(r)")
                let far = Geodesic.wgs84.direct(lat: lat, lon: lon, azimuth: rng.uniform(0, 360), distance: r * rng.logUniform(0.01, 5))
                var p = QueryPoint(lat: far.lat, lon: far.lon)
                let exact = c.exactDistance(p)
                let b = c.distanceBounds(&p)
                XCTAssertLessThanOrEqual(b.lower, exact)
                XCTAssertGreaterThanOrEqual(b.upper, exact)
            }
        }
    }

    /// Box lower bounds never exceed the geodesic distance to a point in the box.
    func testBoxLowerBounds() {
        var rng = SeededGenerator(seed: 54)
        for i in 0..<5000 {
            let lat = i % 5 == 0 ? rng.uniform(80, 90) : FenceSets.randomLatitude(&rng), lon = rng.uniform(-180, 180)
            let w = rng.uniform(-180, 180), width = rng.logUniform(0.001, 300)
            let s = rng.uniform(-90, 90), height = rng.logUniform(0.001, 90)
            let box = (west: w, south: s, east: min(180, w + width), north: min(90, s + height))
            let cosLat = cos(lat * .pi / 180)
            let fast = SphericalBounds.geodesicLowerBound(angle: SphericalBounds.fastAngleLowerBound(
                lat: lat, lon: lon, cosLat: cosLat, west: box.west, south: box.south, east: box.east, north: box.north))
            let slow = SphericalBounds.geodesicLowerBound(angle: SphericalBounds.angleLowerBound(
                lat: lat, lon: lon, cosLat: cosLat, west: box.west, south: box.south, east: box.east, north: box.north))
            for _ in 0..<8 {
                let qlat = rng.uniform(box.south, box.north), qlon = rng.uniform(box.west, box.east)
                let d = Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: qlat, lon2: qlon)
                XCTAssertLessThanOrEqual(fast, d)
                XCTAssertLessThanOrEqual(slow, d)
            }
            // Corners and the nearest meridian points too.
            for (qlat, qlon) in [(box.south, box.west), (box.north, box.east), (box.north, box.west), (box.south, box.east)] {
                let d = Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: qlat, lon2: qlon)
                XCTAssertLessThanOrEqual(fast, d)
                XCTAssertLessThanOrEqual(slow, d)
            }
        }
    }

    /// The ellipsoidal lower bounds never exceed the exact geodesic, at any
    /// distance, latitude or longitude difference, and are tight nearby.
    func testEllipsoidLowerBounds() {
        var rng = SeededGenerator(seed: 56)
        var worstNearby = 0.0
        for i in 0..<20_000 {
            let lat1 = i % 4 == 0 ? rng.uniform(-90, 90) : FenceSets.randomLatitude(&rng), lon1 = rng.uniform(-180, 180)
            let dist = [rng.logUniform(0.01, 1000), rng.logUniform(1000, 200_000), rng.uniform(0, 20_000_000), rng.uniform(19_000_000, 20_004_000)][i % 4]
            let q = Geodesic.wgs84.direct(lat: lat1, lon: lon1, azimuth: rng.uniform(0, 360), distance: dist)
            let s = Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: q.lat, lon2: q.lon)
            let c1 = cos(lat1 * .pi / 180), c2 = cos(q.lat * .pi / 180)
            let table = EllipsoidBounds.muTable
            let mu1 = EllipsoidBounds.mu(lat1, table)
            XCTAssertEqual(mu1, EllipsoidBounds.rectifyingLatitude(lat1), accuracy: EllipsoidBounds.muError)
            let lb = EllipsoidBounds.lowerBound(lat1: lat1, lon1: lon1, cos1: c1, mu1: mu1, cosMu1: cos(mu1),
                                                lat2: q.lat, lon2: q.lon, cos2: c2, table: table)
            XCTAssertGreaterThanOrEqual(lb, EllipsoidBounds.lowerBound(lat1: lat1, lon1: lon1, cos1: c1, lat2: q.lat, lon2: q.lon, cos2: c2))
            XCTAssertLessThanOrEqual(lb, s, "\(lat1),\(lon1) -> \(q.lat),\(q.lon)")
            if s > 1000 && s < 200_000 { worstNearby = max(worstNearby, (s - lb) / s) }
            // Boxes around q.
            let w = rng.logUniform(0.0001, 40), h = rng.logUniform(0.0001, 20)
            let west = max(-180, q.lon - w * rng.uniform(0, 1)), south = max(-90, q.lat - h * rng.uniform(0, 1))
            let east = min(180, west + w), north = min(90, south + h)
            let blb = EllipsoidBounds.lowerBound(lat: lat1, lon: lon1, cosLat: c1, mu: mu1, cosMu: cos(mu1),
                                                 west: west, south: south, east: east, north: north, table: table)
            for (la, lo) in [(q.lat, q.lon), (south, west), (north, east), (south, east), (north, west),
                             (rng.uniform(south, north), rng.uniform(west, east)), (min(max(lat1, south), north), rng.uniform(west, east))] {
                guard la >= south && la <= north && lo >= west && lo <= east else { continue }
                XCTAssertLessThanOrEqual(blb, Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: la, lon2: lo))
            }
        }
        XCTAssertLessThan(worstNearby, 0.002, "tight between 1 and 200 km")
        // The rectifying latitude measures the meridian: R_r μ(90°) is the quarter meridian.
        let quarter = Geodesic.wgs84.distance(lat1: 0, lon1: 0, lat2: 90, lon2: 0)
        XCTAssertEqual(EllipsoidBounds.rectifyingRadius * EllipsoidBounds.rectifyingLatitude(90), quarter, accuracy: 1e-3)
        XCTAssertEqual(EllipsoidBounds.rectifyingRadius * EllipsoidBounds.rectifyingLatitude(37), Geodesic.wgs84.distance(lat1: 0, lon1: 5, lat2: 37, lon2: 5), accuracy: 1e-3)
    }

    /// The packed tree finds exactly the boxes a linear scan finds.
    func testPackedTreeSearchMatchesScan() {
        var rng = SeededGenerator(seed: 55)
        for n in [0, 1, 15, 16, 17, 255, 256, 257, 5000] {
            var entries: [IndexEntry] = []
            for i in 0..<n {
                let w = rng.uniform(-180, 179), s = rng.uniform(-90, 89)
                let box = BoundingBox(west: w, south: s, east: min(180, w + rng.logUniform(0.0001, 5)), north: min(90, s + rng.logUniform(0.0001, 5)))
                entries.append(IndexEntry(box: box, value: UInt32(i) << EntryValue.payloadShift))
            }
            let tree = PackedRTree(entries: entries)
            XCTAssertEqual(tree.count, n)
            for _ in 0..<200 {
                let w = rng.uniform(-180, 180), s = rng.uniform(-90, 90)
                var e = w + rng.logUniform(0.001, 60)
                if e > 180 { e -= 360 }
                let q = QueryWindow(GeoBox(west: w, south: s, east: e, north: min(90, s + rng.logUniform(0.001, 30))))
                var found: [UInt32] = []
                _ = tree.search(q) { found.append(tree.value(at: $0)); return true }
                let expected = entries.filter { q.intersects($0.box) }.map(\.value)
                XCTAssertEqual(found.sorted(), expected.sorted())
                var first = 0
                _ = tree.search(q) { _ in first += 1; return false }
                XCTAssertEqual(first, expected.isEmpty ? 0 : 1, "visitor stops early")
            }
        }
    }

    /// The fast cap box holds the exact one (and so every point within the distance).
    func testFastCapBoxHoldsCapBox() {
        var rng = SeededGenerator(seed: 57)
        for i in 0..<20_000 {
            let lat = i % 5 == 0 ? rng.uniform(-89.5, 89.5) : FenceSets.randomLatitude(&rng)
            let lon = i % 7 == 0 ? (rng.chance(0.5) ? 179.9999 : -180) : rng.uniform(-180, 180)
            let metres = rng.logUniform(0.01, 200_000)
            let angle = SphericalBounds.capAngle(metres: metres)
            let exact = SphericalBounds.capBox(lat: lat, lon: lon, angle: angle)
            let fast = SphericalBounds.capBox(lat: lat, lon: lon, angle: angle, cosLat: cos(lat * .pi / 180))
            XCTAssertLessThanOrEqual(fast.south, exact.south); XCTAssertGreaterThanOrEqual(fast.north, exact.north)
            XCTAssertEqual(fast.crossesAntimeridian, exact.crossesAntimeridian, "\(lat),\(lon) \(metres)")
            if exact.west == -180 && exact.east == 180 {
                XCTAssertTrue(fast.west == -180 && fast.east == 180)
            } else {
                // Longitude half-widths, measured from the centre.
                var ew = lon - exact.west, fw = lon - fast.west
                if ew < 0 { ew += 360 }
                if fw < 0 { fw += 360 }
                XCTAssertGreaterThanOrEqual(fw, ew)
                let q = Geodesic.wgs84.direct(lat: lat, lon: lon, azimuth: rng.uniform(0, 360), distance: metres)
                XCTAssertTrue(fast.contains(lat: q.lat, lon: q.lon))
            }
        }
    }

    /// The polygon early-out: when no edge meets the window of `t` metres, the
    /// boundary distance is above `t` (real and synthetic polygons, points near edges).
    func testBoundaryWindowEarlyOut() throws {
        var rng = SeededGenerator(seed: 58)
        let fences = FenceIndexPropertyTests.validOnly(FenceSets.polygons(60, &rng, near: FenceSets.cities), BruteForce())
        var table = PolygonTable()
        for f in fences { if case .polygon(let p) = f.record { _ = table.append(p.shape) } }
        var decided = 0, near = 0
        for i in 0..<20_000 {
            let poly = i % table.polygonCount
            let p = FenceSets.point([fences[poly]], &rng)
            guard abs(p.lat) < 89.9 else { continue }
            var q = QueryPoint(lat: p.lat, lon: p.lon)
            let t = rng.logUniform(0.1, 20_000)
            let k = q.planeScales()
            let b = table.boundaryDistance(polygon: poly, lat: q.lat, lon: q.lon, cosLat: q.cosLat(), kx: k.kx, ky: k.ky)
            if !table.boundaryMayMeet(polygon: poly, window: q.window(metres: t)) {
                XCTAssertGreaterThan(b, t, "polygon \(poly) at \(p)")
                decided += 1
            } else if b <= t {
                near += 1
            }
        }
        XCTAssertGreaterThan(decided, 2000)
        XCTAssertGreaterThan(near, 2000)
    }

    /// The short-range ellipsoidal upper bound is never below the exact
    /// geodesic (all latitudes it accepts, the antimeridian, tiny distances),
    /// and with the lower bound brackets it within millimetres at kilometres.
    func testEllipsoidUpperBound() {
        var rng = SeededGenerator(seed: 59)
        var worst = 0.0, worstKm = 0.0, applied = 0
        for i in 0..<40_000 {
            let lat1 = i % 4 == 0 ? rng.uniform(-90, 90) : FenceSets.randomLatitude(&rng)
            let lon1 = i % 9 == 0 ? (rng.chance(0.5) ? 179.9999 : -180) : rng.uniform(-180, 180)
            let dist = [rng.logUniform(1e-4, 10), rng.logUniform(10, 5000), rng.logUniform(5000, 150_000)][i % 3]
            let q = Geodesic.wgs84.direct(lat: lat1, lon: lon1, azimuth: rng.uniform(0, 360), distance: dist)
            let s = Geodesic.wgs84.distance(lat1: lat1, lon1: lon1, lat2: q.lat, lon2: q.lon)
            var p = QueryPoint(lat: lat1, lon: lon1)
            let c = CompiledCircle(lat: q.lat, lon: q.lon, radius: 1)
            let t = c.tightBounds(&p)
            XCTAssertLessThanOrEqual(t.lower, s, "\(lat1),\(lon1) -> \(q.lat),\(q.lon)")
            XCTAssertGreaterThanOrEqual(t.upper, s, "\(lat1),\(lon1) -> \(q.lat),\(q.lon)")
            if t.upper.isFinite {
                applied += 1
                if s > 100 && s < 10_000 { worst = max(worst, (t.upper - t.lower) / s) }
                if s > 100 && s < 1_000 { worstKm = max(worstKm, (t.upper - t.lower) / s) }
            } else {
                XCTAssertTrue(abs(lat1) > 80 || s > 50_000, "upper bound applies at \(lat1) for \(s) m")
            }
        }
        XCTAssertGreaterThan(applied, 20_000)
        XCTAssertLessThan(worst, 2e-5, "tight up to 10 km (the meridional radius varies by ~1.6e-5 over 10 km)")
        XCTAssertLessThan(worstKm, 4e-6, "millimetres at a kilometre")
    }

    /// The libm-free cosine of a latitude agrees with libm to a few ulps
    /// (relatively, also next to the poles, where it is the more accurate).
    func testCosDegrees() {
        var rng = SeededGenerator(seed: 60)
        for i in 0..<200_000 {
            let lat = i % 3 == 0 ? rng.uniform(-90, 90) : (rng.chance(0.5) ? 1 : -1) * (90 - rng.logUniform(1e-9, 90))
            let fast = SphericalBounds.cosDegrees(lat)
            let a = abs(lat)
            let reference = a <= 45 ? cos(a * .pi / 180) : sin((90 - a) * .pi / 180)
            XCTAssertLessThanOrEqual(abs(fast - reference), 4 * reference.ulp, "\(lat)")
        }
        XCTAssertEqual(SphericalBounds.cosDegrees(0), 1)
        XCTAssertEqual(SphericalBounds.cosDegrees(90), 0)
        XCTAssertEqual(SphericalBounds.cosDegrees(-90), 0)
    }
}
