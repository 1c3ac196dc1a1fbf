import Foundation
import XCTest
import GeofenceKit
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceEvaluation
import GeofenceLogs

/// The occupancy grid a compiled fence file stores (docs/compiled-fences.md, sections 35 to
/// 37): the grid the index builds for its miss filter and the grid grown, bit for bit; a fix it screens out meets
/// no fence by the index's own queries; files without it (version 2) open and build it; a
/// grid whose shape cannot be is refused.
final class StoredOccupancyTests: XCTestCase {
    var dir = ""
    override func setUp() {
        dir = makeTemporaryDirectory()
        CompiledFenceFile.occupancyBoxes = 0   // every file here stores its grid
    }
    override func tearDown() {
        CompiledFenceFile.storesOccupancy = true
        CompiledFenceFile.occupancyBoxes = CompiledFenceFile.defaultOccupancyBoxes
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Real polygons and circles (antimeridian cases, whole countries among them).
    func realFences() throws -> [Fence] {
        let root = CLI.packageRoot.path + "/data/"
        let set = try FenceSet.load(paths: [root + "ports.csv", root + "us_counties_va_nc.geojson", root + "countries.geojson"], crs: nil)
        return try set.usable(skipInvalid: true).fences
    }

    /// 40,000 small circles over the world and a few wide ones (enough leaf lanes for the
    /// grid to be marked by several workers and merged; wide boxes kept aside).
    func manyCircles() -> [Fence] {
        var g = SeededGenerator(seed: 3535)
        var out: [Fence] = []
        for k in 0..<40_000 {
            out.append(.circle(id: "c\(k)", lat: g.uniform(-85, 85), lon: g.uniform(-180, 180), radius: g.uniform(20, 3_000)))
        }
        for k in 0..<5 { out.append(.circle(id: "wide\(k)", lat: g.uniform(-60, 60), lon: g.uniform(-170, 170), radius: 5_000_000)) }
        return out
    }

    func write(_ fences: [Fence], _ name: String) throws -> (path: String, built: CompiledFences) {
        let built = try CompiledFences(fences)
        let path = dir + "/" + name
        try CompiledFenceFile.write(index: built.index, fences: fences, to: path)
        return (path, built)
    }

    func testStoredGridIsTheGridTheIndexBuilds() throws {
        for (name, fences) in [("real", try realFences()), ("circles", manyCircles())] {
            let (path, built) = try write(fences, name + ".gfc")
            let rebuilt = built.index.missFilterGrid(threads: 1)
            for threads in [1, 3] {
                let opened = try CompiledFenceFile.open(path: path, threads: threads).index
                guard let filter = opened.storedMissFilter else { XCTFail("\(name): no stored grid"); continue }
                let stored = filter.grid
                XCTAssertTrue(filter.grown.elementsEqual(MissFilter.grow(rebuilt)), name)
                // Used in place where the file is mapped when they are large enough.
                XCTAssertEqual(stored.bits.isMapped, stored.bits.count * 8 >= SectionReader.mapThreshold, name)
                XCTAssertEqual(filter.grown.isMapped, stored.bits.isMapped, name)
                XCTAssertEqual(stored.width, rebuilt.width, name)
                XCTAssertEqual(stored.height, rebuilt.height, name)
                XCTAssertTrue(stored.bits.elementsEqual(rebuilt.bits), name)
                XCTAssertEqual(stored.large.count, rebuilt.large.count, name)
                for (a, b) in zip(stored.large, rebuilt.large) { XCTAssertEqual(a, b, name) }
                XCTAssertEqual(stored.generation, opened.generation, name)
            }
            if name == "circles" { XCTAssertFalse(rebuilt.large.isEmpty, "wide circles kept aside") }
        }
    }

    /// Every point the opened file's filter screens out meets no fence by `classify` with the
    /// same window (accuracy); the filter answers as the one built from the fences.
    func testScreenedPointsMeetNoFence() throws {
        let (path, built) = try write(manyCircles(), "circles.gfc")
        let opened = CompiledFences(file: try CompiledFenceFile.open(path: path, threads: 2))
        let stored = opened.index.missFilter(threads: 1), fresh = built.index.missFilter(threads: 1)
        var g = SeededGenerator(seed: 77)
        var screened = 0
        for _ in 0..<60_000 {
            let lat = g.uniform(-89, 89), lon = g.uniform(-180, 180), acc = g.next() % 4 == 0 ? g.uniform(0, 5_000) : 0
            let misses = stored.certainlyMisses(lat: lat, lon: lon, metres: acc)
            XCTAssertEqual(misses, fresh.certainlyMisses(lat: lat, lon: lon, metres: acc))
            if misses {
                screened += 1
                XCTAssertTrue(opened.index.classify(lat: lat, lon: lon, accuracy: acc).isEmpty, "screened out at \(lat),\(lon) ±\(acc) but meets a fence")
            }
        }
        XCTAssertGreaterThan(screened, 10_000)
    }

    /// A file without the grid (as version 2 wrote it, with version 2 or 3 in its header)
    /// opens, gives the same answers and builds the same filter.
    func testFileWithoutTheGridOpensAndBuildsIt() throws {
        let fences = try realFences()
        let (withGrid, _) = try write(fences, "with.gfc")
        CompiledFenceFile.storesOccupancy = false
        let (without, _) = try write(fences, "without.gfc")
        CompiledFenceFile.storesOccupancy = true
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: without)))
        XCTAssertLessThan(bytes.count, try Data(contentsOf: URL(fileURLWithPath: withGrid)).count)
        let version2 = dir + "/v2.gfc"
        bytes[8] = 2
        CompiledFenceFile.resealChecksums(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: version2))
        let reference = try CompiledFenceFile.open(path: withGrid).index
        var g = SeededGenerator(seed: 5)
        let points = (0..<3_000).map { _ in (g.uniform(-80, 80), g.uniform(-180, 180), g.uniform(0, 10_000)) }
        for path in [without, version2] {
            let index = try CompiledFenceFile.open(path: path, threads: 2).index
            XCTAssertNil(index.storedMissFilter, path)
            let built = index.missFilter(threads: 1).grid, stored = reference.missFilter(threads: 1).grid
            XCTAssertTrue(built.bits.elementsEqual(stored.bits), path)
            for (lat, lon, acc) in points {
                XCTAssertEqual(index.classify(lat: lat, lon: lon, accuracy: acc).map(\.slot), reference.classify(lat: lat, lon: lon, accuracy: acc).map(\.slot))
            }
        }
    }

    /// A run over an opened file takes the stored filter at its first batch, though that batch
    /// has fewer fixes than a quarter of the fences (a filter built would wait: the workers'
    /// caches then built grids of their own); over the same fences built in memory it waits.
    /// The events are the same either way.
    func testStoredFilterTakenAtTheFirstBatch() throws {
        let fences = manyCircles()
        let (path, built) = try write(fences, "first.gfc")
        let opened = CompiledFences(file: try CompiledFenceFile.open(path: path))
        XCTAssertTrue(opened.index.hasStoredMissFilter)
        XCTAssertFalse(built.index.hasStoredMissFilter)
        var g = SeededGenerator(seed: 3636)
        let fixes: [Fix] = (0..<3_000).map { k in
            Fix(device: Int32(k % 40), time: 1.7e9 + Double(k), lat: g.uniform(-85, 85), lon: g.uniform(-180, 180), accuracy: 10)
        }
        for threads in [1, 2] {
            func run(_ compiled: CompiledFences) -> EvaluationRun {
                let r = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: threads)
                r.minimumSlice = 256
                r.process(fixes)                                    // 3,000 fixes: fewer than 45,005 / 4
                return r
            }
            let fromFile = run(opened), inMemory = run(built)
            XCTAssertNotNil(fromFile.missFilter, "\(threads) threads")
            XCTAssertNil(inMemory.missFilter, "\(threads) threads")
            XCTAssertEqual(fromFile.events, inMemory.events)
        }
    }

    /// Every file stores its grid by default, however few its fences; below `occupancyBoxes`
    /// entry boxes none is stored (the filter builds it).
    func testSmallSetsStoreNoGrid() throws {
        CompiledFenceFile.occupancyBoxes = CompiledFenceFile.defaultOccupancyBoxes
        let (tiny, _) = try write(Array(try realFences().prefix(3)), "tiny.gfc")
        XCTAssertNotNil(try CompiledFenceFile.open(path: tiny).index.storedMissFilter)
        CompiledFenceFile.occupancyBoxes = 1 << 16
        let (small, _) = try write(try realFences(), "small.gfc")
        XCTAssertNil(try CompiledFenceFile.open(path: small).index.storedMissFilter)
        CompiledFenceFile.occupancyBoxes = 40_000
        let (large, _) = try write(manyCircles(), "large.gfc")
        XCTAssertNotNil(try CompiledFenceFile.open(path: large).index.storedMissFilter)
    }

    /// Opened without the grid (commands that only list or write the fences back): not read,
    /// so a flipped bit in it changes nothing there; opened with it, the bit is refused.
    func testOpenedWithoutTheGridItIsNotRead() throws {
        let (path, _) = try write(try realFences(), "real.gfc")
        XCTAssertNil(try CompiledFenceFile.open(path: path, occupancy: false).index.storedMissFilter)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let count = Int(bytes[16]) | Int(bytes[17]) << 8
        var bitsAt = -1
        for k in 0..<count where bytes[64 + 32 * k] == 36 {
            bitsAt = (0..<8).reduce(0) { $0 | Int(bytes[64 + 32 * k + 8 + $1]) << (8 * $1) }
        }
        XCTAssertGreaterThan(bitsAt, 0)
        bytes[bitsAt + 100] ^= 0x04
        let bad = dir + "/flipped.gfc"
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        for threads in [1, 2] {
            let opened = try CompiledFenceFile.open(path: bad, threads: threads, occupancy: false)
            XCTAssertEqual(try opened.fences(), try CompiledFenceFile.open(path: path).fences())
            XCTAssertThrowsError(try CompiledFenceFile.open(path: bad, threads: threads, occupancy: true)) { e in
                XCTAssertTrue("\(e)".contains("checksum mismatch in section occupancyBits"), "\(e)")
            }
        }
    }

    /// A grid shape no build makes (not powers of two, bits of another count, too many cells,
    /// a box not finite) is refused as malformed, checksums resealed.
    func testImpossibleGridShapesAreRefused() throws {
        let (path, _) = try write(manyCircles(), "circles.gfc")
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The shape section's offset, from the section table (id 35).
        var shapeAt = -1
        let count = Int(good[16]) | Int(good[17]) << 8
        for k in 0..<count {
            let e = 64 + 32 * k
            if good[e] == 35 { shapeAt = (0..<8).reduce(0) { $0 | Int(good[e + 8 + $1]) << (8 * $1) } }
        }
        XCTAssertGreaterThan(shapeAt, 0)
        func word(_ b: inout [UInt8], _ k: Int, _ v: UInt64) {
            for i in 0..<8 { b[shapeAt + 8 * k + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(i))) }
        }
        let width = (0..<8).reduce(UInt64(0)) { $0 | UInt64(good[shapeAt + $1]) << (8 * UInt64($1)) }
        let height = (0..<8).reduce(UInt64(0)) { $0 | UInt64(good[shapeAt + 8 + $1]) << (8 * UInt64($1)) }
        let bad = dir + "/bad.gfc"
        for (what, k, v) in [("width not a power of two", 0, width + 64), ("half the rows", 1, height / 2), ("twice the columns", 0, width * 2),
                             ("no rows", 1, UInt64(0)), ("huge", 0, UInt64(1) << 40), ("a box not finite", 2, UInt64(Float.nan.bitPattern))] {
            var b = good
            word(&b, k, v)
            CompiledFenceFile.resealChecksums(&b)
            try Data(b).write(to: URL(fileURLWithPath: bad))
            XCTAssertThrowsError(try CompiledFenceFile.open(path: bad), what) { e in
                guard case .input(let i) = e as? GeofenceError, case .malformed = i.kind else { return XCTFail("\(what): \(e)") }
                XCTAssertTrue(i.message.contains("occupancy"), "\(what): \(i.message)")
            }
        }
    }
}

