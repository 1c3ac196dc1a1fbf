import GeofenceBase
import Geodesy
import Synchronization

/// The fence table: identifiers and slots (dense `Int32` ids handed out, never
/// reused) on one side; compiled shapes in *records* on the other. Records are
/// laid out in R-tree leaf order at every full build, so the fences of one
/// leaf sit next to each other in memory (a nearest-N search reads a few
/// contiguous runs instead of ~80 scattered cache lines); fences added since
/// get records at the end. Slots map to records and back.
struct FenceTable: Sendable {
    // By slot.
    var ids = IdentifierStore()
    /// Identifier → live slot, kept once the index changes after a build; nil
    /// right after a build or an open (then `slot(of:)` searches `idOrder`).
    /// Live slots by identifier bytes (UTF-8, compared bytewise: two spellings of one text in
    /// different Unicode normalisations are two identifiers), built on the first change.
    var slotByID: [[UInt8]: Int32]? = nil
    /// Record of each slot, -1 once retired (removed or replaced).
    var recordOf: [Int32] = []

    // By record.
    /// Circles; polygon records hold their polygon number (see `CompiledCircle`).
    var circles: [CompiledCircle] = []
    var slotOf: [Int32] = []
    /// Bit per record: set while its fence is live.
    var alive: [UInt64] = []

    /// Per record: the identifier's place in bytewise UTF-8 order, so that
    /// ties in nearest-N compare integers: `2 (i + 1)` for the i-th identifier
    /// of the last full build (`rankIdentifiers`), `2p + 1` for a fence added
    /// since, with p build identifiers before it (equal odd keys: compare the
    /// identifiers). Keys order records as their identifiers do.
    var orderKeys: [UInt32] = []
    /// Slots of the last full build in identifier order (to place fences added since, and
    /// to find a slot by identifier before the first change), computed from `orderKeys` on
    /// first use and shared by the copies of the table until the next build.
    var idOrder: [Int32] { idOrderCache.order { computeIdentifierOrder() } }
    var idOrderCache = IdentifierOrderCache()

    var liveCount = 0
    var polygons = PolygonTable()
    /// Secondary entries: the record and the primary box (to visit a fence once per query).
    var splits: [SplitRecord] = []

    struct SplitRecord: Sendable {
        var record: Int32
        var primary: BoundingBox
    }

    var slotCount: Int { ids.count }
    var recordCount: Int { circles.count }

    @inline(__always)
    func isLive(record r: Int) -> Bool {
        alive[r >> 6] & (1 << UInt64(r & 63)) != 0
    }

    @inline(__always)
    func isLive(slot s: Int) -> Bool { s >= 0 && s < recordOf.count && recordOf[s] >= 0 }

    /// The record of a live slot.
    @inline(__always)
    func record(ofLive slot: Int) -> Int {
        precondition(isLive(slot: slot), "slot \(slot) is not live")
        return Int(recordOf[slot])
    }

    /// Makes room for `count` more fences with `identifierBytes` bytes of identifiers in all
    /// (the arrays then hold what they need, not up to twice as much).
    mutating func reserve(_ count: Int, identifierBytes: Int) {
        let n = circles.count + count
        ids.bytes.reserveCapacity(ids.bytes.count + identifierBytes); ids.ends.reserveCapacity(ids.ends.count + count)
        recordOf.reserveCapacity(recordOf.count + count)
        circles.reserveCapacity(n); slotOf.reserveCapacity(n); orderKeys.reserveCapacity(n)
        alive.reserveCapacity((n + 63) / 64)
    }

    /// Appends a checked shape under a new slot and record (the caller handles identifiers).
    mutating func append(id: String, _ shape: CheckedShape) -> (slot: Int32, record: Int32) {
        let slot = Int32(ids.count), record = Int32(circles.count)
        orderKeys.append(provisionalOrderKey(id))
        ids.append(id)
        recordOf.append(record)
        slotOf.append(slot)
        switch shape {
        case .circle(let c): circles.append(c)
        case .polygon(let p): circles.append(.polygon(polygons.append(p)))
        }
        if alive.count * 64 < circles.count { alive.append(0) }
        alive[Int(record) >> 6] |= 1 << UInt64(record & 63)
        liveCount += 1
        slotByID?[Array(id.utf8)] = slot
        return (slot, record)
    }

    /// Retires a live slot (removed or replaced); its record stays, dead, until the next relayout.
    mutating func retire(slot: Int) {
        let r = record(ofLive: slot)
        alive[r >> 6] &= ~(1 << UInt64(r & 63))
        recordOf[slot] = -1
        liveCount -= 1
    }

