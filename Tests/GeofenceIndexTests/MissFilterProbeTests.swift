@testable import GeofenceIndex
import Foundation
import XCTest
import GeofenceTestSupport

/// `MissFilter.Probe` (the one-bit test inlined into a caller's loop) answers as
/// `certainlyMisses` and never "misses" where the tree finds a fence; `MissFilter.grow` sets
/// exactly the cells with a set cell among their eight neighbours (columns wrapping, rows not).
final class MissFilterProbeTests: XCTestCase {
    /// Compares the probe with `certainlyMisses` and the tree; returns how often it decided.
    func compare(_ index: FenceIndex, _ fences: [Fence], seed: UInt64, label: String) -> (misses: Int, meets: Int) {
        let filter = index.missFilter()
        var rng = SeededGenerator(seed: seed)
        var misses = 0, meets = 0
        filter.withProbe { probe in
            for i in 0..<20_000 {
                let p = MissFilterTests.point(fences, spread: max(0.01, filter.fastMetres / 111_000), &rng)
                let lat = rng.chance(0.05) ? rng.uniform(-90, 90) : p.lat, lon = rng.chance(0.02) ? (rng.chance(0.5) ? 180 : -180) : p.lon
                let metres = rng.chance(0.3) ? 0 : rng.uniform(0, 1.5 * max(1, filter.fastMetres))
                let slow = filter.certainlyMisses(lat: lat, lon: lon, metres: metres)
                // The cell a loop finds ahead is the point's cell of the grid (row and column as
                // the grid finds them), its word the grown grid's word of that cell, and the
                // answer for it the answer for the point.
                let cell = probe.cell(lat: lat, lon: lon)
                if lat.magnitude <= MissFilter.fastLatitude, filter.isUsable {
                    XCTAssertEqual(cell, filter.grid.row(lat) * filter.grid.width + filter.grid.column(lon), "\(label) \(i): (\(lat), \(lon))")
                    filter.grown.withUnsafeBufferPointer { g in
                        XCTAssertEqual(probe.word(cell), UnsafeRawPointer(g.baseAddress! + cell / 64), "\(label) \(i): (\(lat), \(lon))")
                    }
                } else {
                    XCTAssertEqual(cell, -1, "\(label) \(i): (\(lat), \(lon))")
                }
                XCTAssertEqual(probe.answer(cell: cell, metres: metres), probe.answer(lat: lat, lon: lon, metres: metres), "\(label) \(i)")
                switch probe.answer(lat: lat, lon: lon, metres: metres) {
                case .misses:
                    misses += 1
                    XCTAssertTrue(slow, "\(label) \(i): probe misses, filter not at (\(lat), \(lon)) ± \(metres) m")
                    XCTAssertEqual(MissFilterTests.tree(index, lat, lon, metres), 0, "\(label) \(i): (\(lat), \(lon)) ± \(metres) m")
                case .mayMeet:
                    meets += 1
                    XCTAssertFalse(slow, "\(label) \(i): probe may meet, filter misses at (\(lat), \(lon)) ± \(metres) m")
                case .undecided:
                    break
                }
            }
        }
        return (misses, meets)
    }

    /// The grid's size by the number of fence boxes: 512 cells a box while that stays within
    /// 2^24 cells, then 2^24 until 128 a box needs more, then 128 a box up to 2^26.
    func testGridCellsByBoxCount() {
        let expected: [(boxes: Int, cells: Int)] = [(1, 1 << 12), (1_000, 1 << 19), (10_000, 1 << 23), (32_768, 1 << 24),
                                                    (100_000, 1 << 24), (131_072, 1 << 24), (200_000, 1 << 25),
                                                    (1_000_000, 1 << 26), (10_000_000, 1 << 26)]
        for (boxes, cells) in expected {
            let grid = OccupancyGrid(boxes: boxes, generation: 1, cellsPerBox: MissFilter.cellsPerBox(boxes: boxes),
                                     maximumCells: MissFilter.maximumCells)
            XCTAssertEqual(grid.width * grid.height, cells, "\(boxes) boxes")
            XCTAssertTrue(grid.width == 2 * grid.height || grid.width == 4 * grid.height, "\(boxes) boxes: \(grid.width) × \(grid.height)")
        }
    }