/// The checks `open` runs in parts for large files (records, slots, identifier order): the
/// same error at every thread count for damage behind valid checksums in any part.
final class CheckPartsTests: XCTestCase {
    func testChecksInPartsGiveTheErrorOfOnePiece() throws {
        let dir = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var g = SeededGenerator(seed: 909)
        let fences = (0..<140_000).map { k in Fence.circle(id: "f\(k)", lat: g.uniform(-80, 80), lon: g.uniform(-180, 180), radius: 100) }
        let built = try CompiledFences(fences)
        let path = dir + "/many.gfc", bad = dir + "/bad.gfc"
        try CompiledFenceFile.write(index: built.index, fences: fences, to: path)
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func offset(_ id: UInt8) -> Int {
            let count = Int(good[16]) | Int(good[17]) << 8
            for k in 0..<count where good[64 + 32 * k] == id { return (0..<8).reduce(0) { $0 | Int(good[64 + 32 * k + 8 + $1]) << (8 * $1) } }
            return -1
        }
        func put32(_ b: inout [UInt8], _ at: Int, _ v: UInt32) { for i in 0..<4 { b[at + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) } }
        func get32(_ b: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) } }
        var cases: [(String, [UInt8])] = []
        for record in [3, 70_001, 139_998] {
            var b = good
            put32(&b, offset(7) + 4 * record, 0x7FFF_FFFF)           // slotOf out of range
            cases.append(("slot of record \(record)", b))
            b = good
            let keys = offset(9), other = record == 3 ? 100_000 : 5
            let k1 = get32(b, keys + 4 * record), k2 = get32(b, keys + 4 * other)
            put32(&b, keys + 4 * record, k2); put32(&b, keys + 4 * other, k1)   // two ranks swapped
            cases.append(("order keys of records \(record) and \(other) swapped", b))
            b = good
            let radius = offset(5) + 24 * record + 16
            for i in 0..<8 { b[radius + i] = UInt8(truncatingIfNeeded: (-5.0).bitPattern >> (8 * UInt64(i))) }
            cases.append(("radius of record \(record)", b))
        }
        for (what, bytes) in cases {
            var b = bytes
            CompiledFenceFile.resealChecksums(&b)
            try Data(b).write(to: URL(fileURLWithPath: bad))
            var messages: [String] = []
            for threads in [1, 2, 3] {
                do {
                    _ = try CompiledFenceFile.open(path: bad, threads: threads)
                    XCTFail("\(what): opened with \(threads) threads")
                } catch {
                    messages.append("\(error)")
                }
            }
            XCTAssertEqual(Set(messages).count, 1, "\(what): \(messages)")
            XCTAssertTrue(messages[0].contains("compiled fence file"), "\(what): \(messages[0])")
        }
    }
}