    /// Rewrites the records in `order` (old live records, -1 for a hole: a
    /// record of no fence), dropping dead ones and their polygon coordinates;
    /// returns old record -> new record (-1 dropped).
    mutating func relayout(order: [Int32]) -> [Int32] {
        var newOf = [Int32](repeating: -1, count: recordCount)
        var newCircles: [CompiledCircle] = [], newSlotOf: [Int32] = []
        var newKeys: [UInt32] = []
        newKeys.reserveCapacity(order.count)
        newCircles.reserveCapacity(order.count); newSlotOf.reserveCapacity(order.count)
        var newPolygons = PolygonTable()
        alive = [UInt64](repeating: 0, count: (order.count + 63) / 64)
        liveCount = 0
        for old in order {
            let r = newCircles.count
            guard old >= 0 else {
                newCircles.append(.hole); newSlotOf.append(-1); newKeys.append(0)
                continue
            }
            let o = Int(old)
            newOf[o] = Int32(r)
            let c = circles[o], p = c.polygon
            newCircles.append(p < 0 ? c : .polygon(newPolygons.append(polygons.shape(of: p))))
            newKeys.append(orderKeys[o])
            newSlotOf.append(slotOf[o])
            recordOf[Int(slotOf[o])] = Int32(r)
            alive[r >> 6] |= 1 << UInt64(r & 63)
            liveCount += 1
        }
        circles = newCircles; slotOf = newSlotOf; orderKeys = newKeys
        polygons = newPolygons
        return newOf
    }

    // MARK: Identifier order

    /// The first 8 UTF-8 bytes, big-endian, zero-padded: ordered as the
    /// identifiers are, up to ties.
    static func prefixKey(_ id: String) -> UInt64 {
        var k: UInt64 = 0, n = 0
        for b in id.utf8 {
            if n == 8 { break }
            k = k << 8 | UInt64(b)
            n += 1
        }
        return n == 0 ? 0 : k << UInt64(8 * (8 - n))
    }

    /// Sorts the live identifiers (bytewise UTF-8) into `idOrder` and gives
    /// every live record its order key.
    /// - Complexity: O(n log n) integer comparisons, plus string comparisons
    ///   among identifiers sharing their first 8 bytes.
    mutating func rankIdentifiers() {
        var keyed: [(prefix: UInt64, slot: Int32)] = []
        keyed.reserveCapacity(liveCount)
        for s in 0..<recordOf.count where recordOf[s] >= 0 { keyed.append((ids.prefixKey(s), Int32(s))) }
        keyed.sort { $0.prefix < $1.prefix }
        var i = 0
        while i < keyed.count {
            var j = i + 1
            while j < keyed.count && keyed[j].prefix == keyed[i].prefix { j += 1 }
            if j - i > 1 {
                let ids = ids
                keyed[i..<j].sort { ids.precedes(Int($0.slot), Int($1.slot)) }
            }
            i = j
        }
        for k in 0..<orderKeys.count { orderKeys[k] = 0 }
        for (i, s) in keyed.enumerated() { orderKeys[Int(recordOf[Int(s.slot)])] = UInt32(2 * (i + 1)) }
        idOrderCache = IdentifierOrderCache()
    }

    /// `idOrder` from the even order keys (every record of the last full build, live or retired since).
    /// - Complexity: O(records).
    func computeIdentifierOrder() -> [Int32] {
        var n = 0
        for k in orderKeys where k != 0 && k & 1 == 0 { n += 1 }
        var order = [Int32](repeating: -1, count: n)
        for (r, k) in orderKeys.enumerated() where k != 0 && k & 1 == 0 {
            let i = Int(k / 2) - 1
            if i < n { order[i] = slotOf[r] }
        }
        return order
    }

    /// The rank of a slot of the last full build in identifier order (`2 (rank + 1)` is its order key).
    /// - Precondition: the slot is live and was given its key by the last full build.
    @inline(__always)
    func identifierRank(of slot: Int) -> Int32 { Int32(orderKeys[Int(recordOf[slot])] / 2) - 1 }

    /// The order key of a fence added after the last full build (see `orderKeys`).
    /// - Complexity: O(log n) string comparisons.
    func provisionalOrderKey(_ id: String) -> UInt32 {
        UInt32(2 * lowerBound(id) + 1)
    }

