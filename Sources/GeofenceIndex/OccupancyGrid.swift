/// A coarse bitmap over longitude × latitude with a bit set for every cell that some entry box
/// of an index meets (live or not, every tree and the tail): a query window whose cells are all
/// clear meets no box, so it has no candidates and needs no tree search. It answers the fixes
/// that meet nothing (scattered logs, devices far from every fence) in a few dozen instructions.
///
/// Boxes spanning more than a sixteenth of the grid (continents, circles of thousands of
/// kilometres) are kept aside in `large` and tested one by one instead of filling the grid; with more than `maximumLarge` of
/// them the grid answers nothing (every query goes to the tree, as without it).
///
/// Built from the single-precision boxes the trees test against, each widened by `slack` (more
/// than the single-precision rounding of a window's edges, which the trees see rounded
/// outward), and asked with the window in double precision, through monotone maps from degrees
/// to cells: a box the trees find for the window shares a cell with it, so "all clear" is
/// never wrong.
struct OccupancyGrid: Sendable {
    /// One bit per cell, row-major (`width` cells per row, `height` rows).
    var bits = Column<UInt64>()
    var width = 0, height = 0
    /// Cells per degree of longitude and of latitude; the last column and row, as doubles.
    var scaleX = 0.0, scaleY = 0.0, lastColumn = 0.0, lastRow = 0.0
    /// The index (`FenceIndex.generation`) the bits come from; 0: not built.
    var generation: UInt64 = 0
    /// Boxes too large for the bits.
    var large: [BoundingBox] = []

    /// Most cells a window may span and still be answered here (larger ones go to the tree).
    static let maximumWindowCells = 4
    /// About this many cells per box, between 2^12 and 2^24 cells in all (2 MB).
    static let cellsPerBox = 16
    static let minimumCells = 1 << 12, maximumCells = 1 << 24
    /// More boxes than this over a sixteenth of the grid each, and the grid is not used.
    static let maximumLarge = 16
    /// Degrees added around every box: twice the most that rounding a window edge outward to
    /// single precision moves it (one unit in the last place of a `Float` below 256, 2^-16°).
    static let slack = 3.1e-5

    /// Column of a longitude (clamped to the grid).
    @inline(__always)
    func column(_ lon: Double) -> Int { gridIndex((lon + 180) * scaleX, lastColumn) }

    /// Row of a latitude (clamped to the grid).
    @inline(__always)
    func row(_ lat: Double) -> Int { gridIndex((lat + 90) * scaleY, lastRow) }

    /// An empty grid sized for `boxes` entries, about `cellsPerBox` cells each, at most
    /// `maximumCells` cells.
    init(boxes: Int, generation g: UInt64, cellsPerBox: Int = OccupancyGrid.cellsPerBox, maximumCells: Int = OccupancyGrid.maximumCells) {
        var cells = OccupancyGrid.minimumCells
        while cells < maximumCells && cells < boxes &* cellsPerBox { cells <<= 1 }
        // Twice as many columns as rows: cells about square in degrees.
        let height = 1 << ((cells.trailingZeroBitCount - 1) / 2)
        setSize(width: cells / height, height: height)
        bits = Column(repeating: 0, count: (cells + 63) / 64)
        generation = g
    }

    /// A grid from its stored parts (a compiled fence file's occupancy sections,
    /// docs/compiled-fences.md): `width` × `height` cells in `bits`, row-major, and the
    /// boxes kept aside. Nil when the parts could not come from `init(boxes:...)`: sizes
    /// not powers of two with 2 or 4 columns per row, more than `maximumCells` cells, a
    /// row not a whole number of words, a bit count that does not match, a large box not
    /// finite.
    init?(width: Int, height: Int, bits: Column<UInt64>, large: [BoundingBox], generation g: UInt64, maximumCells: Int) {
        guard width > 0, height > 0, width.nonzeroBitCount == 1, height.nonzeroBitCount == 1,
              width == 2 * height || width == 4 * height, width % 64 == 0,
              width <= maximumCells / height, bits.count == width * height / 64,
              large.count <= OccupancyGrid.maximumLarge + 1,
              large.allSatisfy({ $0.west.isFinite && $0.south.isFinite && $0.east.isFinite && $0.north.isFinite }) else { return nil }
        setSize(width: width, height: height)
        self.bits = bits
        self.large = large
        generation = g
    }

    /// Sets the size in cells and the maps from degrees to cells.
    private mutating func setSize(width: Int, height: Int) {
        self.width = width
        self.height = height
        scaleX = Double(width) / 360
        scaleY = Double(height) / 180
        lastColumn = Double(width - 1)
        lastRow = Double(height - 1)
    }

    /// Sets the cells a box meets, or keeps a large box aside (a box crossing the antimeridian never comes here: the
    /// index stores those as two boxes).
    mutating func mark(_ b: BoundingBox) { mark(count: 1) { _ in b } }

