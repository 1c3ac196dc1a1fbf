/// A static, packed R-tree over `IndexEntry` boxes (flatbush / GEOS
/// TemplateSTRtree layout).
///
/// Layout: all boxes in one flat `[Float]` (4 per slot: west, south, east,
/// north), level by level from the entries (level 0) up to the root. Every
/// level is padded to a multiple of `nodeCapacity` with empty boxes, so node
/// `i` of level `L` has exactly the children
/// `levelStarts[L-1] + (i - levelStarts[L]) * M ..< ... + M` and no child
/// pointers are stored. Entry values sit in a parallel `[UInt32]`.
///
/// Packing: top-down STR ("OMT", Lee & Lee 2003): the entries are sorted by
/// box centre longitude into vertical slices, each slice by latitude, and cut
/// into subtrees of exactly `M^(h-1)` entries, recursively; so every node is
/// full but the last one of each level, and nodes are square-ish at every level
/// (bottom-up STR followed by consecutive grouping makes thin upper nodes).
///
/// Memory: 20 bytes per entry (16 box + 4 value) plus ~16/15 bytes per entry
/// for the node levels.
struct PackedRTree: Sendable {
    /// Children per node. 16 measured best for point and nearest queries at
    /// 100k–1M circles (8 and 32 within ~10%, 32 slower for nearest).
    static let nodeCapacity = 16
    /// Deepest tree the fixed traversal stack supports (16^8 entries).
    static let maxLevels = 8

    private(set) var boxes: [Float] = []
    private(set) var values: [UInt32] = []
    /// Start slot of each level, then the slot count.
    private(set) var levelStarts: [Int] = [0]
    /// Real (non-padding) entries.
    private(set) var count: Int = 0

    init() {}

    init(entries: [IndexEntry]) {
        let m = PackedRTree.nodeCapacity
        let n = entries.count
        precondition(n < Int(Int32.max) / 2, "too many entries")
        count = n
        guard n > 0 else { return }
        var height = 1, capacity = m
        while capacity < n { capacity *= m; height += 1 }
        precondition(height < PackedRTree.maxLevels, "tree too deep")

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

        let level0 = (n + m - 1) / m * m
        var total = level0, levelCount = level0
        while levelCount > 1 {
            var parents = levelCount / m
            if parents > 1 { parents = (parents + m - 1) / m * m }
            total += parents
            levelCount = parents
        }
        boxes.reserveCapacity(4 * total)
        values.reserveCapacity(level0)
        for k in 0..<n {
            let e = entries[Int(order[k])]
            boxes.append(e.box.west); boxes.append(e.box.south); boxes.append(e.box.east); boxes.append(e.box.north)
            values.append(e.value)
        }
        for _ in n..<level0 {
            appendBox(.empty)
            values.append(EntryValue.none)
        }
        levelStarts = [0, level0]
        var start = 0
        levelCount = level0
        while levelCount > 1 {
            let parents = levelCount / m
            for p in 0..<parents {
                var u = BoundingBox.empty
                for c in (start + p * m)..<(start + p * m + m) { u = u.union(box(at: c)) }
                appendBox(u)
            }
            var padded = parents
            if parents > 1 {
                padded = (parents + m - 1) / m * m
                for _ in parents..<padded { appendBox(.empty) }
            }
            start += levelCount
            levelCount = padded
            levelStarts.append(start + levelCount)
        }
        #if GEOFENCE_INTERNAL_CHECKS
        checkInvariants()
        #endif
    }

    private mutating func appendBox(_ b: BoundingBox) {
        boxes.append(b.west); boxes.append(b.south); boxes.append(b.east); boxes.append(b.north)
    }

    @inline(__always)
    func box(at slot: Int) -> BoundingBox {
        BoundingBox(west: boxes[4 * slot], south: boxes[4 * slot + 1], east: boxes[4 * slot + 2], north: boxes[4 * slot + 3])
    }

    /// Index of the root level (>= 1), or -1 when empty.
    var rootLevel: Int { count == 0 ? -1 : levelStarts.count - 2 }

    /// Bytes held by the tree arrays.
    var memoryBytes: Int { boxes.capacity * 4 + values.capacity * 4 + levelStarts.capacity * 8 }

