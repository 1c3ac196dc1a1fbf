/// A first test for a fix before any sorting, cache or tree search: "the window around this
/// point meets no fence box", answered from the index's occupancy grid (``OccupancyGrid``). On
/// logs whose fixes are mostly far from every fence (scattered points, devices in open
/// country), most fixes end here (docs/evaluation.md, "Fixes that meet no fence").
///
/// Two ways to answer:
/// - **One bit** for most fixes: the grid *grown by one cell* each way holds a clear bit at the
///   point's own cell (and the point is in none of the few boxes too large for the grid, each
///   grown by a cell). This is exact when the window cannot reach beyond the neighbouring
///   cells: `metres` at most ``fastMetres`` and the latitude within ±80° (where the window's
///   longitude half-width, growing as 1/cos(lat), is still under a cell).
/// - Otherwise the window itself (the one the index's queries use) against the grid's cells.
///
/// A value made once per index (``FenceIndex/missFilter()``), shared read-only by any number of
/// threads. It never says "misses" wrongly: a box the trees would find for the window meets a
/// cell the window meets (``OccupancyGrid``), and that cell is the point's own or a neighbour.
/// False means "ask the index", which then answers exactly as without the filter.
public struct MissFilter: Sendable {
    let grid: OccupancyGrid
    /// The grid with every set cell grown to its eight neighbours (columns wrap at ±180°).
    let grown: Column<UInt64>
    /// Whether the grid can answer at all (not too many continent-sized boxes).
    public let isUsable: Bool
    /// The largest window radius (metres) answered by one bit (plus the large boxes).
    public let fastMetres: Double
    /// The boxes too large for the grid (``OccupancyGrid/large``), grown by a cell and the
    /// grid's slack each way: west, south, east, north in degrees, four values per box.
    let largeGrown: [Double]

    /// Cells per fence box: finer than the candidate cache's grid, since growing every box by a
    /// cell each way marks about nine cells per small box.
    static let cellsPerBox = 128
    /// Finer still while the grid stays within ``fineCells`` (2 MB, and as much again grown):
    /// fewer fixes near a fence's cell pass the screen for nothing (a tree search each), and a
    /// grid of that size is still quick to build and to read. Beyond it, larger grids cost more
    /// than the fixes they stop (measured: docs/evaluation.md, "Fixes that meet no fence").
    static let fineCellsPerBox = 512
    static let fineCells = 1 << 24

    /// Cells per box for an index of `boxes` entry boxes: ``fineCellsPerBox`` while that stays
    /// within ``fineCells``, else as many as fill ``fineCells``, never fewer than ``cellsPerBox``.
    static func cellsPerBox(boxes: Int) -> Int {
        guard boxes > 0 else { return fineCellsPerBox }
        return Swift.max(cellsPerBox, Swift.min(fineCellsPerBox, fineCells / boxes))
    }
    /// At most 2^26 cells (8 MB, and as much again for the grown copy): a million fences still
    /// get cells of about 2.5 km.
    static let maximumCells = 1 << 26
    /// From this many fences on, an evaluation builds the filter at its first batch, however
    /// short the log (see `EvaluationRun`).
    public static let eagerFences = 1 << 18
    /// Latitudes beyond this go the window's way.
    @usableFromInline static let fastLatitude = 80.0
    /// A lower bound of cos(``fastLatitude``) (0.1736…).
    static let cosFastLatitude = 0.17

    init(grid: OccupancyGrid) {
        self.init(grid: grid, grown: MissFilter.grow(grid))
    }

