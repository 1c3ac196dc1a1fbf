import GeofenceBase
import Geodesy
import Synchronization

/// Reusable memory of the last candidate search of one thread, for queries
/// that follow each other in space (a device's fixes, a batch in spatial
/// order): the index entries whose boxes meet a small region around the last
/// query window (`reach` metres beyond it). A later window inside that
/// region has its candidates among those entries, so it skips the tree: a
/// few box tests instead of a root-to-leaf descent.
///
/// Answers are the same, in the same order, with or without a cache (see
/// `FenceIndex.forEachClassified(lat:lon:accuracy:exitMargin:cache:_:)`).
/// A cache remembers which index it was filled from and refills when asked
/// about another one (or the same one changed). Keep one per thread.
///
/// The region adapts: it shrinks where entries are dense (so a hit tests
/// few boxes) and grows where they are sparse (so hits are more frequent);
/// and the cache steps aside where the tree is cheaper (see `windowCost`).
public struct CandidateCache: Sendable {
    /// Entries of the region, in the order a search of the tree meets them.
    var entries: [CachedEntry] = []
    /// The region (never crossing the antimeridian); empty until filled.
    var west = 0.0, south = 0.0, east = -1.0, north = -1.0
    /// The index (`FenceIndex.generation`) the entries come from; 0: none.
    var generation: UInt64 = 0
    /// When there are at most `gridLimit` entries: a grid of `side` × `side` cells over
    /// the region, as the set of entries (bit i: `entries[i]`) whose box meets
    /// each column (`masks[0..<side]`) and each row (`masks[side...]`); an
    /// entry meets a cell when it meets its column and its row.
    var gridded = false
    var masks = [UInt64](repeating: 0, count: 2 * CandidateCache.side)
    /// Cells per degree of longitude and latitude.
    var scaleX = 0.0, scaleY = 0.0
    /// Margin in metres added around the window of a search that fills the cache.
    var reach = CandidateCache.initialReach

    /// Queries answered from the cache, queries that filled it, and queries
    /// that went to the tree (while the tree was estimated cheaper, or for a
    /// window crossing the antimeridian).
    public private(set) var hits = 0
    /// Queries that searched the tree and refilled the cache.
    public private(set) var fills = 0
    /// Queries sent to the tree without using the cache (while the tree was estimated cheaper, or
    /// for a window crossing the antimeridian).
    public private(set) var bypassed = 0

    /// Whether the cache pays depends on the queries: fixes that follow each
    /// other closely hit it, scattered ones make many queries fills (a search
    /// over a larger window, then copying), and where boxes are dense a hit
    /// tests about as many boxes as the tree search would. So the cache
    /// keeps an estimate of its own cost over each `window` queries and
    /// compares it with a tree search's (`treeCost`); when it costs more, the
    /// queries go to the tree for `treeQueries` (twice as long after each
    /// losing window in a row, up to 8×), then to the cache again. The costs
    /// are instruction counts measured with callgrind (a fill about 1,500
    /// plus 150 per entry gathered, a hit 60 plus 12 per box tested, a tree
    /// search about 80 per level), so the choice is deterministic. Answers
    /// are the same either way; only speed depends on it.
    var windowQueries = 0, windowCost = 0, treeLeft = 0, streak = 0
    /// Estimated cost of a tree search of the index last filled from.
    var treeCost = 0
    /// Cells of the world that some box meets, built when the cache steps aside twice in a row
    /// (its queries are scattered): a query outside the cache whose window lies in clear cells
    /// has no candidates, and skips the tree (`OccupancyGrid`). Logs whose fixes follow each
    /// other never build it. Consulted while it pays: after `gridWindow` checks that found
    /// fewer than a quarter clear, it rests until the cache steps aside twice in a row again.
    var occupancy: OccupancyGrid? = nil
    var wantsOccupancy = false
    var gridChecks = 0, gridClears = 0
    static let gridWindow = 1024
    /// Queries outside the cache that the occupancy grid answered (no candidates) without a tree search.
    public internal(set) var cleared = 0

    static let window = 1024
    static let treeQueries = 4096
    /// Grid cells per side.
    static let side = 16
    /// Most entries a grid holds (bits of a mask).
    static let gridLimit = 64
    static let initialReach = 2_000.0
    static let minimumReach = 100.0
    static let maximumReach = 16_000.0
    /// A fill meeting more entries than this shrinks the region for the next one,
    /// fewer than `sparseEntries` grows it.
    static let denseEntries = 40
    static let sparseEntries = 10

    /// Whether the cache may send queries to the tree when it estimates the
    /// tree cheaper (see `windowCost`).
    public let stepsAside: Bool

    /// - Parameter stepsAside: false to answer every query through the cache
    ///   (windows crossing the antimeridian excepted), whatever it costs.
    public init(stepsAside: Bool = true) {
        self.stepsAside = stepsAside
    }

