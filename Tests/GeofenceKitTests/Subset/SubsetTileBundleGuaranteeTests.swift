import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceLogs
@testable import GeofenceFences
@testable import GeofenceEvaluation
@testable import GeofencePlanning
@testable import GeofenceSimulation
@testable import GeofenceSubsets

/// The coverage guarantee of tile bundles, against brute force: for sampled
/// points of many tiles (corners, edges, interiors; antimeridian and
/// ±85.05° rows; polar and antimeridian fences), every fence of the global k
/// nearest — ranked by `SubsetReference` over all fences with the exact
/// distance, not the index — is in the tile's bundle, and so is every fence
/// tied with the k-th.
final class SubsetTileBundleGuaranteeTests: XCTestCase {
    /// Corners, edge midpoints, random edge points, the centre and random interior points.
    static func samples(_ tile: Tile, _ rng: inout SeededGenerator, edge: Int = 4, interior: Int = 4) -> [(lat: Double, lon: Double)] {
        let b = tile.box
        var out: [(lat: Double, lon: Double)] = [
            (b.north, b.west), (b.north, b.east), (b.south, b.west), (b.south, b.east),
            (b.north, (b.west + b.east) / 2), (b.south, (b.west + b.east) / 2),
            ((b.south + b.north) / 2, b.west), ((b.south + b.north) / 2, b.east),
            ((b.south + b.north) / 2, (b.west + b.east) / 2),
        ]
        for i in 0..<edge {
            let t = rng.uniform(0, 1)
            switch i % 4 {
            case 0: out.append((b.north, b.west + t * (b.east - b.west)))
            case 1: out.append((b.south, b.west + t * (b.east - b.west)))
            case 2: out.append((b.south + t * (b.north - b.south), b.west))
            default: out.append((b.south + t * (b.north - b.south), b.east))
            }
        }
        for _ in 0..<interior { out.append((rng.uniform(b.south, b.north), rng.uniform(b.west, b.east))) }
        return out
    }

    struct Outcome {
        var tiles = 0
        var points = 0
        var bundleTotal = 0
        var missing: [String] = []
    }

    /// Checks the guarantee on the tiles; returns counts for the size statements.
    @discardableResult
    func check(_ fences: [EngineFence], k: Int, tiles: [Tile], split: Int = TileBundler.defaultSplit, seed: UInt64 = 1,
               edge: Int = 4, interior: Int = 4, file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        let compiled = try CompiledFences(fences)
        let bundler = TileBundler(compiled: compiled, k: k, reach: .infinity, split: split)
        let ref = SubsetReference(fences)
        var rng = SeededGenerator(seed: seed)
        var out = Outcome()
        var scratch = TileBundler.Scratch()
        for tile in tiles {
            guard let bundle = bundler.bundle(for: tile, scratch: &scratch) else {
                XCTFail("tile \(tile) omitted with infinite reach", file: file, line: line)
                continue
            }
            out.tiles += 1
            out.bundleTotal += bundle.slots.count
            XCTAssertEqual(bundle.slots, bundle.slots.sorted { fences[Int($0)].id.utf8.lexicographicallyPrecedes(fences[Int($1)].id.utf8) },
                           "bundle \(tile) not sorted by identifier", file: file, line: line)
            let members = Set(bundle.slots.map(Int.init))
            for p in SubsetTileBundleGuaranteeTests.samples(tile, &rng, edge: edge, interior: interior) {
                out.points += 1
                let ranked = ref.ranked(k, lat: p.lat, lon: p.lon)
                guard !ranked.isEmpty else { continue }
                let dk = ranked[min(k, ranked.count) - 1].distance
                for r in ranked where r.distance <= dk && !members.contains(r.index) {
                    out.missing.append("tile \(tile) point \(p.lat),\(p.lon): \(fences[r.index].id) at \(r.distance) m (k-th \(dk) m) not in the bundle of \(bundle.slots.count)")
                }
                // The device's own answer (the index) is in the bundle too.
                for n in compiled.index.nearest(k, lat: p.lat, lon: p.lon) where !members.contains(Int(n.slot)) {
                    out.missing.append("tile \(tile) point \(p.lat),\(p.lon): index neighbour \(fences[Int(n.slot)].id) not in the bundle")
                }
            }
        }
        for m in out.missing.prefix(10) { XCTFail(m, file: file, line: line) }
        print("guarantee checked: k \(k), \(out.tiles) tiles, \(out.points) points, mean bundle \(out.tiles > 0 ? out.bundleTotal / out.tiles : 0)")
        return out
    }

