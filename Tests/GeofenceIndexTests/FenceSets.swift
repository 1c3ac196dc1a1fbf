import GeofenceTestSupport
import GeofenceIndex
import Foundation
import Geodesy

/// Seeded synthetic fence sets and query points.
enum FenceSets {
    static func randomLatitude(_ rng: inout SeededGenerator) -> Double {
        asin(rng.uniform(-1, 1)) * 180 / .pi
    }

    /// Circles uniform over the sphere, radii log-uniform 50 m – 20 km.
    static func uniformCircles(_ n: Int, _ rng: inout SeededGenerator, prefix: String = "u") -> [Fence] {
        (0..<n).map { i in
            .circle(CircleRecord(id: "\(prefix)\(i)", lat: randomLatitude(&rng), lon: rng.uniform(-180, 180),
                                radius: rng.logUniform(50, 20_000)))
        }
    }

    /// City-like clusters: centres scattered within ~30 km of a few cities, radii 30 m – 2 km.
    static let cities: [(Double, Double)] = [(48.8566, 2.3522), (40.7128, -74.0060), (35.6762, 139.6503), (-33.8688, 151.2093),
                                             (64.1466, -21.9426), (-54.8019, -68.3030), (1.3521, 103.8198), (-17.7134, 178.065)]
    static func clusteredCircles(_ n: Int, _ rng: inout SeededGenerator, prefix: String = "c") -> [Fence] {
        (0..<n).map { i in
            let city = cities[rng.int(0..<cities.count)]
            let p = Geodesic.wgs84.direct(lat: city.0, lon: city.1, azimuth: rng.uniform(0, 360), distance: 30_000 * rng.uniform(0, 1).squareRoot())
            return .circle(CircleRecord(id: "\(prefix)\(i)", lat: p.lat, lon: p.lon, radius: rng.logUniform(30, 2000)))
        }
    }

    /// Antimeridian, polar, tiny, huge circles and duplicate centres.
    static func specialCircles(_ rng: inout SeededGenerator) -> [Fence] {
        var out: [Fence] = []
        func add(_ id: String, _ lat: Double, _ lon: Double, _ r: Double) { out.append(.circle(CircleRecord(id: id, lat: lat, lon: lon, radius: r))) }
        // Antimeridian
        add("am-1", 10, 179.999, 5_000); add("am-2", -30, -179.95, 50_000); add("am-3", 60, 180, 100_000)
        add("am-4", 0, -180, 20_000); add("am-5", -16.5, 179.9, 300_000); add("am-6", 65.5, -179.9, 80_000)
        // Polar
        add("pole-n", 90, 0, 50_000); add("pole-s", -90, 45, 200_000); add("near-n", 89.9, 120, 50_000)
        add("n88", 88, -60, 300_000); add("n85", 85, 10, 1_000_000); add("s89", -89.5, -100, 30_000)
        add("n-edge", 89.99, 179.99, 2_000)
        // Tiny (1 m) and small
        for i in 0..<6 { add("tiny-\(i)", randomLatitude(&rng), rng.uniform(-180, 180), 1) }
        add("tiny-am", -5, 180, 1); add("tiny-pole", 89.99999, 0, 1)
        // Huge
        add("huge-5000", 20, 30, 5_000_000); add("huge-5000b", -60, -150, 5_000_000); add("huge-15000", 45, -100, 15_000_000)
        add("huge-8000-am", 0, 180, 8_000_000)
        // Duplicate centres: identical circles (ties by identifier) and nested ones.
        for s in ["dup-c", "dup-a", "dup-e", "dup-b", "dup-d"] { add(s, 51.5, -0.12, 800) }
        for (i, r) in [100.0, 800, 5000].enumerated() { add("nest-\(i)", 51.5, -0.12, r) }
        add("dup-far-1", -33.9, 18.4, 1500); add("dup-far-0", -33.9, 18.4, 1500)
        return out
    }

    /// Star-shaped polygon (simple by construction) around a centre, radius in degrees.
    static func star(_ lat: Double, _ lon: Double, radius: Double, vertices: Int, _ rng: inout SeededGenerator,
                     inner: Double = 0.5) -> [Coordinate] {
        var angles = (0..<vertices).map { _ in rng.uniform(0, 2 * .pi) }
        angles.sort()
        var ring = angles.map { a -> Coordinate in
            let r = radius * rng.uniform(inner, 1)
            return Coordinate(lon: lon + r * cos(a), lat: lat + r * sin(a))
        }
        ring.append(ring[0])
        return ring
    }

    static func rectangle(_ w: Double, _ s: Double, _ e: Double, _ n: Double) -> [Coordinate] {
        [Coordinate(lon: w, lat: s), Coordinate(lon: e, lat: s), Coordinate(lon: e, lat: n), Coordinate(lon: w, lat: n), Coordinate(lon: w, lat: s)]
    }