    /// Forgets the entries (the region and its adaptation too).
    public mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        west = 0; south = 0; east = -1; north = -1
        generation = 0
        gridded = false
        reach = CandidateCache.initialReach
        windowQueries = 0; windowCost = 0; treeLeft = 0; streak = 0
        occupancy = nil; wantsOccupancy = false; cleared = 0; gridChecks = 0; gridClears = 0
    }

    /// Whether the cached region, from this index, contains the window (one
    /// crossing the antimeridian never: it would pass the bound tests).
    @inline(__always)
    func covers(_ w: GeoBox, generation g: UInt64) -> Bool {
        g == generation && w.west >= west && w.east <= east && w.south >= south && w.north <= north && w.west <= w.east
    }

    /// A query answered from the cache after testing `tests` boxes.
    @inline(__always)
    mutating func noteHit(tests: Int) {
        hits &+= 1
        count(60 &+ 12 &* tests)
    }

    @inline(__always)
    mutating func noteTree() { bypassed &+= 1 }

    /// An occupancy grid check and whether it found the window clear.
    @inline(__always)
    mutating func noteGrid(clear: Bool) {
        gridChecks &+= 1
        if clear { gridClears &+= 1; cleared &+= 1 }
        if gridChecks == CandidateCache.gridWindow {
            if gridClears &* 4 < gridChecks { wantsOccupancy = false }
            gridChecks = 0
            gridClears = 0
        }
    }

    /// Whether this query goes to the tree (the cache found it cheaper).
    @inline(__always)
    mutating func bypassing() -> Bool {
        guard treeLeft > 0 else { return false }
        treeLeft &-= 1
        bypassed &+= 1
        return true
    }

    @inline(__always)
    mutating func count(_ cost: Int) {
        windowCost &+= cost
        windowQueries &+= 1
        if windowQueries == CandidateCache.window { endWindow() }
    }

    mutating func endWindow() {
        if stepsAside && windowCost > treeCost &* windowQueries {
            if streak > 0 { wantsOccupancy = true }
            treeLeft = CandidateCache.treeQueries << streak
            streak = Swift.min(streak + 1, 3)
        } else {
            streak = 0
        }
        windowQueries = 0
        windowCost = 0
    }

    /// Grid column (or row) of a coordinate already scaled to cells, clamped to the grid.
    @inline(__always)
    static func cell(_ scaled: Double) -> Int {
        scaled >= 0 ? (scaled < Double(side - 1) ? Int(scaled) : side - 1) : 0
    }

    /// Builds the grid over the region for the entries just gathered (none past `gridLimit`).
    /// Scaling and truncation are monotone, so an entry meeting a window
    /// has column and row ranges that overlap the window's.
    mutating func buildGrid() {
        gridded = entries.count <= CandidateCache.gridLimit
        guard gridded else { return }
        let n = Double(CandidateCache.side), side = CandidateCache.side
        scaleX = east > west ? n / (east - west) : 0
        scaleY = north > south ? n / (north - south) : 0
        let west = west, south = south, sx = scaleX, sy = scaleY
        entries.withUnsafeBufferPointer { es in
            masks.withUnsafeMutableBufferPointer { c in
                for k in 0..<(2 * side) { c[k] = 0 }
                for i in 0..<es.count {
                    let e = es[i], bit = UInt64(1) << UInt64(i)
                    for x in CandidateCache.cell((e.west - west) * sx)...CandidateCache.cell((e.east - west) * sx) { c[x] |= bit }
                    for y in CandidateCache.cell((e.south - south) * sy)...CandidateCache.cell((e.north - south) * sy) { c[side + y] |= bit }
                }
            }
        }
    }

    /// The entries (bits) that may meet a window inside the region (gridded caches only).
    @inline(__always)
    func candidates(_ w: GeoBox) -> UInt64 {
        let x0 = CandidateCache.cell((w.west - west) * scaleX), y0 = CandidateCache.cell((w.south - south) * scaleY)
        let side = CandidateCache.side
        return masks.withUnsafeBufferPointer { c in
            if w.west == w.east && w.south == w.north { return c[x0] & c[side + y0] }
            let x1 = CandidateCache.cell((w.east - west) * scaleX), y1 = CandidateCache.cell((w.north - south) * scaleY)
            var columns: UInt64 = 0, rows: UInt64 = 0
            for x in x0...x1 { columns |= c[x] }
            for y in y0...y1 { rows |= c[side + y] }
            return columns & rows
        }
    }

    /// Adapts the reach to the entry count of the fill just made.
    @inline(__always)
    mutating func adapt(searches: Int) {
        fills &+= 1
        count(1_500 &* searches &+ 150 &* entries.count)
        if entries.count > CandidateCache.denseEntries {
            reach = Swift.max(CandidateCache.minimumReach, reach * 0.5)
        } else if entries.count < CandidateCache.sparseEntries {
            reach = Swift.min(CandidateCache.maximumReach, reach * 1.5)
        }
    }
}

/// One index entry as cached: its box (exactly the stored single-precision
/// box, widened to double), its live record, and for the second box of a
/// fence split at the antimeridian the index of its `SplitRecord` (else -1).
struct CachedEntry: Sendable {
    var west: Double
    var south: Double
    var east: Double
    var north: Double
    var record: Int32
    var split: Int32

    @inline(__always)
    init(_ box: BoundingBox, record: Int, split: Int32) {
        west = Double(box.west); south = Double(box.south); east = Double(box.east); north = Double(box.north)
        self.record = Int32(truncatingIfNeeded: record)
        self.split = split
    }

    /// Whether the (non-crossing) window meets the box.
    @inline(__always)
    func meets(_ w: GeoBox) -> Bool {
        south <= w.north && north >= w.south && west <= w.east && east >= w.west
    }
}

/// Identifies index contents for `CandidateCache`: every build and every
/// change takes a new number, so two indexes with the same number are copies
/// of one value, unchanged.
enum IndexGeneration {
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UInt64 { counter.wrappingAdd(1, ordering: .relaxed).newValue }
}
