import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// The index against the brute force on seeded synthetic sets.
final class FenceIndexPropertyTests: XCTestCase {
    /// Drops polygons GEOS finds invalid (the index expects validated input).
    static func validOnly(_ fences: [Fence], _ bf: BruteForce) -> [Fence] {
        fences.filter { f in
            if case .polygon(let p) = f.record { return bf.geos.isValid(bf.geos.geometry(p.shape)) }
            return true
        }
    }

    func run(_ fences: [Fence], points: Int, seed: UInt64, label: String) throws {
        var rng = SeededGenerator(seed: seed)
        let bf = BruteForce(fences)
        let index = try FenceIndex(fences)
        XCTAssertEqual(index.count, fences.count)
        for i in 0..<points {
            let p = FenceSets.point(fences, &rng)
            let accuracy = rng.chance(0.3) ? 0 : rng.logUniform(1, 500)
            let margin = rng.chance(0.5) ? 0 : rng.logUniform(1, 200)
            let within = rng.chance(0.2) ? 0 : rng.logUniform(1, 200_000)
            let k = rng.chance(0.7) ? 20 : rng.int(1..<40)
            let maxDistance = rng.chance(0.8) ? Double.infinity : rng.logUniform(10, 1_000_000)
            assertAgrees(index, bf, lat: p.lat, lon: p.lon, accuracy: accuracy, margin: margin, within: within,
                         k: k, maxDistance: maxDistance, "\(label) #\(i)")
        }
    }

    func testUniformWorldCircles() throws {
        var rng = SeededGenerator(seed: 1)
        let fences = FenceSets.uniformCircles(3000, &rng) + FenceSets.specialCircles(&rng)
        try run(fences, points: 250, seed: 11, label: "uniform")
    }

    func testClusteredCityCircles() throws {
        var rng = SeededGenerator(seed: 2)
        let fences = FenceSets.clusteredCircles(3000, &rng)
        try run(fences, points: 250, seed: 12, label: "clustered")
    }

    func testSpecialCircles() throws {
        var rng = SeededGenerator(seed: 3)
        let fences = FenceSets.specialCircles(&rng) + FenceSets.uniformCircles(200, &rng)
        try run(fences, points: 500, seed: 13, label: "special")
    }

    func testPolygonsAndCircles() throws {
        var rng = SeededGenerator(seed: 4)
        let bf = BruteForce()
        let polygons = Self.validOnly(FenceSets.polygons(45, &rng, near: FenceSets.cities), bf)
        XCTAssertGreaterThan(polygons.count, 40)
        let fences = polygons + FenceSets.clusteredCircles(400, &rng) + FenceSets.specialCircles(&rng)
        try run(fences, points: 300, seed: 14, label: "polygons")
    }

    /// Points on circle edges by `Geodesic.direct` at the radius: the index
    /// must call them as the exact geodesic does, whatever side rounding puts them.
    func testPointsOnCircleEdges() throws {
        var rng = SeededGenerator(seed: 5)
        let fences = FenceSets.specialCircles(&rng) + FenceSets.uniformCircles(300, &rng)
        let index = try FenceIndex(fences)
        var inside = 0, outside = 0
        for f in fences {
            guard case .circle(let c) = f.record else { continue }
            for _ in 0..<4 {
                let p = Geodesic.wgs84.direct(lat: c.lat, lon: c.lon, azimuth: rng.uniform(0, 360), distance: c.radius)
                let d = Geodesic.wgs84.distance(lat1: c.lat, lon1: c.lon, lat2: p.lat, lon2: p.lon)
                if d <= c.radius { inside += 1 } else { outside += 1 }
                let slot = index.slot(of: c.id)!
                XCTAssertEqual(index.contains(slot, lat: p.lat, lon: p.lon), d <= c.radius, c.id)
                XCTAssertEqual(index.containing(lat: p.lat, lon: p.lon).contains(slot), d <= c.radius, c.id)
                XCTAssertEqual(index.within(0, ofLat: p.lat, lon: p.lon).contains(slot), d <= c.radius, c.id)
                let expected: FenceState = d <= c.radius ? .inside : .outside
                XCTAssertEqual(index.state(of: slot, lat: p.lat, lon: p.lon), expected, c.id)
            }
        }
        XCTAssertGreaterThan(inside, 100)
        XCTAssertGreaterThan(outside, 100)
    }