    /// The first position in `idOrder` whose identifier is not below `id`.
    /// - Complexity: O(log n) byte comparisons.
    func lowerBound(_ id: String) -> Int {
        var id = id
        let idOrder = idOrder
        return id.withUTF8 { key in
            var lo = 0, hi = idOrder.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if ids.compare(Int(idOrder[mid]), key) < 0 { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }

    /// The live slot of an identifier: the map when present, else a binary
    /// search of `idOrder` (which then holds every live slot).
    func slot(of id: String) -> Int32? {
        if let slotByID { return slotByID[Array(id.utf8)] }
        let k = lowerBound(id), idOrder = idOrder
        guard k < idOrder.count else { return nil }
        let s = idOrder[Int(k)]
        var id = id
        let same = id.withUTF8 { ids.compare(Int(s), $0) == 0 }
        return same && isLive(slot: Int(s)) ? s : nil
    }

    /// Builds the identifier map (before the first change after a build or an open).
    mutating func materializeSlotMap() {
        guard slotByID == nil else { return }
        var m: [[UInt8]: Int32] = [:]
        m.reserveCapacity(liveCount)
        for s in 0..<recordOf.count where recordOf[s] >= 0 { m[Array(ids[s].utf8)] = Int32(s) }
        slotByID = m
    }

    /// A fence's shape checked and in the table's layout.
    enum CheckedShape {
        case circle(CompiledCircle)
        case polygon(PolygonShape)
    }

    /// Checks the numbers the index relies on and converts the shape to the table's layout.
    static func check(_ fence: Fence) throws(FenceIndexError) -> CheckedShape {
        switch fence.shape {
        case .circle(let lat, let lon, let radius):
            guard radius.isFinite && radius > 0 else { throw .invalidFence(id: fence.id, reason: "radius must be finite and > 0") }
            guard lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 else {
                throw .invalidFence(id: fence.id, reason: "centre out of range")
            }
            return .circle(CompiledCircle(lat: lat, lon: lon, radius: radius))
        case .polygon(let parts):
            let s = PolygonShape(polygons: parts)
            guard s.partCount > 0 else { throw .invalidFence(id: fence.id, reason: "no polygon") }
            for r in 0..<s.ringCount {
                let n = s.ringStarts[r + 1] - s.ringStarts[r]
                guard n >= 4 else { throw .invalidFence(id: fence.id, reason: "ring with fewer than 4 positions") }
                let f = s.ringStarts[r], l = s.ringStarts[r + 1] - 1
                guard s.coordinates[2 * f] == s.coordinates[2 * l] && s.coordinates[2 * f + 1] == s.coordinates[2 * l + 1] else {
                    throw .invalidFence(id: fence.id, reason: "ring not closed")
                }
            }
            for v in 0..<s.vertexCount {
                let x = s.coordinates[2 * v], y = s.coordinates[2 * v + 1]
                guard x >= -180 && x <= 180 && y >= -90 && y <= 90 else { throw .invalidFence(id: fence.id, reason: "position out of range") }
            }
            return .polygon(s)
        }
    }

    /// The shape of a record, rebuilt from the table.
    func shape(record r: Int) -> FenceShape {
        let p = circles[r].polygon
        if p < 0 {
            let c = circles[r]
            return .circle(lat: c.lat, lon: c.lon, radius: c.radius)
        }
        return .polygon(polygons.shape(of: p).polygons)
    }

    /// The lon/lat box(es) of a record: a circle's spherical cap box (containing
    /// every point within its radius, see `SphericalBounds`), a polygon's
    /// vertex box (or two, see `PolygonTable.entryBoxes`).
    func boxes(record r: Int) -> (GeoBox, GeoBox?) {
        let p = circles[r].polygon
        if p < 0 {
            let c = circles[r]
            return (SphericalBounds.capBox(lat: c.lat, lon: c.lon, angle: SphericalBounds.capAngle(metres: c.radius)), nil)
        }
        return polygons.entryBoxes(of: p)
    }

    /// The R-tree entries of a record (one, or two with a split record).
    mutating func entries(record r: Int, into out: inout [IndexEntry]) {
        let isPolygon = circles[r].polygon >= 0
        let (a, b) = boxes(record: r)
        var pieces: [BoundingBox] = []
        let (a0, a1) = BoundingBox.pieces(of: a)
        pieces.append(a0)
        if let a1 { pieces.append(a1) }
        if let b {
            let (b0, b1) = BoundingBox.pieces(of: b)
            pieces.append(b0)
            if let b1 { pieces.append(b1) }
        }
        let twin = pieces.count > 1
        out.append(IndexEntry(box: pieces[0], value: EntryValue.make(payload: Int32(r), polygon: isPolygon, secondary: false, twin: twin)))
        for piece in pieces.dropFirst() {
            let k = Int32(splits.count)
            splits.append(SplitRecord(record: Int32(r), primary: pieces[0]))
            out.append(IndexEntry(box: piece, value: EntryValue.make(payload: k, polygon: isPolygon, secondary: true, twin: true)))
        }
    }

    var memoryBytes: (table: Int, liveBits: Int, splits: Int) {
        let idBytes = ids.memoryBytes
        var dict = 0
        if let slotByID {
            // Keys are arrays: an 8-byte reference inline, a 32-byte header and the bytes on the heap.
            dict = slotByID.capacity * (8 + 4) + slotByID.capacity / 2
            for k in slotByID.keys { dict += 32 + k.count }
        }
        return (idBytes + dict + recordOf.capacity * 4 + circles.capacity * MemoryLayout<CompiledCircle>.stride + slotOf.capacity * 4
                + polygons.memoryBytes,
                alive.capacity * 8, splits.capacity * 20 + orderKeys.capacity * 4 + idOrderCache.memoryBytes)
    }
}

/// The identifier order of a table, computed once on first use (see `FenceTable.idOrder`).
final class IdentifierOrderCache: Sendable {
    private let held = Mutex<[Int32]?>(nil)

    /// The order, computed by `make` the first time.
    func order(_ make: () -> [Int32]) -> [Int32] {
        held.withLock { h in
            if let h { return h }
            let o = make()
            h = o
            return o
        }
    }

    var memoryBytes: Int { held.withLock { ($0?.capacity ?? 0) * 4 } }
}