    /// Polygons: stars with and without holes, multipolygons, many-vertex
    /// shapes (latitude bands), axis-aligned rectangles (exact boundary
    /// points), antimeridian-split multipolygons, a polar cap band.
    static func polygons(_ n: Int, _ rng: inout SeededGenerator, near: [(Double, Double)] = [], prefix: String = "p") -> [Fence] {
        var out: [Fence] = []
        for i in 0..<n {
            let id = "\(prefix)\(i)"
            var lat: Double, lon: Double
            if !near.isEmpty && rng.chance(0.7) {
                let c = near[rng.int(0..<near.count)]
                lat = c.0 + rng.uniform(-0.3, 0.3); lon = c.1 + rng.uniform(-0.3, 0.3)
            } else {
                lat = rng.uniform(-75, 75); lon = rng.uniform(-170, 170)
            }
            let radius = rng.logUniform(0.002, 2)
            lat = min(max(lat, -88 + radius), 88 - radius)
            lon = min(max(lon, -179.9 + radius), 179.9 - radius)
            switch i % 5 {
            case 0:
                out.append(.polygon(PolygonRecord(id: id, polygons: [[star(lat, lon, radius: radius, vertices: rng.int(3..<12), &rng)]])))
            case 1:
                let shell = star(lat, lon, radius: radius, vertices: rng.int(20..<400), &rng)
                let hole = star(lat, lon, radius: radius * 0.4, vertices: rng.int(3..<60), &rng, inner: 0.3)
                out.append(.polygon(PolygonRecord(id: id, polygons: [[shell, hole]])))
            case 2:
                let a = star(lat, lon, radius: radius, vertices: rng.int(5..<80), &rng)
                let b = star(lat + 2.5 * radius, lon + 2.5 * radius, radius: radius, vertices: rng.int(5..<80), &rng)
                out.append(.polygon(PolygonRecord(id: id, polygons: [[a], [b]])))
            case 3:
                let w = rng.uniform(0.001, 0.5), h = rng.uniform(0.001, 0.5)
                out.append(.polygon(PolygonRecord(id: id, polygons: [[rectangle(lon - w, lat - h, lon + w, lat + h),
                                                                     rectangle(lon - w / 2, lat - h / 2, lon + w / 3, lat + h / 4)]])))
            default:
                out.append(.polygon(PolygonRecord(id: id, polygons: [[star(lat, lon, radius: radius, vertices: rng.int(40..<120), &rng, inner: 0.9)]])))
            }
        }
        // Antimeridian split multipolygon (like Fiji), a polar cap band, a south polar star.
        out.append(.polygon(PolygonRecord(id: "\(prefix)-am", polygons: [
            [[Coordinate(lon: 170, lat: -10), Coordinate(lon: 180, lat: -10), Coordinate(lon: 180, lat: 0), Coordinate(lon: 175, lat: 5), Coordinate(lon: 170, lat: -10)]],
            [[Coordinate(lon: -180, lat: -10), Coordinate(lon: -172, lat: -12), Coordinate(lon: -170, lat: -2), Coordinate(lon: -180, lat: 2), Coordinate(lon: -180, lat: -10)]],
        ])))
        out.append(.polygon(PolygonRecord(id: "\(prefix)-cap", polygons: [[rectangle(-180, 84, 180, 90)]])))
        out.append(.polygon(PolygonRecord(id: "\(prefix)-south", polygons: [[star(-86, 30, radius: 2, vertices: 50, &rng)]])))
        return out
    }

    /// A query point: uniform, near a fence (inside, outside, exactly on a
    /// circle's edge by `Geodesic.direct`, on polygon vertices and axis-aligned
    /// edges), or on the special lines (poles, antimeridian).
    static func point(_ fences: [Fence], _ rng: inout SeededGenerator) -> (lat: Double, lon: Double) {
        let roll = rng.uniform(0, 1)
        if roll < 0.2 || fences.isEmpty { return (randomLatitude(&rng), rng.uniform(-180, 180)) }
        if roll < 0.24 {
            switch rng.int(0..<6) {
            case 0: return (90, rng.uniform(-180, 180))
            case 1: return (-90, rng.uniform(-180, 180))
            case 2: return (randomLatitude(&rng), 180)
            case 3: return (randomLatitude(&rng), -180)
            case 4: return (rng.uniform(-20, 20), rng.chance(0.5) ? 179.9999 : -179.9999)
            default: return (rng.uniform(84, 90), rng.uniform(-180, 180))
            }
        }
        switch fences[rng.int(0..<fences.count)].record {
        case .circle(let c):
            let factors: [Double] = [0, 0.3, 0.999, 1, 1, 1, 1.0001, 1.01, 1.5, 3]
            let f = factors[rng.int(0..<factors.count)]
            let p = Geodesic.wgs84.direct(lat: c.lat, lon: c.lon, azimuth: rng.uniform(0, 360), distance: c.radius * f)
            return (p.lat, p.lon)
        case .polygon(let p):
            let s = p.shape
            let v = rng.int(0..<s.vertexCount - 1)
            let x1 = s.coordinates[2 * v], y1 = s.coordinates[2 * v + 1]
            let x2 = s.coordinates[2 * v + 2], y2 = s.coordinates[2 * v + 3]
            switch rng.int(0..<4) {
            case 0: return (y1, x1)  // a vertex
            case 1: return ((y1 + y2) / 2, (x1 + x2) / 2)  // mid-edge (exactly on axis-aligned edges)
            case 2: return (y1 + rng.uniform(-0.01, 0.01), max(-180, min(180, x1 + rng.uniform(-0.01, 0.01))))
            default: return (y1 + rng.uniform(-0.5, 0.5) * 0.05, max(-180, min(180, x1 + rng.uniform(-0.5, 0.5) * 0.05)))
            }
        }
    }
}