    func testProbeAnswersAsTheFilter() throws {
        var rng = SeededGenerator(seed: 81)
        var fences = FenceSets.uniformCircles(3000, &rng) + FenceSets.clusteredCircles(300, &rng)
        for k in 0..<20 {
            let lon = k % 2 == 0 ? 179.999 : -179.999
            fences.append(.circle(CircleRecord(id: "edge\(k)", lat: rng.uniform(-85, 85), lon: lon, radius: rng.logUniform(50, 5_000))))
        }
        var index = try FenceIndex(fences)
        let r = compare(index, fences, seed: 82, label: "small")
        XCTAssertGreaterThan(r.misses, 2_000)
        XCTAssertGreaterThan(r.meets, 2_000)
        // With a box too large for the grid, a clear bit is left to the filter.
        let big = Fence.circle(CircleRecord(id: "big", lat: 10, lon: 0, radius: 4_500_000))
        _ = try index.insert(big)
        fences.append(big)
        let l = compare(index, fences, seed: 83, label: "large")
        XCTAssertEqual(l.misses, 0)
        XCTAssertGreaterThan(l.meets, 2_000)
    }

    func testGrowSetsEveryNeighbourOfASetCell() {
        var rng = SeededGenerator(seed: 84)
        for cells in [1 << 12, 1 << 13, 1 << 15] {
            var grid = OccupancyGrid(boxes: cells, generation: 1, cellsPerBox: 1, maximumCells: cells)
            let w = grid.width, h = grid.height
            func bit(_ bits: Column<UInt64>, _ x: Int, _ y: Int) -> Bool { let c = y * w + x; return bits[c >> 6] & (1 << UInt64(c & 63)) != 0 }
            for _ in 0..<(cells / 200) {
                let c = rng.int(0..<(w * h))
                grid.bits[c >> 6] |= 1 << UInt64(c & 63)
            }
            // Cells at the corners and edges, where the wrap and the poles matter.
            for (x, y) in [(0, 0), (w - 1, h - 1), (w - 1, 5), (0, h / 2), (63, 1), (64, h - 2)] {
                let c = y * w + x
                grid.bits[c >> 6] |= 1 << UInt64(c & 63)
            }
            let grown = MissFilter.grow(grid)
            for y in 0..<h {
                for x in 0..<w {
                    var expected = false
                    for dy in -1...1 where y + dy >= 0 && y + dy < h {
                        for dx in -1...1 where bit(grid.bits, (x + dx + w) % w, y + dy) { expected = true }
                    }
                    if bit(grown, x, y) != expected { XCTFail("\(w) × \(h): cell (\(x), \(y)) grown \(!expected), expected \(expected)"); return }
                }
            }
        }
    }
}

extension MissFilterProbeTests {
    /// `gridIndex` is ⌊v⌋ clamped to `0...last`, NaN to 0, as the checked conversion gives it.
    func testGridIndexIsTheClampedFloor() {
        var rng = SeededGenerator(seed: 85)
        func reference(_ v: Double, _ last: Double) -> Int { v >= 0 ? (v < last ? Int(v) : Int(last)) : 0 }
        for last in [0.0, 1, 63, 4095, 16383, 65535] {
            var values: [Double] = [0, -0.0, -1e-300, .nan, .infinity, -.infinity, last, last - 0.5, last + 0.5, 0.5, 1.5, 2.5,
                                    1 - 0x1p-53, last.nextDown, last.nextUp, 0.5.nextDown, 0.5.nextUp, 1.5.nextDown]
            for _ in 0..<20_000 {
                let k = Double(rng.int(0..<(Int(last) + 2)))
                values.append(rng.chance(0.5) ? k + rng.uniform(-1e-9, 1e-9) : rng.uniform(-2, last + 2))
                values.append(rng.chance(0.5) ? k.nextDown : (k + 0.5).nextUp)
            }
            for v in values where gridIndex(v, last) != reference(v, last) {
                XCTFail("gridIndex(\(v), \(last)) = \(gridIndex(v, last)), expected \(reference(v, last))")
                return
            }
        }
    }
}