    /// A filter from a grid and that grid grown (``grow(_:)``), as a compiled fence file
    /// stores them (docs/compiled-fences.md).
    /// - Precondition: `grown` has as many words as the grid's bits.
    init(grid: OccupancyGrid, grown: Column<UInt64>) {
        precondition(grown.count == grid.bits.count, "a grown grid of the grid's size")
        self.grid = grid
        isUsable = grid.large.count <= OccupancyGrid.maximumLarge
        self.grown = grown
        let cellHeight = 180 / Double(grid.height), cellWidth = 360 / Double(grid.width)
        fastMetres = MissFilter.fastMetres(cellHeight: cellHeight, cellWidth: cellWidth)
        let dx = cellWidth + OccupancyGrid.slack, dy = cellHeight + OccupancyGrid.slack
        largeGrown = grid.large.flatMap { b in
            [Double(b.west) - dx, Double(b.south) - dy, Double(b.east) + dx, Double(b.north) + dy]
        }
    }

    /// The largest radius whose window, by `SphericalBounds.capBox(lat:lon:angle:cosLat:)`'s
    /// own arithmetic at |lat| ≤ ``fastLatitude``, stays within 0.99 of a cell each way of the
    /// point (so within the neighbouring cells whatever the rounding of the cell maps).
    static func fastMetres(cellHeight: Double, cellWidth: Double) -> Double {
        var m = cellHeight * SphericalBounds.d2r * SphericalBounds.radius
        while m > 1e-3 {
            let a = SphericalBounds.capAngle(metres: m)
            let s = a / cosFastLatitude * (1 + 1e-12)
            let rd = SphericalBounds.outwardDegrees(radians: a)
            let dl = SphericalBounds.outwardDegrees(radians: s + s * s * s / (6 * (1 - s * s)))
            if a < 0.01 && s < 0.1 && rd <= 0.99 * cellHeight && dl <= 0.99 * cellWidth { return m }
            m *= 0.9
        }
        return -1
    }

    /// The grid's bits grown by one cell each way: along a row with wrap-around (word by word,
    /// the row being a whole number of words), then across rows (none beyond the poles), three
    /// rows grown along at a time.
    static func grow(_ grid: OccupancyGrid) -> Column<UInt64> {
        let perRow = grid.width / 64, rows = grid.height
        guard perRow > 0, grid.width % 64 == 0, grid.bits.count == perRow * rows else { return Column(repeating: .max, count: grid.bits.count) }
        var out = Column<UInt64>(repeating: 0, count: grid.bits.count)
        // Rows y - 1, y and y + 1 grown along themselves, row y in slot y % 3.
        var along = [UInt64](repeating: 0, count: 3 * perRow)
        grid.bits.withUnsafeBufferPointer { b in
            along.withUnsafeMutableBufferPointer { h in
                out.withUnsafeMutableBufferPointer { o in
                    func growAlong(_ y: Int) {
                        let r = y &* perRow, s = (y % 3) &* perRow
                        // The words before and after, wrapping around the row (no division per word).
                        var before = b[r &+ perRow &- 1], w = b[r]
                        for i in 0..<perRow {
                            let after = b[i &+ 1 < perRow ? r &+ i &+ 1 : r]
                            h[s &+ i] = w | w << 1 | before >> 63 | w >> 1 | after << 63
                            before = w
                            w = after
                        }
                    }
                    growAlong(0)
                    for y in 0..<rows {
                        if y + 1 < rows { growAlong(y + 1) }
                        let at = (y % 3) &* perRow
                        let above = y > 0 ? ((y + 2) % 3) &* perRow : at, below = y + 1 < rows ? ((y + 1) % 3) &* perRow : at
                        let r = y &* perRow
                        for i in 0..<perRow { o[r &+ i] = h[at &+ i] | h[above &+ i] | h[below &+ i] }
                    }
                }
            }
        }
        return out
    }

    /// Whether the filter was made from `index` as it is now (the index has not changed since).
    package func matches(_ index: FenceIndex) -> Bool { grid.generation == index.generation }