    /// The real entries, in tree order.
    var entries: [IndexEntry] {
        var out: [IndexEntry] = []
        out.reserveCapacity(count)
        if count == 0 { return out }
        for s in 0..<levelStarts[1] where values[s] != EntryValue.none {
            out.append(IndexEntry(box: box(at: s), value: values[s]))
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
        var whole = UnsafeMutableBufferPointer(rebasing: ord[lo..<hi])
        whole.sort { xs[Int($0)] < xs[Int($1)] }
        var s = lo
        while s < hi {
            let e = min(s + perSlice, hi)
            var slice = UnsafeMutableBufferPointer(rebasing: ord[s..<e])
            slice.sort { ys[Int($0)] < ys[Int($1)] }
            var g = s
            while g < e {
                let ge = min(g + subtree, e)
                pack(ord, g, ge, height: height - 1, subtree: subtree / nodeCapacity, xs: xs, ys: ys)
                g = ge
            }
            s = e
        }
    }

    /// Visits the values of all entries whose box intersects the window, in
    /// depth-first order, with an explicit stack and no allocation. Stops
    /// early (returning false) when `visit` returns false.
    @inline(__always)
    func search(_ q: QueryWindow, _ visit: (UInt32) -> Bool) -> Bool {
        let root = rootLevel
        if root < 0 { return true }
        let m = PackedRTree.nodeCapacity
        return boxes.withUnsafeBufferPointer { bp in
            values.withUnsafeBufferPointer { vp in
                levelStarts.withUnsafeBufferPointer { ls in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: 128) { stack -> Bool in
                        // Each stack word: slot | level << 40.
                        stack[0] = ls[root] | root << 40
                        var sp = 1
                        while sp > 0 {
                            sp -= 1
                            let word = stack[sp]
                            let node = word & 0xFF_FFFF_FFFF, level = word >> 40
                            let first = ls[level - 1] + (node - ls[level]) * m
                            if level == 1 {
                                for c in first..<(first + m) {
                                    let b = 4 * c
                                    if q.intersects(west: bp[b], south: bp[b + 1], east: bp[b + 2], north: bp[b + 3]) {
                                        if !visit(vp[c]) { return false }
                                    }
                                }
                            } else {
                                let tag = (level - 1) << 40
                                for c in first..<(first + m) {
                                    let b = 4 * c
                                    if q.intersects(west: bp[b], south: bp[b + 1], east: bp[b + 2], north: bp[b + 3]) {
                                        stack[sp] = c | tag
                                        sp += 1
                                    }
                                }
                            }
                        }
                        return true
                    }
                }
            }
        }
    }
}

#if GEOFENCE_INTERNAL_CHECKS
extension PackedRTree {
    /// Structure: levels padded to multiples of the capacity, every node box
    /// the union of its children, padding empty, one root.
    func checkInvariants() {
        let m = PackedRTree.nodeCapacity
        guard count > 0 else { precondition(boxes.isEmpty && values.isEmpty); return }
        precondition(levelStarts.count >= 3 && levelStarts.last! * 4 == boxes.count)
        precondition(values.count == levelStarts[1])
        precondition(levelStarts[levelStarts.count - 1] - levelStarts[levelStarts.count - 2] == 1, "one root")
        precondition(values.filter { $0 != EntryValue.none }.count == count)
        for s in 0..<levelStarts[1] {
            precondition((values[s] == EntryValue.none) == box(at: s).isEmpty, "padding iff empty box")
        }
        for level in 1..<(levelStarts.count - 1) {
            let lo = levelStarts[level], hi = levelStarts[level + 1]
            precondition((levelStarts[level] - levelStarts[level - 1]) == (hi - lo) * m || (hi - lo) == 1
                         || (levelStarts[level] - levelStarts[level - 1]) <= (hi - lo) * m)
            for node in lo..<hi {
                let first = levelStarts[level - 1] + (node - lo) * m
                var u = BoundingBox.empty
                if first < levelStarts[level] {
                    for c in first..<(first + m) { u = u.union(box(at: c)) }
                }
                precondition(u == box(at: node) || (u.isEmpty && box(at: node).isEmpty), "node box is the union of its children")
            }
        }
    }
}
#endif
