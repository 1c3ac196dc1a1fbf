import Foundation
import GeofenceTestSupport
import GeofenceKit
import Glibc

/// The scattered workload: fixes uniform on the sphere, each device's consecutive fixes
/// independent (thousands of kilometres apart), so nothing is coherent from one fix to the
/// next and almost every fix meets no fence. Written as files for the CLI and the peers.
enum Scattered {
    static let fixesPerDevice = 100

    /// `total` fixes of `total / fixesPerDevice` devices, interleaved round robin every 10 s,
    /// positions uniform on the sphere rounded to 7 decimals (so the CSV text reads back to
    /// the same doubles), accuracy a whole number of metres in 3–30.
    static func batches(fixes total: Int, seed: UInt64) -> [[Fix]] {
        var rng = SeededGenerator(benchmarkSeed: seed ^ 0x5EED_0021)
        let devices = max(1, total / fixesPerDevice)
        var out: [[Fix]] = []
        var batch: [Fix] = []
        batch.reserveCapacity(RandomWalk.batchSize)
        var made = 0, step = 0
        while made < total {
            let t = RandomWalk.startTime + Double(step) * 10
            for d in 0..<devices where made < total {
                let p = Synthetic.uniformOnSphere(&rng)
                batch.append(Fix(device: Int32(d), time: t, lat: seven(p.lat), lon: seven(p.lon), accuracy: Double(3 + rng.int(28))))
                made += 1
                if batch.count == RandomWalk.batchSize {
                    out.append(batch)
                    batch = []
                    batch.reserveCapacity(RandomWalk.batchSize)
                }
            }
            step += 1
        }
        if !batch.isEmpty { out.append(batch) }
        return out
    }

    /// `v` rounded to 7 decimals: the double nearest to k / 10^7 (one correctly rounded division).
    static func seven(_ v: Double) -> Double { (v * 1e7).rounded() / 1e7 }

    /// Circles as CSV `id,lat,lon,radius`, numbers in their shortest round-trip form.
    static func writeCircles(_ circles: [CircleRecord], to path: String) throws {
        var text = "id,lat,lon,radius\n"
        text.reserveCapacity(circles.count * 48)
        for c in circles { text += "\(c.id),\(c.lat),\(c.lon),\(c.radius)\n" }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// Polygons as a GeoJSON FeatureCollection (Polygon, or MultiPolygon for several parts),
    /// coordinates in their shortest round-trip form, the identifier as the Feature `id`.
    static func writePolygons(_ polygons: [PolygonRecord], to path: String) throws {
        guard let f = fopen(path, "w") else { throw BenchError.failed("cannot create \(path)") }
        defer { fclose(f) }
        var text = "{\"type\":\"FeatureCollection\",\"features\":[\n"
        func flush() throws {
            guard fputs(text, f) >= 0 else { throw BenchError.failed("write failed: \(path)") }
            text = ""
        }
        for (k, p) in polygons.enumerated() {
            let parts = p.shape.polygons
            func ring(_ r: [Coordinate]) -> String { "[" + r.map { "[\($0.lon),\($0.lat)]" }.joined(separator: ",") + "]" }
            func polygon(_ rings: [[Coordinate]]) -> String { "[" + rings.map(ring).joined(separator: ",") + "]" }
            let geometry = parts.count == 1
                ? "{\"type\":\"Polygon\",\"coordinates\":\(polygon(parts[0]))}"
                : "{\"type\":\"MultiPolygon\",\"coordinates\":[\(parts.map(polygon).joined(separator: ","))]}"
            text += "{\"type\":\"Feature\",\"id\":\"\(p.id)\",\"properties\":{},\"geometry\":\(geometry)}"
            text += k + 1 < polygons.count ? ",\n" : "\n"
            if text.utf8.count > 1 << 20 { try flush() }
        }
        text += "]}\n"
        try flush()
    }
}
