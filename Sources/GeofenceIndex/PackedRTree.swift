import GeofenceBase
import Geodesy

/// A static, packed R-tree over `IndexEntry` boxes (flatbush / GEOS
/// TemplateSTRtree layout, with SIMD-friendly nodes).
///
/// Layout: one flat `[Float]` of 80-word node blocks, leaves first, then each
/// level up to the root. A node's block holds its up to 16 children's boxes as
/// structure-of-arrays: 16 wests, 16 souths, 16 easts, 16 norths (unused lanes
/// hold an empty box that meets nothing), so one node is tested against a
/// query with four 16-lane vector comparisons; a leaf's last 16 words are its
/// entry values (bit patterns), in the cache line right after its boxes.
/// Child `j` of node `i` on level `L > 1` is node
/// `levelStart(L-1) + (i - levelStart(L)) * 16 + j`. No child pointers.
///
/// Packing: top-down STR ("OMT", Lee & Lee 2003): the entries are sorted by
/// box centre longitude into vertical slices, each slice by latitude, and cut
/// into subtrees of exactly `16^(h-1)` entries, recursively; so every node is
/// full but the last one of each level, and nodes are square-ish at every level
/// (bottom-up STR followed by consecutive grouping makes thin upper nodes).
///
/// Memory: 16 bytes of box and 4 of value per entry in the leaves, plus 1/16
/// of that per level above: ~21.3 bytes per entry.
struct PackedRTree: Sendable {
    /// Children per node: 16 lanes of single-precision boxes fill exactly one
    /// 64-byte cache line per coordinate, and a point query visits ~5 nodes
    /// (one root-to-leaf path) at 100k and 1M uniform circles. The block
    /// layout and the lane masks (`UInt32`) assume 16.
    static let nodeCapacity = 16
    /// Deepest tree the fixed traversal stack supports (16^8 entries).
    static let maxLevels = 8

    /// Words per node block.
    static let stride = 80
    /// The node blocks, 64-byte aligned: each 16-lane row is one cache line.
    var storage = BlockStorage(count: 0)

    /// First node of each level (level 1, the leaves, first), then the node count.
    var nodeStarts: [Int] = [0]
    /// Real (non-padding) entries.
    var count: Int = 0
    /// The root's own box.
    var rootBox = BoundingBox.empty

    init() {}

    init(entries: [IndexEntry]) {
        let m = PackedRTree.nodeCapacity
        let n = entries.count
        precondition(n < Int(Int32.max) / 2, "too many entries")
        count = n
        guard n > 0 else { return }
        var height = 1, capacity = m
        while capacity < n { capacity *= m; height += 1 }
        precondition(height <= PackedRTree.maxLevels, "tree too deep")

        var order = [Int32](unsafeUninitializedCapacity: n) { buf, c in
            for i in 0..<n { buf[i] = Int32(i) }
            c = n
        }
        var cx = [Float](repeating: 0, count: n), cy = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let b = entries[i].box
            cx[i] = b.west * 0.5 + b.east * 0.5
            cy[i] = b.south * 0.5 + b.north * 0.5
        }
        cx.withUnsafeBufferPointer { xs in
            cy.withUnsafeBufferPointer { ys in
                order.withUnsafeMutableBufferPointer { ord in
                    PackedRTree.pack(ord, 0, n, height: height, subtree: capacity / m, xs: xs, ys: ys)
                }
            }
        }