    /// True when no fence box meets the window of `metres` (accuracy plus exit margin) around
    /// the point, so the index would return no candidate.
    /// - Precondition: `lat` in [-90, 90], `lon` finite, `metres` finite and ≥ 0.
    /// - Complexity: O(1).
    @inline(__always)
    public func certainlyMisses(lat: Double, lon: Double, metres: Double) -> Bool {
        guard isUsable else { return false }
        if metres <= fastMetres && lat.magnitude <= MissFilter.fastLatitude && lon.magnitude <= 180 {
            let c = grid.row(lat) &* grid.width &+ grid.column(lon)
            if grown.withUnsafeBufferPointer({ $0[c >> 6] & (1 << UInt64(c & 63)) != 0 }) { return false }
            return largeGrown.isEmpty || !nearLargeBox(lat: lat, lon: lon)
        }
        return certainlyMissesByWindow(lat: lat, lon: lon, metres: metres)
    }

    /// Whether the point lies in a large box grown by a cell (longitudes compared also a turn
    /// east and west: the window may wrap around the antimeridian).
    @inline(never)
    func nearLargeBox(lat: Double, lon: Double) -> Bool {
        largeGrown.withUnsafeBufferPointer { b in
            var k = 0
            while k < b.count {
                if lat >= b[k + 1] && lat <= b[k + 3] {
                    let w = b[k], e = b[k + 2]
                    if (lon >= w && lon <= e) || (lon + 360 >= w && lon + 360 <= e) || (lon - 360 >= w && lon - 360 <= e) { return true }
                }
                k += 4
            }
            return false
        }
    }

    /// The window's way (see the type's notes).
    @inline(never)
    func certainlyMissesByWindow(lat: Double, lon: Double, metres: Double) -> Bool {
        var p = QueryPoint(lat: lat, lon: lon)
        return grid.isClear(p.window(metres: metres))
    }
}

extension CandidateCache {
    /// Uses the filter's grid as this cache's occupancy grid (the same boxes at a finer
    /// resolution: conservative all the same), instead of building one of its own.
    /// - Precondition: the filter matches the index the cache is used with.
    public mutating func adoptOccupancy(of filter: MissFilter) {
        if occupancy?.generation != filter.grid.generation { occupancy = filter.grid }
    }
}

extension FenceIndex {
    /// The miss filter of this index as it is now (rebuild it after the index changes:
    /// ``MissFilter/matches(_:)``), its grid marked by up to `threads` workers.
    /// - Complexity: O(n) for n entries, plus O(grid cells / 64).
    public func missFilter(threads: Int = 1) -> MissFilter {
        if hasStoredMissFilter, let stored = storedMissFilter { return stored }
        return MissFilter(grid: missFilterGrid(threads: threads))
    }

    /// Whether ``missFilter(threads:)`` costs nothing: a compiled fence file carried its grid
    /// and the index has not changed since (docs/compiled-fences.md, sections 35 to 37).
    public var hasStoredMissFilter: Bool {
        storedMissFilter?.grid.generation == generation
    }

    /// The occupancy grid ``missFilter(threads:)`` screens with: about
    /// ``MissFilter/cellsPerBox(boxes:)`` cells per entry box, at most
    /// ``MissFilter/maximumCells``. A compiled fence file stores it (docs/compiled-fences.md).
    func missFilterGrid(threads: Int = 1) -> OccupancyGrid {
        occupancyGrid(cellsPerBox: MissFilter.cellsPerBox(boxes: entryCount), maximumCells: MissFilter.maximumCells, threads: threads)
    }
}

extension MissFilter {
    /// What a ``Probe`` tells of a point.
    @frozen public enum ProbeAnswer: Sendable {
        /// No fence box meets the window: ``MissFilter/certainlyMisses(lat:lon:metres:)`` is true.
        case misses
        /// A box may meet the window: ``MissFilter/certainlyMisses(lat:lon:metres:)`` is false.
        case mayMeet
        /// Beyond the one-bit test (a wide window, a high latitude, boxes too large for the
        /// grid, an unusable filter): ask ``MissFilter/certainlyMisses(lat:lon:metres:)``.
        case undecided
    }

