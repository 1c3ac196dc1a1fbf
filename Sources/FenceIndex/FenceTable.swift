import Geodesy

/// The fence table: identifiers, slots (dense `Int32` ids, never reused),
/// compiled shapes, the live-slot bitset, and the split records of fences
/// stored under two boxes.
struct FenceTable: Sendable {
    var ids: [String] = []
    var slotByID: [String: Int32] = [:]
    /// Per slot; polygon slots hold a placeholder with radius -1.
    var circles: [CompiledCircle] = []
    /// Per slot: polygon index, -1 for circles, -2 for a retired polygon whose shape was dropped.
    var polygonOf: [Int32] = []
    /// Bit per slot: set while the fence is live (not removed or replaced).
    var alive: [UInt64] = []
    var liveCount = 0
    var polygons = PolygonTable()
    /// Secondary entries: the slot and the primary box (to visit a fence once per query).
    var splits: [SplitRecord] = []

    struct SplitRecord: Sendable {
        var slot: Int32
        var primary: BoundingBox
    }

    var slotCount: Int { ids.count }

    @inline(__always)
    func isLive(_ slot: Int) -> Bool {
        alive[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    mutating func setLive(_ slot: Int, _ live: Bool) {
        if live { alive[slot >> 6] |= 1 << UInt64(slot & 63) } else { alive[slot >> 6] &= ~(1 << UInt64(slot & 63)) }
    }

    /// Checks the numbers the index relies on.
    static func validate(_ fence: Fence) throws(FenceIndexError) {
        switch fence {
        case .circle(let c):
            guard c.radius.isFinite && c.radius > 0 else { throw .invalidFence(id: c.id, reason: "radius must be finite and > 0") }
            guard c.lat >= -90 && c.lat <= 90 && c.lon >= -180 && c.lon <= 180 else {
                throw .invalidFence(id: c.id, reason: "centre out of range")
            }
        case .polygon(let p):
            let s = p.shape
            guard s.partCount > 0 else { throw .invalidFence(id: p.id, reason: "no polygon") }
            for r in 0..<s.ringCount {
                let n = s.ringStarts[r + 1] - s.ringStarts[r]
                guard n >= 4 else { throw .invalidFence(id: p.id, reason: "ring with fewer than 4 positions") }
                let f = s.ringStarts[r], l = s.ringStarts[r + 1] - 1
                guard s.coordinates[2 * f] == s.coordinates[2 * l] && s.coordinates[2 * f + 1] == s.coordinates[2 * l + 1] else {
                    throw .invalidFence(id: p.id, reason: "ring not closed")
                }
            }
            for v in 0..<s.vertexCount {
                let x = s.coordinates[2 * v], y = s.coordinates[2 * v + 1]
                guard x >= -180 && x <= 180 && y >= -90 && y <= 90 else { throw .invalidFence(id: p.id, reason: "position out of range") }
            }
        }
    }

    /// Appends a fence under a new slot (the caller handles identifiers).
    mutating func append(_ fence: Fence) -> Int32 {
        let slot = Int32(ids.count)
        ids.append(fence.id)
        switch fence {
        case .circle(let c):
            circles.append(CompiledCircle(lat: c.lat, lon: c.lon, radius: c.radius))
            polygonOf.append(-1)
        case .polygon(let p):
            circles.append(.placeholder)
            polygonOf.append(polygons.append(p.shape))
        }
        if alive.count * 64 < ids.count { alive.append(0) }
        setLive(Int(slot), true)
        liveCount += 1
        slotByID[fence.id] = slot
        return slot
    }

    /// The fence stored in a slot.
    func fence(at slot: Int) -> Fence {
        let p = polygonOf[slot]
        if p < 0 {
            let c = circles[slot]
            return .circle(CircleFence(id: ids[slot], lat: c.lat, lon: c.lon, radius: c.radius))
        }
        return .polygon(PolygonFence(id: ids[slot], shape: polygons.shape(of: Int(p))))
    }

    /// The lon/lat box(es) of a slot: a circle's spherical cap box (containing
    /// every point within its radius, see `SphericalBounds`), a polygon's
    /// vertex box (or two, see `PolygonTable.entryBoxes`).
    func boxes(of slot: Int) -> (GeoBox, GeoBox?) {
        let p = polygonOf[slot]
        if p < 0 {
            let c = circles[slot]
            return (SphericalBounds.capBox(lat: c.lat, lon: c.lon, angle: SphericalBounds.capAngle(metres: c.radius)), nil)
        }
        return polygons.entryBoxes(of: Int(p))
    }

    /// The R-tree entries of a slot (one, or two with a split record).
    mutating func entries(of slot: Int, into out: inout [IndexEntry]) {
        let isPolygon = polygonOf[slot] >= 0
        let (a, b) = boxes(of: slot)
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
        out.append(IndexEntry(box: pieces[0], value: EntryValue.make(payload: Int32(slot), polygon: isPolygon, secondary: false, twin: twin)))
        for piece in pieces.dropFirst() {
            let k = Int32(splits.count)
            splits.append(SplitRecord(slot: Int32(slot), primary: pieces[0]))
            out.append(IndexEntry(box: piece, value: EntryValue.make(payload: k, polygon: isPolygon, secondary: true, twin: true)))
        }
    }

    var memoryBytes: (table: Int, liveBits: Int, splits: Int) {
        var idBytes = ids.capacity * 16
        for s in ids where s.utf8.count > 15 { idBytes += s.utf8.count }
        let dict = slotByID.capacity * (16 + 4) + slotByID.capacity / 2
        return (idBytes + dict + circles.capacity * 32 + polygonOf.capacity * 4 + polygons.memoryBytes,
                alive.capacity * 8, splits.capacity * 20)
    }
}