    /// Tiles holding the points, at the zoom.
    static func tiles(_ points: [(Double, Double)], zoom: Int) -> [Tile] {
        points.map { try! Tile.containing(lat: $0.0, lon: $0.1, zoom: zoom) }
    }

    /// Antimeridian columns and the ±85.05° rows at a zoom: the four corner tiles and a few more.
    static func edgeTiles(zoom z: Int) -> [Tile] {
        let n = 1 << z
        var t = [Tile(z: z, x: 0, y: 0), Tile(z: z, x: n - 1, y: 0), Tile(z: z, x: 0, y: n - 1), Tile(z: z, x: n - 1, y: n - 1)]
        if n > 4 {
            t += [Tile(z: z, x: 0, y: n / 2), Tile(z: z, x: n - 1, y: n / 2 - 1), Tile(z: z, x: n / 3, y: 0), Tile(z: z, x: 2 * n / 3, y: n - 1)]
        }
        return t
    }

    func testAirportsZoom10() throws {
        let fences = try SubsetData.cached(["airports.csv"])
        let places: [(Double, Double)] = [
            (45.764, 4.8357), (40.71, -74.0), (51.47, -0.45), (35.68, 139.7), (-33.9, 151.2),  // dense
            (-17.7, 179.99), (-17.7, -179.99), (65.0, -179.9), (52.0, 179.95),                 // antimeridian
            (78.22, 15.65), (82.5, -62.3), (84.9, 30.0), (-84.9, -150.0), (-77.85, 166.67),   // high latitude
            (0.0, -140.0), (-45.0, -120.0),                                                   // open ocean
        ]
        var tiles = SubsetTileBundleGuaranteeTests.tiles(places, zoom: 10) + SubsetTileBundleGuaranteeTests.edgeTiles(zoom: 10)
        // Tiles at and next to random airports (where bundles are densest).
        var rng = SeededGenerator(seed: 41)
        for _ in 0..<40 {
            guard case .circle(let lat, let lon, _) = fences[Int(rng.uniform(0, Double(fences.count)))].shape, abs(lat) < 85 else { continue }
            let t = try Tile.containing(lat: lat, lon: lon, zoom: 10)
            let dx = Int(rng.uniform(-1, 2)), dy = Int(rng.uniform(-1, 2))
            tiles.append(Tile(z: 10, x: (t.x + dx + 1024) % 1024, y: min(1023, max(0, t.y + dy))))
        }
        let o = try check(fences, k: 20, tiles: tiles)
        XCTAssertEqual(o.missing.count, 0)
        print("guarantee airports z10 k20: \(o.tiles) tiles, \(o.points) points, mean bundle \(Double(o.bundleTotal) / Double(o.tiles))")
    }

    func testAirportsOtherZooms() throws {
        let fences = try SubsetData.cached(["airports.csv"])
        var rng = SeededGenerator(seed: 7)
        var tiles: [Tile] = []
        for z in [0, 1, 2, 4, 7, 12] {
            tiles += SubsetTileBundleGuaranteeTests.edgeTiles(zoom: z).prefix(z <= 2 ? 2 : 4)
            let n = 1 << z
            for _ in 0..<(z <= 2 ? 1 : 3) {
                tiles.append(Tile(z: z, x: Int(rng.uniform(0, Double(n))), y: Int(rng.uniform(0, Double(n)))))
            }
        }
        tiles += SubsetTileBundleGuaranteeTests.tiles([(48.85, 2.35), (37.6, -122.4)], zoom: 12)
        let o = try check(fences, k: 20, tiles: tiles, seed: 2, edge: 2, interior: 2)
        XCTAssertEqual(o.missing.count, 0)
    }