        // Node counts per level.
        var counts: [Int] = [(n + m - 1) / m]
        while counts.last! > 1 { counts.append((counts.last! + m - 1) / m) }
        nodeStarts = [0]
        for c in counts { nodeStarts.append(nodeStarts.last! + c) }
        let total = nodeStarts.last!
        storage = BlockStorage(count: PackedRTree.stride * total)
        for node in 0..<total {
            // Leaf lanes: entry values (`none` for padding); upper lanes: subtree order-key minima (0: no information).
            let v = node < counts[0] ? EntryValue.none : 0
            for lane in 0..<m { setChild(node, lane, .empty); setValue(node, lane, v) }
        }
        // Leaves.
        var childBoxes = [BoundingBox](repeating: .empty, count: counts[0])
        for k in 0..<n {
            let e = entries[Int(order[k])]
            setChild(k / m, k % m, e.box)
            setValue(k / m, k % m, e.value)
            childBoxes[k / m] = childBoxes[k / m].union(e.box)
        }
        // Upper levels: each node's block holds its children's boxes.
        for level in 1..<counts.count {
            let start = nodeStarts[level]
            var next = [BoundingBox](repeating: .empty, count: counts[level])
            for (k, b) in childBoxes.enumerated() {
                setChild(start + k / m, k % m, b)
                next[k / m] = next[k / m].union(b)
            }
            childBoxes = next
        }
        rootBox = childBoxes[0]
        #if GEOFENCE_INTERNAL_CHECKS
        checkInvariants()
        #endif
    }

    /// Copies the blocks if another tree shares them (before any write).
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    private mutating func setChild(_ node: Int, _ lane: Int, _ b: BoundingBox) {
        let o = PackedRTree.stride * node
        let w = storage.words
        w[o + lane] = b.west
        w[o + 16 + lane] = b.south
        w[o + 32 + lane] = b.east
        w[o + 48 + lane] = b.north
    }

    private mutating func setValue(_ node: Int, _ lane: Int, _ v: UInt32) {
        storage.words[PackedRTree.stride * node + 64 + lane] = Float(bitPattern: v)
    }

    /// The entry value of lane `lane` of leaf `node` (`EntryValue.none` when unused).
    @inline(__always)
    func value(_ node: Int, _ lane: Int) -> UInt32 {
        storage.words[PackedRTree.stride * node + 64 + lane].bitPattern
    }

    /// The entry value at a leaf lane `16 * leaf + lane`.
    @inline(__always)
    func value(at position: Int) -> UInt32 {
        value(position / PackedRTree.nodeCapacity, position % PackedRTree.nodeCapacity)
    }

    /// Number of leaf lanes (16 per leaf).
    var leafLanes: Int { count == 0 ? 0 : PackedRTree.nodeCapacity * (nodeStarts[1] - nodeStarts[0]) }

    /// The box of child `lane` of `node`.
    @inline(__always)
    func childBox(_ node: Int, _ lane: Int) -> BoundingBox {
        let o = PackedRTree.stride * node
        let w = storage.words
        return BoundingBox(west: w[o + lane], south: w[o + 16 + lane], east: w[o + 32 + lane], north: w[o + 48 + lane])
    }

    /// The box of a node on `level` (stored in its parent's block).
    @inline(__always)
    func nodeBox(_ node: Int, level: Int) -> BoundingBox {
        if level == height { return rootBox }
        let k = node - nodeStarts[level - 1]
        return childBox(nodeStarts[level] + k / PackedRTree.nodeCapacity, k % PackedRTree.nodeCapacity)
    }

    /// Number of levels (1: the root is a leaf), 0 when empty.
    var height: Int { count == 0 ? 0 : nodeStarts.count - 1 }

    /// The root node.
    var root: Int { nodeStarts[nodeStarts.count - 2] }

    /// First node of a level (1 = leaves).
    @inline(__always)
    func levelStart(_ level: Int) -> Int { nodeStarts[level - 1] }

    /// Child `lane` of `node` on `level` > 1.
    @inline(__always)
    func child(_ node: Int, level: Int, lane: Int) -> Int {
        nodeStarts[level - 2] + (node - nodeStarts[level - 1]) * PackedRTree.nodeCapacity + lane
    }

    /// Stores in every upper lane the least order key (`FenceTable.orderKeys`,
    /// given per entry value by `key`) of the entries below it: a lower bound
    /// for nearest-N ties (0, the default, bounds anything).
    mutating func setMinOrderKeys(_ key: (UInt32) -> UInt32) {
        makeUnique()
        let m = PackedRTree.nodeCapacity
        guard height > 1 else { return }
        var childMin = [UInt32](repeating: .max, count: nodeStarts[1])
        for k in 0..<leafLanes {
            let v = value(k / m, k % m)
            if v != EntryValue.none { childMin[k / m] = min(childMin[k / m], key(v)) }
        }
        for level in 2...height {
            let start = levelStart(level), end = nodeStarts[level]
            var next = [UInt32](repeating: .max, count: end - start)
            for node in start..<end {
                for lane in 0..<m {
                    let c = child(node, level: level, lane: lane)
                    guard c < nodeStarts[level - 1] else { continue }
                    let v = childMin[c - levelStart(level - 1)]
                    setValue(node, lane, v == .max ? 0 : v)
                    next[node - start] = min(next[node - start], v)
                }
            }
            childMin = next
        }
    }

    /// The least order key below lane `lane` of upper node `node` (see `setMinOrderKeys`).
    @inline(__always)
    func minOrderKey(_ node: Int, _ lane: Int) -> UInt32 { value(node, lane) }

    /// Rewrites the payload of every primary entry (secondary entries keep their split index).
    mutating func remapPrimaryPayloads(_ f: (Int32) -> Int32) {
        makeUnique()
        let m = PackedRTree.nodeCapacity
        for k in 0..<leafLanes {
            let v = value(k / m, k % m)
            if v == EntryValue.none || v & EntryValue.secondary != 0 { continue }
            let payload = f(Int32(v >> EntryValue.payloadShift))
            setValue(k / m, k % m, UInt32(payload) << EntryValue.payloadShift | (v & ((1 << EntryValue.payloadShift) - 1)))
        }
    }

    /// Bytes held by the tree arrays.
    var memoryBytes: Int { storage.count * 4 + nodeStarts.capacity * 8 }

    /// The real entries, in tree order.
    var entries: [IndexEntry] {
        var out: [IndexEntry] = []
        out.reserveCapacity(count)
        let m = PackedRTree.nodeCapacity
        for k in 0..<leafLanes where value(k / m, k % m) != EntryValue.none {
            out.append(IndexEntry(box: childBox(k / m, k % m), value: value(k / m, k % m)))
        }
        return out
    }

    /// Top-down STR ordering of `ord[lo..<hi]` for a subtree of `height`
    /// node levels whose children hold `subtree` entries each.
    private static func pack(_ ord: UnsafeMutableBufferPointer<Int32>, _ lo: Int, _ hi: Int, height: Int, subtree: Int,
                             xs: UnsafeBufferPointer<Float>, ys: UnsafeBufferPointer<Float>) {
        let n = hi - lo
        if height <= 1 || n <= nodeCapacity { return }
        let groups = (n + subtree - 1) / subtree
        if groups == 1 {
            pack(ord, lo, hi, height: height - 1, subtree: subtree / nodeCapacity, xs: xs, ys: ys)
            return
        }
        let slices = Int((Double(groups)).squareRoot().rounded(.up))
        let perSlice = (groups + slices - 1) / slices * subtree
        sortStably(UnsafeMutableBufferPointer(rebasing: ord[lo..<hi]), by: xs)
        var s = lo
        while s < hi {
            let e = min(s + perSlice, hi)
            sortStably(UnsafeMutableBufferPointer(rebasing: ord[s..<e]), by: ys)
            var g = s
            while g < e {
                let ge = min(g + subtree, e)
                pack(ord, g, ge, height: height - 1, subtree: subtree / nodeCapacity, xs: xs, ys: ys)
                g = ge
            }
            s = e
        }
    }

    /// Sorts entry numbers by their coordinate, keeping the current order of equal ones
    /// (what a stable sort by `key[entry]` gives): one sort of 64-bit integers, the
    /// coordinate's order-preserving bits above the current position, instead of a
    /// comparison closure that reads two keys per comparison.
    /// - Complexity: O(n log n) integer comparisons.
    private static func sortStably(_ ord: UnsafeMutableBufferPointer<Int32>, by key: UnsafeBufferPointer<Float>) {
        var keyed = [UInt64](unsafeUninitializedCapacity: ord.count) { buf, c in
            for k in 0..<ord.count {
                var x = key[Int(ord[k])]
                if x == 0 { x = 0 }  // -0 and +0 compare equal
                let b = x.bitPattern
                // Order-preserving: flip every bit of negatives, the sign bit of the others.
                let ordered = b & 0x8000_0000 != 0 ? ~b : b | 0x8000_0000
                buf[k] = UInt64(ordered) << 32 | UInt64(k)
            }
            c = ord.count
        }
        keyed.sort()
        let old = Array(ord)
        for k in 0..<ord.count { ord[k] = old[Int(keyed[k] & 0xFFFF_FFFF)] }
    }

    /// Lane mask (bit j: child j's box meets the window) of a node, computed
    /// without branches over the structure-of-arrays block (the loop
    /// vectorizes into packed comparisons).
    @inline(__always)
    static func mask(_ block: UnsafePointer<Float>, _ q: QueryWindow) -> UInt32 {
        var bits: UInt32 = 0
        let qw = q.west, qs = q.south, qe = q.east, qn = q.north
        if q.crosses {
            for j in 0..<16 {
                let lat = UInt32(block[16 + j] <= qn ? 1 : 0) & UInt32(block[48 + j] >= qs ? 1 : 0)
                let lon = UInt32(block[32 + j] >= qw ? 1 : 0) | UInt32(block[j] <= qe ? 1 : 0)
                bits |= (lat & lon) << UInt32(j)
            }
        } else {
            for j in 0..<16 {
                let hit = UInt32(block[16 + j] <= qn ? 1 : 0) & UInt32(block[48 + j] >= qs ? 1 : 0)
                    & UInt32(block[32 + j] >= qw ? 1 : 0) & UInt32(block[j] <= qe ? 1 : 0)
                bits |= hit << UInt32(j)
            }
        }
        return bits
    }

    /// Visits the leaf lanes (`16 * leaf + lane`, see `value(at:)`) of all
    /// entries whose box intersects the window, in depth-first order, with an
    /// explicit stack and no allocation. Stops early (returning false) when
    /// `visit` returns false.
    @inline(__always)
    func search(_ q: QueryWindow, _ visit: (Int) -> Bool) -> Bool {
        search(q, maxOrder: nil, visit)
    }

    /// As `search(_:_:)`, skipping subtrees whose least order key (see
    /// `setMinOrderKeys`) exceeds `maxOrder()`, asked at each upper node.
    @inline(__always)
    func search(_ q: QueryWindow, maxOrder: (() -> UInt32)?, _ visit: (Int) -> Bool) -> Bool {
        let h = height
        if h == 0 || !q.intersects(rootBox) { return true }
        let m = PackedRTree.nodeCapacity
        let stride = PackedRTree.stride
        let words = storage.words
        return withExtendedLifetime(storage) {
                nodeStarts.withUnsafeBufferPointer { ls in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: 128) { stack -> Bool in
                        let base = UnsafePointer(words)
                        // Depth first, children in decreasing lane order: the last child
                        // hit is entered at once, the others wait on the stack (each
                        // word: node | level << 40). Index arithmetic cannot overflow
                        // (nodes < 2^31), so it wraps unchecked.
                        var node = ls[h - 1], level = h
                        var sp = 0
                        while true {
                            let block = base + stride &* node
                            var bits = PackedRTree.mask(block, q)
                            if level == 1 {
                                while bits != 0 {
                                    let j = bits.trailingZeroBitCount
                                    bits &= bits &- 1
                                    if !visit(node &* m &+ j) { return false }
                                }
                            } else {
                                if let maxOrder {
                                    let limit = maxOrder()
                                    let keys = UnsafeRawPointer(block + 64).assumingMemoryBound(to: UInt32.self)
                                    var within: UInt32 = 0
                                    for j in 0..<16 { within |= UInt32(keys[j] <= limit ? 1 : 0) << UInt32(j) }
                                    bits &= within
                                }
                                if bits != 0 {
                                    let first = ls[level &- 2] &+ (node &- ls[level &- 1]) &* m
                                    let last = 31 &- bits.leadingZeroBitCount
                                    bits &= ~(1 << UInt32(last))
                                    let tag = (level &- 1) << 40
                                    while bits != 0 {
                                        let j = bits.trailingZeroBitCount
                                        bits &= bits &- 1
                                        stack[sp] = (first &+ j) | tag
                                        sp &+= 1
                                    }
                                    node = first &+ last
                                    level &-= 1
                                    continue
                                }
                            }
                            if sp == 0 { break }
                            sp &-= 1
                            let word = stack[sp]
                            node = word & 0xFF_FFFF_FFFF
                            level = word >> 40
                        }
                        return true
                    }
                }
        }
    }
}

