import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// Real fence sets (data/airports.csv, data/countries.geojson), when present.
final class FenceIndexRealDataTests: XCTestCase {
    static func dataFile(_ name: String) -> URL? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for dir in [root.appendingPathComponent("data"), URL(fileURLWithPath: "/work/wt-data/data")] {
            let u = dir.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: u.path) { return u }
        }
        return nil
    }

    /// `id,lat,lon,radius,...` (a tiny reader: the first four columns, unquoted).
    static func loadCircles(_ name: String) throws -> [Fence]? {
        guard let url = dataFile(name) else { return nil }
        let text = try String(contentsOf: url, encoding: .utf8)
        var out: [Fence] = []
        var seen = Set<String>()
        for line in text.split(separator: "\n").dropFirst() {
            let cols = line.split(separator: ",", maxSplits: 4, omittingEmptySubsequences: false)
            guard cols.count >= 4, let lat = Double(cols[1]), let lon = Double(cols[2]), let r = Double(cols[3]) else { continue }
            let id = String(cols[0])
            guard r > 0, seen.insert(id).inserted else { continue }
            out.append(.circle(CircleRecord(id: id, lat: lat, lon: lon, radius: r)))
        }
        return out
    }

    func testAirportsAgainstBruteForce() throws {
        guard let fences = try Self.loadCircles("airports.csv") else { throw XCTSkip("data/airports.csv not present") }
        XCTAssertGreaterThan(fences.count, 20_000)
        let index = try FenceIndex(fences)
        var rng = SeededGenerator(seed: 41)
        let circles = fences.map { f -> CircleRecord in if case .circle(let c) = f.record { return c } else { fatalError() } }

        // Many points: containing and classify, the reference filtered by an
        // exact lower bound (geodesic >= meridian-arc difference >= |Δφ| · 110,574 m).
        let lats = circles.map(\.lat), radii = circles.map(\.radius)
        let perDegree = 110_574.0 * 0.9999
        for i in 0..<2000 {
            let p = FenceSets.point(fences, &rng)
            let a = i % 2 == 0 ? 0 : rng.logUniform(1, 2000), m = i % 3 == 0 ? 0 : rng.logUniform(1, 500)
            var refInside: [Int32] = [], refStates: [Int32: FenceState] = [:]
            for s in 0..<circles.count where abs(lats[s] - p.lat) * perDegree - radii[s] <= a + m {
                let c = circles[s]
                let d = Geodesic.wgs84.distance(lat1: c.lat, lon1: c.lon, lat2: p.lat, lon2: p.lon)
                if d <= c.radius { refInside.append(Int32(s)) }
                let st: FenceState = d + a <= c.radius ? .inside : d - a > c.radius + m ? .outside : d - a > c.radius ? .outsideWithinMargin : .uncertain
                if st != .outside { refStates[Int32(s)] = st }
            }
            XCTAssertEqual(index.containing(lat: p.lat, lon: p.lon), refInside, "point \(p)")
            let got = Dictionary(uniqueKeysWithValues: index.classify(lat: p.lat, lon: p.lon, accuracy: a, exitMargin: m).map { ($0.slot, $0.state) })
            XCTAssertEqual(got, refStates, "point \(p) a=\(a) M=\(m)")
        }

        // Fewer points: everything, against the full brute force.
        let bf = BruteForce(fences)
        for i in 0..<100 {
            let p = FenceSets.point(fences, &rng)
            assertAgrees(index, bf, lat: p.lat, lon: p.lon, accuracy: rng.logUniform(1, 500), margin: rng.logUniform(1, 100),
                         within: rng.logUniform(1, 50_000), k: 20, "airports #\(i)")
        }
    }

    func testPortsAgainstBruteForce() throws {
        guard let fences = try Self.loadCircles("ports.csv") else { throw XCTSkip("data/ports.csv not present") }
        let index = try FenceIndex(fences)
        let bf = BruteForce(fences)
        var rng = SeededGenerator(seed: 42)
        for i in 0..<300 {
            let p = FenceSets.point(fences, &rng)
            assertAgrees(index, bf, lat: p.lat, lon: p.lon, accuracy: rng.logUniform(1, 500), margin: rng.logUniform(1, 100),
                         within: rng.logUniform(1, 50_000), k: 20, "ports #\(i)")
        }
    }

    /// Natural Earth countries (multipolygons, Fiji and Russia split at the antimeridian, Antarctica).
    func testCountriesAgainstGEOS() throws {
        guard let url = Self.dataFile("countries.geojson") else { throw XCTSkip("data/countries.geojson not present") }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let bf0 = BruteForce()
        var fences: [Fence] = []
        for (i, f) in (json["features"] as! [[String: Any]]).enumerated() {
            guard let g = f["geometry"] as? [String: Any], let type = g["type"] as? String else { continue }
            let coords = g["coordinates"] as! [Any]
            let parts: [[[[Double]]]] = type == "Polygon" ? [coords as! [[[Double]]]] : coords as! [[[[Double]]]]
            // Natural Earth has RUS at lon 180.00000000000006: a real defect the loader clamps.
            let shape = PolygonShape(polygons: parts.map { $0.map { $0.map { Coordinate(lon: min(180, max(-180, $0[0])), lat: $0[1]) } } })
            let id = (f["id"] as? String).flatMap { $0 == "-99" ? nil : $0 } ?? "feature-\(i)"
            let fence = Fence.polygon(PolygonRecord(id: id, shape: shape))
            if bf0.geos.isValid(bf0.geos.geometry(shape)) && !fences.contains(where: { $0.id == id }) { fences.append(fence) }
        }
        XCTAssertGreaterThan(fences.count, 150)
        let index = try FenceIndex(fences)
        let bf = BruteForce(fences)
        var rng = SeededGenerator(seed: 43)
        // Containment on many points.
        for _ in 0..<400 {
            let p = FenceSets.point(fences, &rng)
            let v = bf.view(lat: p.lat, lon: p.lon)
            XCTAssertEqual(index.containing(lat: p.lat, lon: p.lon), v.containing(), "point \(p)")
        }
        // Everything on a few (every country's distance through GEOS per point).
        for i in 0..<25 {
            let p = FenceSets.point(fences, &rng)
            guard abs(p.lat) < 89.9 else { continue }
            assertAgrees(index, bf, lat: p.lat, lon: p.lon, accuracy: rng.logUniform(1, 5000), margin: rng.logUniform(1, 1000),
                         within: rng.logUniform(1, 200_000), k: 10, "countries #\(i)")
        }
    }
}