    /// Dense tiles (many fences inside, the k-th nearest much closer than the
    /// tile is wide): the cell bounds come from each cell's own k nearest.
    func testDenseTilesPerCellBounds() throws {
        let fences = try SubsetData.cached(["airports.csv"])
        let places: [(Double, Double)] = [(40.7, -74.0), (41.9, -87.6), (34.0, -118.2), (51.5, -0.1), (48.85, 2.35), (-23.5, -46.6)]
        let tiles = SubsetTileBundleGuaranteeTests.tiles(places, zoom: 7) + SubsetTileBundleGuaranteeTests.tiles(places, zoom: 6)
        let o = try check(fences, k: 20, tiles: tiles, seed: 71, edge: 12, interior: 12)
        XCTAssertEqual(o.missing.count, 0)
        print("guarantee dense z6/z7: \(o.tiles) tiles, \(o.points) points, mean bundle \(Double(o.bundleTotal) / Double(o.tiles))")
    }

    /// k = 1 and k = 100, and a coarse split: the bound holds for any k and split.
    func testOtherKAndSplit() throws {
        let fences = try SubsetData.cached(["airports.csv"])
        let tiles = SubsetTileBundleGuaranteeTests.tiles([(45.764, 4.8357), (-17.7, 179.99), (61.2, -149.9)], zoom: 9)
        XCTAssertEqual(try check(fences, k: 1, tiles: tiles, seed: 3).missing.count, 0)
        XCTAssertEqual(try check(fences, k: 100, tiles: tiles, seed: 4, edge: 2, interior: 2).missing.count, 0)
        XCTAssertEqual(try check(fences, k: 20, tiles: tiles, split: 1, seed: 5).missing.count, 0)
    }

    /// Polygons: countries (Natural Earth, antimeridian-split Russia and Fiji) with ports.
    func testCountriesAndPorts() throws {
        let fences = try SubsetData.cached(["countries.geojson", "ports.csv"])
        let places: [(Double, Double)] = [
            (46.5, 6.6), (-17.7, 179.99), (66.0, -179.5), (71.0, 179.9), (-16.5, -179.9), (1.3, 103.8),
            (30.0, -40.0), (80.0, 60.0), (-84.0, 20.0), (84.5, -40.0),
        ]
        var tiles = SubsetTileBundleGuaranteeTests.tiles(places, zoom: 6) + SubsetTileBundleGuaranteeTests.tiles(places.prefix(4).map { $0 }, zoom: 9)
        tiles += SubsetTileBundleGuaranteeTests.edgeTiles(zoom: 5)
        let o = try check(fences, k: 20, tiles: tiles, seed: 11, edge: 3, interior: 3)
        XCTAssertEqual(o.missing.count, 0)
    }

    /// Polygons only, small k: the polygon upper bound does the work.
    func testCountriesOnlySmallK() throws {
        let fences = try SubsetData.cached(["countries.geojson"])
        let places: [(Double, Double)] = [(50.0, 10.0), (-17.7, 179.99), (68.0, 179.0), (5.0, -30.0), (78.0, 20.0), (-60.0, -60.0)]
        let tiles = SubsetTileBundleGuaranteeTests.tiles(places, zoom: 4) + SubsetTileBundleGuaranteeTests.tiles(places, zoom: 8)
        XCTAssertEqual(try check(fences, k: 3, tiles: tiles, seed: 12, edge: 4, interior: 4).missing.count, 0)
    }

    /// Polygons far north, few and far between: the refined segment bound of
    /// the polygon upper bound (large σ) does the work.
    func testArcticPolygons() throws {
        let fences = try SubsetData.cached(["countries.geojson"]).filter { f in
            guard case .polygon(let polys) = f.shape else { return false }
            return polys.contains { $0[0].contains { $0.lat > 60 } }
        }
        XCTAssertGreaterThan(fences.count, 5)
        let places: [(Double, Double)] = [(78.2, 15.6), (80.0, 60.0), (82.0, -40.0), (75.0, -100.0), (84.5, 150.0), (72.0, 179.9), (70.0, -170.0), (66.0, 25.0)]
        let tiles = SubsetTileBundleGuaranteeTests.tiles(places, zoom: 6) + SubsetTileBundleGuaranteeTests.tiles(places, zoom: 9)
        for k in [1, 2, 4] {
            XCTAssertEqual(try check(fences, k: k, tiles: tiles, seed: UInt64(60 + k), edge: 8, interior: 8).missing.count, 0, "k \(k)")
        }
    }