#if GEOFENCE_INTERNAL_CHECKS
extension PackedRTree {
    /// Structure: each node's lanes are its children's boxes (the union of
    /// their own lanes), unused lanes empty, padding values only on empty lanes.
    func checkInvariants() {
        let m = PackedRTree.nodeCapacity
        guard count > 0 else { precondition(storage.count == 0); return }
        precondition(storage.count == PackedRTree.stride * nodeStarts.last!)
        precondition(Int(bitPattern: storage.words) & 63 == 0, "blocks aligned to cache lines")
        precondition(nodeStarts.last! - nodeStarts[nodeStarts.count - 2] == 1, "one root")
        precondition((0..<leafLanes).filter { value($0 / m, $0 % m) != EntryValue.none }.count == count)
        for k in 0..<leafLanes {
            precondition((value(k / m, k % m) == EntryValue.none) == childBox(k / m, k % m).isEmpty, "padding iff empty lane")
        }
        func union(_ node: Int) -> BoundingBox {
            (0..<m).reduce(BoundingBox.empty) { $0.union(childBox(node, $1)) }
        }
        for level in 2..<(height + 1) {
            for node in levelStart(level)..<nodeStarts[level] {
                for lane in 0..<m {
                    let c = child(node, level: level, lane: lane)
                    if c < nodeStarts[level - 1] {
                        precondition(childBox(node, lane) == union(c), "lane box is the union of the child's lanes")
                    } else {
                        precondition(childBox(node, lane).isEmpty, "lane past the level is empty")
                    }
                }
            }
        }
        precondition(rootBox == union(root))
    }
}
#endif

/// A 64-byte-aligned, zero-filled buffer of node block words, shared by
/// copies of a tree and copied before a write to a shared one
/// (`PackedRTree.makeUnique`); never written once the tree is in use, hence
/// safe to read from many threads.
final class BlockStorage: @unchecked Sendable {
    let words: UnsafeMutablePointer<Float>
    let count: Int

    init(count: Int, zeroed: Bool = true) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, count) * 4, alignment: 64)
        words = zeroed ? raw.initializeMemory(as: Float.self, repeating: 0, count: Swift.max(1, count))
            : raw.bindMemory(to: Float.self, capacity: Swift.max(1, count))
    }

    func copy() -> BlockStorage {
        let c = BlockStorage(count: count)
        c.words.update(from: words, count: count)
        return c
    }

    deinit { UnsafeMutableRawPointer(words).deallocate() }
}
