import GeofenceBase
import Foundation
import Geodesy

/// An index of circle and polygon fences answering exact point, accuracy,
/// radius, box and nearest-N queries (docs/fences.md, docs/evaluation.md, docs/rotation.md).
///
/// Fences are compiled into flat arrays (`FenceTable`) and indexed by their
/// lon/lat boxes in a packed R-tree (`PackedRTree`, node capacity 16,
/// top-down STR packing, single-precision boxes rounded outward). Queries
/// filter by box, then decide with the real shape: circles by the WGS84
/// geodesic distance from the centre (a haversine test with the
/// `Geodesy.Sphere` error bound settles most points, bounds that follow the
/// ellipsoid (`EllipsoidBounds`, millimetres apart at kilometres) nearly all
/// the others, and only points that close to the edge get Karney's exact
/// geodesic), polygons by a boundary-inclusive point-in-polygon over latitude
/// bands; accuracy and margin decisions for polygons look for edges only in
/// the window that matters (`PolygonTable.boundaryMayMeet`).
///
/// Slots: every fence gets a dense `Int32` slot; answers are slots, mapped to
/// identifiers with `identifier(of:)`. A slot is never reused: `insert` of an
/// existing identifier retires the old slot and gives the fence a new one.
///
/// Changes (`insert`, `remove`) go to a small unsorted tail, merged into a
/// second packed tree every 64 changes; removed fences are tombstoned in a
/// bitset. The main tree is rebuilt (`compact()`) when the second tree or the
/// tombstones grow past a fraction of it. Queries stay exact throughout.
///
/// A value type: copies share storage until mutated. Queries are read-only and
/// safe from many threads; `nearest` takes a caller-owned scratch buffer.
public struct FenceIndex: Sendable {
    var table = FenceTable()
    var main = PackedRTree()
    var delta = PackedRTree()
    var tail: [IndexEntry] = []
    /// Retired slots whose entries are still in `main`, `delta` or `tail`.
    var deadEntries = 0
    /// Changes with every build and change (see `CandidateCache`).
    var generation = IndexGeneration.next()
    /// The miss filter as a compiled fence file stored it, for this generation only (a change
    /// makes `missFilter` build a new one).
    var storedMissFilter: MissFilter? = nil

    /// Changes kept unsorted before they are packed into the second tree.
    static let tailLimit = 64

    /// An empty index.
    public init() {}

    /// Builds an index over the fences, in order (slots `0..<count`).
    /// - Throws: `FenceIndexError.duplicateIdentifier`, `.invalidFence`, or `.tooManyFences`
    ///   past 2^29 − 2 fences.
    /// - Complexity: O(n log n).
    public init(_ fences: some Sequence<Fence>) throws(FenceIndexError) {
        for f in fences {
            let shape = try FenceTable.check(f)
            guard table.slotCount < EntryValue.maxPayload, table.ids.canAppend(bytes: f.id.utf8.count) else { throw .tooManyFences }
            _ = table.append(id: f.id, shape)
        }
        if let dup = firstDuplicate() { throw .duplicateIdentifier(table.ids[dup]) }
        rebuild()
    }

    /// Builds an index over the fences, in order (slots `0..<count`), as `init(_:)` does, and
    /// empties `fences` once they are in the table, before identifiers are sorted and the
    /// tree is built (the fences and the build's scratch arrays are not held at once).
    /// `fences` is left as it was when a fence is refused (`invalidFence`, `tooManyFences`),
    /// and is empty when two fences share an identifier.
    /// - Throws: as `init(_:)`.
    /// - Complexity: O(n log n).
    public init(taking fences: inout [Fence]) throws(FenceIndexError) {
        table.reserve(fences.count, identifierBytes: fences.reduce(0) { $0 + $1.id.utf8.count })
        for f in fences {
            let shape = try FenceTable.check(f)
            guard table.slotCount < EntryValue.maxPayload, table.ids.canAppend(bytes: f.id.utf8.count) else { throw .tooManyFences }
            _ = table.append(id: f.id, shape)
        }
        fences = []
        if let dup = firstDuplicate() { throw .duplicateIdentifier(table.ids[dup]) }
        rebuild()
    }