    /// US counties (Virginia, North Carolina) at zoom 10: small polygons, dense.
    func testCounties() throws {
        let fences = try SubsetData.cached(["us_counties_va_nc.geojson"])
        let places: [(Double, Double)] = [(36.85, -76.3), (37.54, -77.43), (35.78, -78.64), (38.9, -77.05), (36.0, -75.6), (34.2, -77.9)]
        let o = try check(fences, k: 20, tiles: SubsetTileBundleGuaranteeTests.tiles(places, zoom: 10), seed: 13)
        XCTAssertEqual(o.missing.count, 0)
    }

    /// Synthetic fences where the geometry is hardest: around both poles, across
    /// the antimeridian, huge and tiny circles, and a polygon with a hole.
    func testPolarAndAntimeridianFences() throws {
        let fences = try SubsetData.load([fixture("subset/polar_antimeridian.geojson")])
        XCTAssertGreaterThan(fences.count, 10)
        var tiles: [Tile] = []
        for z in [0, 1, 2, 3, 6, 10] { tiles += SubsetTileBundleGuaranteeTests.edgeTiles(zoom: z) }
        tiles += SubsetTileBundleGuaranteeTests.tiles([(84.0, 0.5), (-84.0, 179.5), (0.0, 179.999), (60.0, -179.999), (10.0, 20.0)], zoom: 7)
        for k in [1, 3, 5] {
            XCTAssertEqual(try check(fences, k: k, tiles: tiles, seed: UInt64(20 + k), edge: 4, interior: 4).missing.count, 0, "k \(k)")
        }
    }

    /// Fewer fences than k: every tile's bundle is the whole set.
    func testFewerFencesThanK() throws {
        let fences = Array(try SubsetData.load([fixture("subset/polar_antimeridian.geojson")]).prefix(4))
        let bundler = TileBundler(compiled: try CompiledFences(fences), k: 20, reach: .infinity)
        for t in [Tile(z: 3, x: 0, y: 0), Tile(z: 10, x: 500, y: 300)] {
            XCTAssertEqual(bundler.bundle(for: t)?.slots.count, 4)
        }
    }

    /// Reach: an omitted tile has no fence within reach of any sampled point (by the reference).
    func testOmittedTilesHaveNoFenceWithinReach() throws {
        let fences = try SubsetData.cached(["ports.csv"])
        let ref = SubsetReference(fences)
        let reach = 50_000.0
        let bundler = TileBundler(compiled: try CompiledFences(fences), k: 5, reach: reach)
        var rng = SeededGenerator(seed: 31)
        var omitted = 0, written = 0
        // Random tiles (mostly open sea) and tiles next to ports.
        var tiles = (0..<50).map { _ in Tile(z: 7, x: Int(rng.uniform(0, 128)), y: Int(rng.uniform(0, 128))) }
        for f in fences.prefix(3000).enumerated().filter({ $0.offset % 300 == 0 }).map(\.element) {
            if case .circle(let lat, let lon, _) = f.shape, abs(lat) < 85 {
                let t = try Tile.containing(lat: lat, lon: lon, zoom: 7)
                tiles.append(Tile(z: 7, x: (t.x + 1) % 128, y: t.y))
            }
        }
        for t in tiles {
            let samples = SubsetTileBundleGuaranteeTests.samples(t, &rng, edge: 2, interior: 2)
            if bundler.bundle(for: t) == nil {
                omitted += 1
                for p in samples {
                    let nearest = ref.ranked(1, lat: p.lat, lon: p.lon).first!.distance
                    XCTAssertGreaterThan(nearest, reach, "omitted tile \(t) has a fence within reach at \(p)")
                }
            } else {
                written += 1
            }
        }
        XCTAssertGreaterThan(omitted, 10)
        XCTAssertGreaterThan(written, 5)
    }
}