    /// The one-bit test of ``MissFilter/certainlyMisses(lat:lon:metres:)``, inlined into a
    /// caller's loop over many points (``MissFilter/withProbe(_:)``): the same cell of the same
    /// grown grid, without a call per point. Valid only inside the `withProbe` body.
    @frozen public struct Probe {
        @usableFromInline let bits: UnsafePointer<UInt64>
        @usableFromInline let width: Int
        @usableFromInline let scaleX: Double
        @usableFromInline let scaleY: Double
        @usableFromInline let lastColumn: Double
        @usableFromInline let lastRow: Double
        /// The filter's ``MissFilter/fastMetres``, or -1 when the probe decides nothing.
        @usableFromInline let fastMetres: Double
        /// Whether a clear bit still needs the large boxes checked.
        @usableFromInline let hasLarge: Bool

        /// What ``cell(lat:lon:)`` and ``answer(cell:metres:)`` read, for a screen loop written
        /// elsewhere (the evaluator's, in C) that must decide exactly as they do.
        package var parameters: (bits: UnsafePointer<UInt64>, width: Int, scaleX: Double, scaleY: Double,
                                 lastColumn: Double, lastRow: Double, fastMetres: Double, hasLarge: Bool) {
            (bits, width, scaleX, scaleY, lastColumn, lastRow, fastMetres, hasLarge)
        }

        /// The answer for the window of `metres` around the point (`lat` in [-90, 90]).
        /// - Complexity: O(1).
        @inlinable @inline(__always)
        public func answer(lat: Double, lon: Double, metres: Double) -> ProbeAnswer {
            answer(cell: cell(lat: lat, lon: lon), metres: metres)
        }

        /// The grid cell whose bit ``answer(lat:lon:metres:)`` reads for the point, or -1 where
        /// it reads none (beyond ±80° of latitude, a longitude outside [-180, 180], a probe that
        /// decides nothing). A loop over many points finds it a few points ahead and asks for
        /// (prefetches) its ``word(_:)``, the grid being too large to stay in cache.
        @inlinable @inline(__always)
        public func cell(lat: Double, lon: Double) -> Int {
            guard fastMetres >= 0 && lat.magnitude <= MissFilter.fastLatitude && lon.magnitude <= 180 else { return -1 }
            // OccupancyGrid.column and .row, whose clamps at 0 cannot act here (lon ≥ -180 and
            // lat ≥ -80, so both products are ≥ 0; the checked conversion is then the shorter).
            let x = (lon + 180) * scaleX, y = (lat + 90) * scaleY
            return Int(Swift.min(y, lastRow)) &* width &+ Int(Swift.min(x, lastColumn))
        }

        /// The word of the grid that holds the bit of `cell` (≥ 0).
        @inlinable @inline(__always)
        public func word(_ cell: Int) -> UnsafeRawPointer { UnsafeRawPointer(bits + (cell >> 6)) }

        /// ``answer(lat:lon:metres:)`` for the point's ``cell(lat:lon:)``.
        @inlinable @inline(__always)
        public func answer(cell c: Int, metres: Double) -> ProbeAnswer {
            guard c >= 0 && metres <= fastMetres else { return .undecided }
            if bits[c >> 6] & (1 << UInt64(c & 63)) != 0 { return .mayMeet }
            return hasLarge ? .undecided : .misses
        }
    }

    /// Runs `body` with this filter's ``Probe`` (valid only during the call).
    public func withProbe<R>(_ body: (Probe) -> R) -> R {
        let g = grid
        func make(_ bits: UnsafePointer<UInt64>, _ decides: Bool) -> Probe {
            Probe(bits: bits, width: g.width, scaleX: g.scaleX,
                  scaleY: g.scaleY, lastColumn: g.lastColumn, lastRow: g.lastRow,
                  fastMetres: decides ? fastMetres : -1, hasLarge: !largeGrown.isEmpty)
        }
        return grown.withUnsafeBufferPointer { b in
            if let base = b.baseAddress, isUsable, b.count == (g.width &* g.height + 63) / 64 { return body(make(base, true)) }
            var none = UInt64.max
            return withUnsafePointer(to: &none) { body(make($0, false)) }
        }
    }
}