    /// The first slot (in slot order) whose identifier an earlier slot already has, found
    /// by sorting (no identifier map is built).
    /// - Complexity: O(n log n).
    mutating func firstDuplicate() -> Int? {
        table.rankIdentifiers()
        let order = table.computeIdentifierOrder()   // not kept: a fresh index computes it when asked
        var best: Int? = nil
        var i = 0
        while i < order.count {
            var j = i + 1
            while j < order.count && table.ids.equal(Int(order[i]), Int(order[j])) { j += 1 }
            if j - i > 1 {
                // The second definition in slot order is where a map would have found it.
                let slots = order[i..<j].map(Int.init).sorted()
                if best == nil || slots[1] < best! { best = slots[1] }
            }
            i = j
        }
        return best
    }

    // MARK: Table

    /// Live fences.
    public var count: Int { table.liveCount }

    /// Slots ever handed out (live or retired); valid slots are `0..<slotCount`.
    public var slotCount: Int { table.slotCount }

    /// The identifier of a slot (also of a retired one).
    /// - Complexity: O(1).
    /// - Precondition: `slot` in `0..<slotCount`.
    public func identifier(of slot: Int32) -> String { table.ids[Int(slot)] }

    /// The live slot of an identifier.
    /// - Complexity: O(1) average.
    public func slot(of identifier: String) -> Int32? { table.slot(of: identifier) }

    /// Whether the slot holds a live fence (not removed or replaced).
    /// - Complexity: O(1).
    public func isLive(_ slot: Int32) -> Bool { table.isLive(slot: Int(slot)) }

    /// Whether the live slot holds a polygon fence (false for retired slots).
    /// - Complexity: O(1).
    public func isPolygon(_ slot: Int32) -> Bool {
        isLive(slot) && table.circles[Int(table.recordOf[Int(slot)])].polygon >= 0
    }

    /// The shape in a live slot, rebuilt from the compiled table (nil for a retired slot).
    /// - Complexity: O(1) for circles, O(vertices) for polygons.
    public func shape(at slot: Int32) -> FenceShape? {
        isLive(slot) ? table.shape(record: Int(table.recordOf[Int(slot)])) : nil
    }

    /// The live slots in increasing order.
    /// - Complexity: O(slotCount).
    public var liveSlots: [Int32] { (0..<Int32(table.slotCount)).filter { table.isLive(slot: Int($0)) } }

    /// The lon/lat box(es) of a live fence as indexed: a circle's box contains
    /// every point within its radius; the second box is present for a polygon
    /// with parts on both sides of the antimeridian. A box may cross the antimeridian.
    /// - Complexity: O(1) for circles, O(parts) for polygons.
    /// - Precondition: `slot` is live (`isLive(_:)`).
    public func bounds(of slot: Int32) -> (GeoBox, GeoBox?) {
        table.boxes(record: table.record(ofLive: Int(slot)))
    }

    // MARK: Compiled geometry (for the package's modules)

    /// A live fence as the index compiled it.
    package enum CompiledGeometry: Sendable {
        /// A circle: centre (degrees), the cosine of its latitude, radius (metres).
        case circle(lat: Double, lon: Double, cosLat: Double, radius: Double)
        /// A polygon: its number in `polygonTable`.
        case polygon(Int)
    }

    /// The compiled geometry of a live slot: the circle, or the polygon number in `polygonTable`.
    /// - Complexity: O(1).
    /// - Precondition: `slot` is live (`isLive(_:)`).
    package func compiledGeometry(of slot: Int32) -> CompiledGeometry {
        let r = table.record(ofLive: Int(slot))
        let p = table.circles[r].polygon
        if p >= 0 { return .polygon(p) }
        let c = table.circles[r]
        return .circle(lat: c.lat, lon: c.lon, cosLat: c.cosLat, radius: c.radius)
    }

    /// The compiled polygons (rings, part boxes, latitude bands), numbered as
    /// `compiledGeometry(of:)` gives them for the same index value (a rebuild renumbers them).
    /// - Complexity: O(1) (shares the storage).
    package var polygonTable: PolygonTable { table.polygons }

    // MARK: Building