    func testIntersectingBoxes() throws {
        var rng = SeededGenerator(seed: 6)
        let bf0 = BruteForce()
        let fences = Self.validOnly(FenceSets.polygons(30, &rng, near: FenceSets.cities), bf0)
            + FenceSets.specialCircles(&rng) + FenceSets.uniformCircles(1500, &rng) + FenceSets.clusteredCircles(500, &rng)
        let bf = BruteForce(fences)
        let index = try FenceIndex(fences)
        for i in 0..<120 {
            var box: GeoBox
            switch i % 6 {
            case 0:  // around a city
                let c = FenceSets.cities[rng.int(0..<FenceSets.cities.count)]
                let w = rng.logUniform(0.001, 1), h = rng.logUniform(0.001, 1)
                box = GeoBox(west: max(-180, c.1 - w), south: max(-90, c.0 - h), east: min(180, c.1 + w), north: min(90, c.0 + h))
            case 1:  // crossing the antimeridian
                box = GeoBox(west: rng.uniform(150, 179.99), south: rng.uniform(-60, 0), east: rng.uniform(-179.99, -150), north: rng.uniform(0, 60))
            case 2:  // polar
                box = GeoBox(west: rng.uniform(-180, 0), south: rng.uniform(80, 89), east: rng.uniform(0, 180), north: 90)
            case 3:  // degenerate: a point or a line
                let lat = FenceSets.randomLatitude(&rng), lon = rng.uniform(-180, 180)
                box = GeoBox(west: lon, south: lat, east: rng.chance(0.5) ? lon : min(180, lon + 1), north: lat)
            case 4:  // anywhere, any size
                let lon = rng.uniform(-180, 180), lat = rng.uniform(-90, 90)
                let w = rng.logUniform(0.01, 100)
                var east = lon + w
                if east > 180 { east -= 360 }
                box = GeoBox(west: lon, south: max(-90, lat - w / 2), east: east, north: min(90, lat + w / 2))
            default:  // near a circle edge
                guard case .circle(let c) = fences[rng.int(0..<fences.count)].record else { continue }
                let p = Geodesic.wgs84.direct(lat: c.lat, lon: c.lon, azimuth: rng.uniform(0, 360), distance: c.radius * rng.uniform(0.9, 1.1))
                let w = rng.logUniform(0.0001, 0.5)
                box = GeoBox(west: max(-180, p.lon), south: max(-90, p.lat), east: min(180, p.lon + w), north: min(90, p.lat + w))
            }
            let got = Set(index.intersecting(box))
            for s in bf.liveSlots {
                guard let expected = bf.intersects(s, box) else { continue }
                if got.contains(s) != expected {
                    XCTFail("box \(box): \(index.identifier(of: s)) index \(got.contains(s)) reference \(expected)")
                }
            }
        }
    }

    func testNearestOrderIsDeterministicOnTies() throws {
        var rng = SeededGenerator(seed: 7)
        let fences = FenceSets.specialCircles(&rng).filter { $0.id.hasPrefix("dup") || $0.id.hasPrefix("nest") }
        let index = try FenceIndex(fences)
        // Inside all five identical circles and the nested ones: distance 0, ordered by identifier.
        let got = index.nearest(5, lat: 51.5, lon: -0.12).map { index.identifier(of: $0.slot) }
        XCTAssertEqual(got, ["dup-a", "dup-b", "dup-c", "dup-d", "dup-e"])
        let all = index.nearest(20, lat: 51.5, lon: -0.12).map { index.identifier(of: $0.slot) }
        XCTAssertEqual(all, ["dup-a", "dup-b", "dup-c", "dup-d", "dup-e", "nest-0", "nest-1", "nest-2", "dup-far-0", "dup-far-1"])
        // Outside two identical circles: equal exact distances, ordered by identifier.
        let far = index.nearest(2, lat: -33.95, lon: 18.4)
        XCTAssertEqual(far.map { index.identifier(of: $0.slot) }, ["dup-far-0", "dup-far-1"])
        XCTAssertEqual(far[0].distance, far[1].distance)
        XCTAssertGreaterThan(far[0].distance, 0)
    }

    /// Circles whose radius is, bit for bit, the geodesic distance from the
    /// centre to a query point: that point is on the edge, and inside.
    func testRadiusEqualToExactDistance() throws {
        var rng = SeededGenerator(seed: 8)
        var fences: [Fence] = []
        var points: [(Double, Double)] = []
        for i in 0..<300 {
            let lat = FenceSets.randomLatitude(&rng), lon = rng.uniform(-180, 180)
            let target = [1.0, 50, 1000, 20_000, 5_000_000][i % 5]
            let p = Geodesic.wgs84.direct(lat: lat, lon: lon, azimuth: rng.uniform(0, 360), distance: target * rng.uniform(0.5, 1.5))
            let r = Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: p.lat, lon2: p.lon)
            fences.append(.circle(CircleRecord(id: "e\(i)", lat: lat, lon: lon, radius: r)))
            points.append((p.lat, p.lon))
        }
        let index = try FenceIndex(fences)
        for (i, p) in points.enumerated() {
            let slot = Int32(i)
            XCTAssertTrue(index.contains(slot, lat: p.0, lon: p.1))
            XCTAssertTrue(index.containing(lat: p.0, lon: p.1).contains(slot))
            XCTAssertEqual(index.state(of: slot, lat: p.0, lon: p.1), .inside)
            XCTAssertEqual(index.state(of: slot, lat: p.0, lon: p.1, accuracy: 0, exitMargin: 5), .inside)
            XCTAssertTrue(index.classify(lat: p.0, lon: p.1).contains(FenceClassification(slot: slot, state: .inside)))
            XCTAssertTrue(index.within(0, ofLat: p.0, lon: p.1).contains(slot))
            XCTAssertEqual(index.distance(to: slot, lat: p.0, lon: p.1), 0)
            XCTAssertTrue(index.nearest(400, lat: p.0, lon: p.1).contains(Neighbor(slot: slot, distance: 0)))
            // With any accuracy the edge point is uncertain.
            XCTAssertEqual(index.state(of: slot, lat: p.0, lon: p.1, accuracy: 0.5), .uncertain)
        }
    }
}
