import GeofenceKit
import GeofenceTestSupport
import Glibc

/// A position (degrees).
struct Point {
    var lat: Double
    var lon: Double
}

/// A named set of circle fences with the query points that go with it.
struct CircleWorkload {
    var name: String
    var circles: [CircleRecord]
    /// Point queries (and nearest-20 queries) for this set.
    var queries: [Point]
    /// How the fences and queries were made (for the README and the JSON notes).
    var description: String
}

/// Seeded synthetic workloads.
///
/// - **uniform world**: centres uniform on the sphere, radii log-uniform in
///   100 m – 5 km; queries: half uniform on the sphere (mostly answer "none"),
///   half within 1.5 radii of a random fence centre (mostly inside or near an edge).
/// - **clustered cities**: 300 city centres (latitudes −55°…70°) with
///   Zipf-like weights (w ∝ 1/rank^0.8) and spreads σ of 3–20 km; every fence is
///   a city draw with a Gaussian offset, radius log-uniform in 50 m – 2 km;
///   queries are drawn from the same city distribution (devices live where
///   the fences are), so a point often meets many candidate boxes.
enum Synthetic {
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// The point `d` metres from `p` on bearing `theta` (radians), local-plane
    /// approximation (exact enough for generating data).
    static func offset(_ p: Point, metres d: Double, bearing theta: Double) -> Point {
        var lat = p.lat + d * cos(theta) / metresPerDegree
        let c = max(cos(p.lat * Double.pi / 180), 0.01)
        var lon = p.lon + d * sin(theta) / (metresPerDegree * c)
        if lat > 90 { lat = 180 - lat; lon += 180 }
        if lat < -90 { lat = -180 - lat; lon += 180 }
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        if lon > 180 || lon < -180 { lon = lon.truncatingRemainder(dividingBy: 360) }
        return Point(lat: max(-90, min(90, lat)), lon: max(-180, min(180, lon)))
    }

    static func uniformOnSphere(_ rng: inout SeededGenerator) -> Point {
        Point(lat: asin(rng.uniform(-1, 1)) * 180 / Double.pi, lon: rng.uniform(-180, 180))
    }

    static func uniform(count n: Int, queries q: Int, seed: UInt64) -> CircleWorkload {
        var rng = SeededGenerator(benchmarkSeed: seed ^ 0x5EED_0001)
        var circles: [CircleRecord] = []
        circles.reserveCapacity(n)
        for i in 0..<n {
            let c = uniformOnSphere(&rng)
            circles.append(CircleRecord(id: "u\(i)", lat: c.lat, lon: c.lon, radius: rng.logUniform(100, 5_000)))
        }
        var queries: [Point] = []
        queries.reserveCapacity(q)
        for k in 0..<q {
            if k % 2 == 0 {
                queries.append(uniformOnSphere(&rng))
            } else {
                let f = circles[rng.int(n)]
                let d = f.radius * 1.5 * rng.unit().squareRoot()
                queries.append(offset(Point(lat: f.lat, lon: f.lon), metres: d, bearing: rng.uniform(0, 2 * Double.pi)))
            }
        }
        return CircleWorkload(name: "uniform \(sizeName(n))", circles: circles, queries: queries,
                              description: "centres uniform on the sphere, radii 100 m–5 km log-uniform; queries half uniform, half within 1.5 r of a fence")
    }

    /// City centres and their draw weights and spreads (metres).
    struct Cities {
        var centres: [Point] = []
        var spread: [Double] = []
        var cumulative: [Double] = []

        init(count: Int, zipf: Double = 0.8, rng: inout SeededGenerator) {
            var total = 0.0
            for i in 0..<count {
                let lat = asin(rng.uniform(sin(-55 * Double.pi / 180), sin(70 * Double.pi / 180))) * 180 / Double.pi
                centres.append(Point(lat: lat, lon: rng.uniform(-180, 180)))
                spread.append(rng.uniform(3_000, 20_000))
                total += 1 / pow(Double(i + 1), zipf)
                cumulative.append(total)
            }
            cumulative = cumulative.map { $0 / total }
        }

        func draw(_ rng: inout SeededGenerator) -> Point {
            let u = rng.unit()
            var lo = 0, hi = cumulative.count - 1
            while lo < hi {
                let mid = (lo + hi) / 2
                if cumulative[mid] < u { lo = mid + 1 } else { hi = mid }
            }
            let d = abs(rng.normal()) * spread[lo]
            return Synthetic.offset(centres[lo], metres: d, bearing: rng.uniform(0, 2 * Double.pi))
        }
    }

    static func clustered(count n: Int, queries q: Int, seed: UInt64, cityCount: Int = 300) -> CircleWorkload {
        var rng = SeededGenerator(benchmarkSeed: seed ^ 0x5EED_0002)
        let cities = Cities(count: cityCount, rng: &rng)
        var circles: [CircleRecord] = []
        circles.reserveCapacity(n)
        for i in 0..<n {
            let c = cities.draw(&rng)
            circles.append(CircleRecord(id: "c\(i)", lat: c.lat, lon: c.lon, radius: rng.logUniform(50, 2_000)))
        }
        var queries: [Point] = []
        queries.reserveCapacity(q)
        for _ in 0..<q { queries.append(cities.draw(&rng)) }
        return CircleWorkload(name: "clustered \(sizeName(n))", circles: circles, queries: queries,
                              description: "\(cityCount) cities (Zipf-like weights, σ 3–20 km), radii 50 m–2 km log-uniform; queries from the same city distribution")
    }

    /// The evaluate workload: one city per 500 fences, equal weights, so the fence density
    /// around a device is the same at every size (about one fence per point) and any growth
    /// of the cost with the fence count is the index's, not a growing answer.
    static func scaledCities(count n: Int, seed: UInt64) -> CircleWorkload {
        var rng = SeededGenerator(benchmarkSeed: seed ^ 0x5EED_0006)
        let cities = Cities(count: max(2, n / 500), zipf: 0, rng: &rng)
        var circles: [CircleRecord] = []
        circles.reserveCapacity(n)
        for i in 0..<n {
            let c = cities.draw(&rng)
            circles.append(CircleRecord(id: "s\(i)", lat: c.lat, lon: c.lon, radius: rng.logUniform(50, 2_000)))
        }
        return CircleWorkload(name: "scaled-cities \(sizeName(n))", circles: circles, queries: [],
                              description: "one city per 500 fences (equal weights, σ 3–20 km), radii 50 m–2 km log-uniform")
    }

    static func sizeName(_ n: Int) -> String {
        if n >= 1_000_000 && n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
        if n >= 1_000 && n % 1_000 == 0 { return "\(n / 1_000)k" }
        return "\(n)"
    }
}
