import GeofenceIndex
import Foundation
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

/// Tile bundle files: stable bytes, change reports, manifest contents, and the
/// bundle sizes on the real sets.
final class SubsetTileBundleWriterTests: XCTestCase {
    var dirs: [String] = []

    func tempDir() -> String {
        let d = NSTemporaryDirectory() + "geofence-tiles-\(UUID().uuidString)"
        dirs.append(d)
        return d
    }

    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
        dirs = []
    }

    /// Every file under a directory, by relative path.
    func files(_ dir: String) -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: dir)!
        while let p = e.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + p, isDirectory: &isDir), !isDir.boolValue {
                out[p] = FileManager.default.contents(atPath: dir + "/" + p)
            }
        }
        return out
    }

    static let europe = GeoBox(west: -5, south: 42, east: 10, north: 51)

    func testRebuildsAreByteIdenticalWhateverTheThreads() throws {
        let source = SubsetData.data("airports.csv")
        let fences = try SubsetData.cached(["airports.csv"])
        let bundler = TileBundler(compiled: try CompiledFences(fences), k: 20, reach: 100_000)
        let range = try Tile.covering(SubsetTileBundleWriterTests.europe, zoom: 8)
        let a = tempDir(), b = tempDir()
        let ra = try TileBundleWriter.build(bundler: bundler, range: range, outDir: a, sources: [source], area: SubsetTileBundleWriterTests.europe, threads: 1)
        _ = try TileBundleWriter.build(bundler: bundler, range: range, outDir: b, sources: [source], area: SubsetTileBundleWriterTests.europe, threads: 3)
        XCTAssertNil(ra.changes)
        XCTAssertGreaterThan(ra.written, 120)
        XCTAssertGreaterThan(ra.omitted, 0, "Bay of Biscay tiles with no airport within 100 km")
        let fa = files(a), fb = files(b)
        XCTAssertEqual(fa.count, ra.written + 1)
        XCTAssertEqual(fa, fb, "same bytes with 1 and 3 threads")
        // Rebuilding in place: compared with the manifest already there, nothing changes.
        let again = try TileBundleWriter.build(bundler: bundler, range: range, outDir: a, sources: [source], area: SubsetTileBundleWriterTests.europe, threads: 2)
        XCTAssertEqual(again.changes, TileChanges(added: [], removed: [], changed: [], unchanged: ra.written))
        XCTAssertEqual(files(a), fb)
    }

    func testManifestDescribesTheFiles() throws {
        let source = SubsetData.data("ports.csv")
        let fences = try SubsetData.cached(["ports.csv"])
        let compiled = try CompiledFences(fences)
        let bundler = TileBundler(compiled: compiled, k: 5, reach: 30_000)
        let range = try Tile.covering(GeoBox(west: -80, south: 30, east: -60, north: 45), zoom: 6)
        let dir = tempDir()
        let report = try TileBundleWriter.build(bundler: bundler, range: range, outDir: dir, sources: [source], threads: 2)
        XCTAssertGreaterThan(report.written, 5)
        XCTAssertGreaterThan(report.omitted, 5, "open-sea tiles beyond 30 km of any port are omitted")

        let manifest = try JSONParser.parse(Array(FileManager.default.contents(atPath: dir + "/manifest.json")!))
        XCTAssertEqual(manifest["format"]?.stringValue, "geofence-tiles/1")
        XCTAssertEqual(manifest["zoom"]?.doubleValue, 6)
        XCTAssertEqual(manifest["k"]?.doubleValue, 5)
        XCTAssertEqual(manifest["reach_m"]?.doubleValue, 30_000)
        XCTAssertEqual(manifest["split"]?.doubleValue, 8)
        XCTAssertEqual(manifest["fences"]?.doubleValue, Double(fences.count))
        XCTAssertEqual(manifest["tiles_considered"]?.doubleValue, Double(range.count))
        XCTAssertEqual(manifest["tiles_written"]?.doubleValue, Double(report.written))
        XCTAssertEqual(manifest["tiles_omitted"]?.doubleValue, Double(report.omitted))
        let src = manifest["sources"]!.arrayValue![0]
        XCTAssertEqual(src["file"]?.stringValue, "ports.csv")
        XCTAssertEqual(src["sha256"]?.stringValue, SHA256.hex([UInt8](FileManager.default.contents(atPath: source)!)))
        let tiles = manifest["tiles"]!.arrayValue!
        XCTAssertEqual(tiles.count, report.written)
        var total = 0
        var previous: Tile? = nil
        for t in tiles {
            let tile = Tile(z: 6, x: Int(t["x"]!.doubleValue!), y: Int(t["y"]!.doubleValue!))
            if let previous { XCTAssertLessThan(previous, tile, "tiles sorted by column then row") }
            previous = tile
            let bytes = [UInt8](FileManager.default.contents(atPath: dir + "/6/\(tile.x)/\(tile.y).geojson")!)
            XCTAssertEqual(Double(bytes.count), t["bytes"]?.doubleValue)
            XCTAssertEqual(SHA256.hex(bytes), t["sha256"]?.stringValue)
            total += bytes.count
            // The file: a FeatureCollection of the bundle, by identifier, properties kept.
            let file = try FenceLoader().load(bytes: bytes, name: "\(tile)", format: .geojson)
            let bundle = bundler.bundle(for: tile)!
            XCTAssertEqual(file.fences.map(\.id), bundle.slots.map { fences[Int($0)].id })
            XCTAssertEqual(file.fences.map { JSONValue.object($0.properties) }, bundle.slots.map { JSONValue.object(fences[Int($0)].properties) })
            XCTAssertEqual(Double(file.fences.count), t["fences"]?.doubleValue)
            let root = try JSONParser.parse(bytes)
            XCTAssertEqual(root["tile"]?.stringValue, tile.description)
        }
        XCTAssertEqual(manifest["bytes"]?.doubleValue, Double(total))
        XCTAssertEqual(try TileBundleWriter.readManifestTiles(dir + "/manifest.json").count, report.written)
    }

    /// Moving one fence changes exactly the tiles whose bundle holds it before or
    /// after (its bytes differ there; elsewhere every bound is unchanged).
    func testChangedFenceChangesOnlyItsTiles() throws {
        let fences = try SubsetData.cached(["airports.csv"])
        let dir = tempDir()
        let sourceDir = tempDir()
        try FileManager.default.createDirectory(atPath: sourceDir, withIntermediateDirectories: true)
        let source = sourceDir + "/fences.csv"
        try FileManager.default.copyItem(atPath: SubsetData.data("airports.csv"), toPath: source)
        let range = try Tile.covering(SubsetTileBundleWriterTests.europe, zoom: 9)
        let before = TileBundler(compiled: try CompiledFences(fences), k: 20, reach: 100_000)
        let first = try TileBundleWriter.build(bundler: before, range: range, outDir: dir, sources: [source], threads: 2)

        func inode(_ t: Tile) -> UInt64 {
            var st = stat()
            XCTAssertEqual(stat(dir + "/9/\(t.x)/\(t.y).geojson", &st), 0)
            return UInt64(st.st_ino)
        }
        let written = try TileBundleWriter.readManifestTiles(dir + "/manifest.json").keys.sorted()
        let inodes = Dictionary(uniqueKeysWithValues: written.map { ($0, inode($0)) })

        var moved = fences
        let i = moved.firstIndex { $0.id == "LFLY" }!
        moved[i].shape = .circle(lat: 45.80, lon: 5.10, radius: 2500)
        let after = TileBundler(compiled: try CompiledFences(moved), k: 20, reach: 100_000)
        let second = try TileBundleWriter.build(bundler: after, range: range, outDir: dir, sources: [source], threads: 2)
        let changes = try XCTUnwrap(second.changes)
        var holding = Set<Tile>()
        for x in range.columnList {
            for y in range.rows {
                let t = Tile(z: 9, x: x, y: y)
                if before.bundle(for: t)?.slots.contains(Int32(i)) == true || after.bundle(for: t)?.slots.contains(Int32(i)) == true {
                    holding.insert(t)
                }
            }
        }
        XCTAssertFalse(holding.isEmpty)
        XCTAssertEqual(Set(changes.changed), holding)
        XCTAssertEqual(changes.added, []); XCTAssertEqual(changes.removed, [])
        XCTAssertEqual(changes.unchanged, first.written - holding.count)
        // In place: changed tiles were rewritten (a new file renamed in), the others left alone.
        for t in written { XCTAssertEqual(inode(t) == inodes[t], !holding.contains(t), "\(t)") }
        print("moving LFLY changed \(changes.changed.count) of \(first.written) tiles at zoom 9: \(changes.changed.map(\.description))")
    }

    /// A rebuild with a shorter reach omits tiles the previous build wrote: reported and their files removed.
    func testRemovedTilesAreDeleted() throws {
        let fences = try SubsetData.cached(["ports.csv"])
        let compiled = try CompiledFences(fences)
        let range = try Tile.covering(GeoBox(west: -80, south: 30, east: -60, north: 45), zoom: 6)
        let dir = tempDir()
        let wide = try TileBundleWriter.build(bundler: TileBundler(compiled: compiled, k: 5, reach: 400_000), range: range, outDir: dir, sources: [], threads: 2)
        let narrow = try TileBundleWriter.build(bundler: TileBundler(compiled: compiled, k: 5, reach: 30_000), range: range, outDir: dir, sources: [], threads: 2)
        let ch = try XCTUnwrap(narrow.changes)
        XCTAssertEqual(ch.removed.count, wide.written - narrow.written)
        XCTAssertGreaterThan(ch.removed.count, 0)
        for t in ch.removed { XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/6/\(t.x)/\(t.y).geojson")) }
        XCTAssertEqual(files(dir).count, narrow.written + 1)
        // A separate previous directory is compared but never touched.
        let other = tempDir()
        let third = try TileBundleWriter.build(bundler: TileBundler(compiled: compiled, k: 5, reach: 400_000), range: range, outDir: other, sources: [],
                                               previousDir: dir, threads: 2)
        XCTAssertEqual(third.changes?.added.count, ch.removed.count)
        XCTAssertEqual(files(dir).count, narrow.written + 1)
    }

    /// Bundle sizes on the real sets at zoom 10 (k = 20), and how close they come
    /// to the exact union of the k-nearest sets (estimated from below on a dense grid).
    func testBundleSizesOnRealSets() throws {
        let fences = try SubsetData.cached(["airports.csv"])
        let compiled = try CompiledFences(fences)
        let bundler = TileBundler(compiled: compiled, k: 20, reach: 100_000)
        let single = TileBundler(compiled: compiled, k: 20, reach: 100_000, split: 1)
        var rng = SeededGenerator(seed: 51)
        var sizes: [Int] = [], unions: [Int] = [], singles: [Int] = []
        for _ in 0..<30 {
            guard case .circle(let lat, let lon, _) = fences[Int(rng.uniform(0, Double(fences.count)))].shape, abs(lat) < 85 else { continue }
            let tile = try Tile.containing(lat: lat, lon: lon, zoom: 10)
            let bundle = bundler.bundle(for: tile)!
            let b = tile.box
            var union = Set<Int32>()
            let n = 24
            for iy in 0...n {
                for ix in 0...n {
                    let la = b.south + (b.north - b.south) * Double(iy) / Double(n), lo = b.west + (b.east - b.west) * Double(ix) / Double(n)
                    for nb in compiled.index.nearest(20, lat: la, lon: lo) { union.insert(nb.slot) }
                }
            }
            XCTAssertTrue(union.isSubset(of: Set(bundle.slots)))
            sizes.append(bundle.slots.count); unions.append(union.count)
            singles.append(single.bundle(for: tile)!.slots.count)
        }
        let one = Double(singles.reduce(0, +)) / Double(singles.count)
        let mean = Double(sizes.reduce(0, +)) / Double(sizes.count)
        let exact = Double(unions.reduce(0, +)) / Double(unions.count)
        print(String(format: "airports z10 k20, tiles at random airports: bundle mean %.1f (%.2f k), grid union of 20-nearest sets %.1f (%.2f k), ratio %.2f; split 1: %.1f (%.2f k), ratio %.2f",
                     mean, mean / 20, exact, exact / 20, mean / exact, one, one / 20, one / exact))
        XCTAssertLessThan(mean / 20, 2.5, "a small multiple of k")
        XCTAssertLessThan(mean / exact, 1.6, "close to the exact union")

        // Polygons: Virginia and North Carolina counties.
        let counties = try SubsetData.cached(["us_counties_va_nc.geojson"])
        let cb = TileBundler(compiled: try CompiledFences(counties), k: 20, reach: 100_000)
        let range = try Tile.covering(GeoBox(west: -80, south: 35, east: -76, north: 38), zoom: 10)
        var total = 0, count = 0
        for x in range.columnList.prefix(20) { for y in range.rows.prefix(20) { total += cb.bundle(for: Tile(z: 10, x: x, y: y))!.slots.count; count += 1 } }
        let cm = Double(total) / Double(count)
        print(String(format: "counties z10 k20: bundle mean %.1f (%.2f k) over %d tiles", cm, cm / 20, count))
        XCTAssertLessThan(cm / 20, 2.5)
    }
}