    /// Marks the boxes `box(0)`, …, `box(count - 1)` as `mark(_:)` does each (the bits made
    /// unique once, not once a box).
    mutating func mark(count: Int, _ box: (Int) -> BoundingBox) {
        let width = width, scaleX = scaleX, scaleY = scaleY, lastColumn = lastColumn, lastRow = lastRow
        let limit = width &* height / 16, d = OccupancyGrid.slack
        var found: [BoundingBox] = []
        bits.withUnsafeMutableBufferPointer { bits in
            for k in 0..<count {
                let b = box(k)
                guard b.west <= b.east && b.south <= b.north else { continue }
                let x0 = gridIndex((Double(b.west) - d + 180) * scaleX, lastColumn)
                let x1 = gridIndex((Double(b.east) + d + 180) * scaleX, lastColumn)
                let y0 = gridIndex((Double(b.south) - d + 90) * scaleY, lastRow)
                let y1 = gridIndex((Double(b.north) + d + 90) * scaleY, lastRow)
                if (x1 &- x0 &+ 1) &* (y1 &- y0 &+ 1) > limit {
                    found.append(b)
                    continue
                }
                // Each row's run of cells is contiguous in the bits: set it a word at a time.
                for y in y0...y1 {
                    let first = y &* width &+ x0, last = y &* width &+ x1
                    var w = first >> 6
                    let lastWord = last >> 6
                    var mask = UInt64.max << UInt64(first & 63)
                    while w < lastWord {
                        bits[w] |= mask
                        mask = .max
                        w &+= 1
                    }
                    bits[w] |= mask & (UInt64.max >> UInt64(63 &- (last & 63)))
                }
            }
        }
        // More than maximumLarge is all that matters beyond it.
        for b in found where large.count <= OccupancyGrid.maximumLarge { large.append(b) }
    }

    /// Adds the cells and large boxes of a grid of the same size.
    mutating func merge(_ other: OccupancyGrid) {
        precondition(other.bits.count == bits.count, "grids of the same size")
        bits.withUnsafeMutableBufferPointer { b in
            other.bits.withUnsafeBufferPointer { o in
                for i in b.indices { b[i] |= o[i] }
            }
        }
        // More than maximumLarge is all that matters beyond it.
        for box in other.large where large.count <= OccupancyGrid.maximumLarge { large.append(box) }
    }

    /// True when the window certainly meets no box: it spans at most
    /// `maximumWindowCells` cells and all of them are clear. False also means "ask the tree".
    /// - Complexity: O(1).
    @inline(__always)
    func isClear(_ w: GeoBox) -> Bool {
        if w.crossesAntimeridian || large.count > OccupancyGrid.maximumLarge { return false }
        let x0 = column(w.west), x1 = column(w.east)
        let y0 = row(w.south), y1 = row(w.north)
        if x0 == x1 && y0 == y1 && large.isEmpty {
            // The common case, a window inside one cell: one bit.
            let c = y0 &* width &+ x0
            return bits.withUnsafeBufferPointer { $0[c >> 6] & (1 << UInt64(c & 63)) == 0 }
        }
        if (x1 &- x0 &+ 1) &* (y1 &- y0 &+ 1) > OccupancyGrid.maximumWindowCells { return false }
        return bits.withUnsafeBufferPointer { b in
            for y in y0...y1 {
                for x in x0...x1 {
                    let c = y &* width &+ x
                    if b[c >> 6] & (1 << UInt64(c & 63)) != 0 { return false }
                }
            }
            if !large.isEmpty {
                let q = QueryWindow(w)
                for box in large where q.intersects(box) { return false }
            }
            return true
        }
    }
}

/// Where an ``OccupancyGrid`` keeps the bit of a point's cell, for a caller that asks the
/// memory for it ahead (a prefetch) of the query that reads it: the grid the workers take from
/// the miss filter is 2 MiB of bits from 100k polygons on (2^24 cells), which the queries of a
/// scattered log find out of cache. Only an address: nothing is read through it here, and a
/// prefetch never faults, even at an address no longer in use.
package struct OccupancyProbe: Sendable {
    @usableFromInline let bits: UInt
    @usableFromInline let scaleX: Double, scaleY: Double, lastColumn: Double, lastRow: Double
    @usableFromInline let width: Int

    init(_ grid: OccupancyGrid) {
        bits = grid.bits.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        (scaleX, scaleY, lastColumn, lastRow, width) = (grid.scaleX, grid.scaleY, grid.lastColumn, grid.lastRow, grid.width)
    }

    /// The address of the word that holds the cell of (`lat`, `lon`) (clamped to the grid, as
    /// ``OccupancyGrid/isClear(_:)`` finds a window's cells; NaN to the first cell).
    @inlinable @inline(__always)
    package func word(lat: Double, lon: Double) -> UnsafeRawPointer? {
        let c = gridIndex((lat + 90) * scaleY, lastRow) &* width &+ gridIndex((lon + 180) * scaleX, lastColumn)
        return UnsafeRawPointer(bitPattern: bits &+ UInt(bitPattern: c &>> 6) &* 8)
    }
}

extension CandidateCache {
    /// The grid a query outside the cache consults now, as an ``OccupancyProbe``; nil when it
    /// consults none (the cache serves the queries, or the grid is resting, not built yet, or
    /// holds too many large boxes to answer anything).
    package var occupancyProbe: OccupancyProbe? {
        guard wantsOccupancy, let g = occupancy, g.width > 0, g.large.count <= OccupancyGrid.maximumLarge else { return nil }
        return OccupancyProbe(g)
    }
}

/// The cell of a coordinate already scaled to cells: ⌊v⌋ clamped to `0...last` (`last` a whole
/// number below 2^51), NaN to 0 — as `Int(v)` with its clamps, without the checks of a
/// conversion: the value rounded by adding 2^52 (which leaves the integer in the low bits), then
/// one less when that rounded up.
@inlinable @inline(__always)
func gridIndex(_ v: Double, _ last: Double) -> Int {
    let c = v >= 0 ? Swift.min(v, last) : 0
    let t = c + 0x1p52
    let r = Int(truncatingIfNeeded: t.bitPattern & 0x000F_FFFF_FFFF_FFFF)
    return t - 0x1p52 > c ? r &- 1 : r
}