    /// Packs every live fence into the main tree, lays the records out in
    /// leaf order, and clears the change buffers.
    mutating func rebuild() {
        var entries: [IndexEntry] = []
        entries.reserveCapacity(table.liveCount + table.liveCount / 64 + 8)
        table.splits.removeAll(keepingCapacity: true)
        for r in 0..<table.recordCount where table.isLive(record: r) { table.entries(record: r, into: &entries) }
        var tree = PackedRTree(entries: entries)
        entries = []
        // Record k for leaf lane k: the old record of the primary entry there, or a hole.
        var order = [Int32](repeating: -1, count: tree.leafLanes)
        for k in 0..<tree.leafLanes {
            let v = tree.value(at: k)
            if v != EntryValue.none && v & EntryValue.secondary == 0 { order[k] = Int32(v >> EntryValue.payloadShift) }
        }
        let newOf = table.relayout(order: order)
        tree.remapPrimaryPayloads { newOf[Int($0)] }
        for k in table.splits.indices { table.splits[k].record = newOf[Int(table.splits[k].record)] }
        table.rankIdentifiers()
        let keys = table.orderKeys, splits = table.splits
        tree.setMinOrderKeys { v in
            keys[Int(v & EntryValue.secondary != 0 ? splits[Int(v >> EntryValue.payloadShift)].record : Int32(v >> EntryValue.payloadShift))]
        }
        main = tree
        delta = PackedRTree()
        tail = []
        deadEntries = 0
        generation = IndexGeneration.next()
        #if GEOFENCE_INTERNAL_CHECKS
        checkInvariants()
        #endif
    }

    // MARK: Query plumbing

    /// Longitude in [-180, 180].
    @inline(__always)
    static func normalizedLongitude(_ lon: Double) -> Double {
        if lon >= -180 && lon <= 180 { return lon }
        var l = (lon + 180).truncatingRemainder(dividingBy: 360)
        if l < 0 { l += 360 }
        return l - 180
    }

    /// The window of all positions within `metres` (geodesic) of a point.
    @inline(__always)
    static func window(lat: Double, lon: Double, metres: Double) -> QueryWindow {
        if metres <= 0 { return QueryWindow(GeoBox(west: lon, south: lat, east: lon, north: lat)) }
        return QueryWindow(SphericalBounds.capBox(lat: lat, lon: lon, angle: SphericalBounds.capAngle(metres: metres)))
    }

    /// Calls `body(record)` once for every live fence with a box meeting the
    /// window (main tree, second tree, then the tail). Stops when `body`
    /// returns false; returns false then.
    ///
    /// In the main tree the record of leaf lane `k` is `k`, so a live lane
    /// goes straight to its fence; only dead lanes (retired fences, second
    /// boxes of split fences) read the entry value.
    @inline(__always)
    func forEachCandidate(_ q: QueryWindow, _ body: (Int) -> Bool) -> Bool {
        forEachCandidate(q, maxOrder: nil, body)
    }

    /// As `forEachCandidate(_:_:)`; in the main tree, subtrees whose fences
    /// all have order keys above `maxOrder()` are skipped (some of their
    /// fences may still be visited through other trees or boxes).
    @inline(__always)
    func forEachCandidate(_ q: QueryWindow, maxOrder: (() -> UInt32)?, _ body: (Int) -> Bool) -> Bool {
        table.alive.withUnsafeBufferPointer { alive in
            table.splits.withUnsafeBufferPointer { splits in
                @inline(__always) func isAlive(_ r: Int) -> Bool { alive[r >> 6] & (1 << UInt64(r & 63)) != 0 }
                @inline(__always) func visit(_ v: UInt32) -> Bool {
                    var r = Int(v >> EntryValue.payloadShift)
                    if v & EntryValue.secondary != 0 {
                        let split = splits[r]
                        if q.intersects(split.primary) { return true }  // visited through the primary box
                        r = Int(split.record)
                    }
                    return isAlive(r) ? body(r) : true
                }
                let mainGoesOn = main.search(q, maxOrder: maxOrder) { k in
                    if isAlive(k) { return body(k) }
                    let v = main.value(at: k)
                    return v & EntryValue.secondary != 0 ? visit(v) : true
                }
                if !mainGoesOn { return false }
                if delta.count > 0 && !delta.search(q, { visit(delta.value(at: $0)) }) { return false }
                for e in tail where q.intersects(e.box) {
                    if !visit(e.value) { return false }
                }
                return true
            }
        }
    }
}

extension FenceIndex {
    /// The rank of a slot's identifier in bytewise UTF-8 order among the fences of the last
    /// full build (every slot of an index built or opened and not changed since).
    /// - Complexity: O(1).
    /// - Precondition: `slot` is live and was indexed by the last full build.
    @inline(__always)
    package func identifierRank(of slot: Int32) -> Int32 { table.identifierRank(of: Int(slot)) }
}
