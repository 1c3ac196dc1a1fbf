/// Nearest-N by distance to the fence (0 inside): best-first search
/// (Hjaltason & Samet) over one priority queue holding tree nodes and fences.
///
/// Keys: a node's key is a lower bound in metres of the geodesic distance
/// from the point to its box (`SphericalBounds.angleLowerBound`, scaled by the
/// sphere bound); a fence first enters with a lower bound (circle: the
/// haversine distance to the centre, scaled down, minus the radius; polygon:
/// its box's bound) and, when it reaches the front, is resolved to its exact
/// distance and re-queued. A resolved fence at the front is therefore nearer
/// than anything still queued: it is an answer. At equal keys, nodes and
/// unresolved fences come first and resolved fences go by identifier
/// (bytewise UTF-8), so ties are deterministic.
extension FenceIndex {
    /// Replaces `results` with the `n` live fences nearest to the point by
    /// distance to the fence (`distance(to:lat:lon:)`: circle `max(0, d - r)`,
    /// polygon 0 when covered else its boundary distance), nearest first,
    /// ties by identifier bytewise; only fences within `maxDistance` metres.
    /// Distances are exact metres.
    /// - Complexity: O((n + m) log(n + m)) expected, where m is the number of
    ///   nodes and fences whose lower bound is below the n-th distance;
    ///   about n + a few exact geodesics.
    public func nearest(_ n: Int, lat: Double, lon: Double, maxDistance: Double = .infinity,
                        scratch: inout NearestScratch, into results: inout [Neighbor]) {
        results.removeAll(keepingCapacity: true)
        guard n > 0 else { return }
        precondition(maxDistance >= 0, "maxDistance must be >= 0")
        var p = QueryPoint(lat: lat, lon: lon)
        scratch.heap.removeAll(keepingCapacity: true)
        let ids = table.ids

        @inline(__always) func less(_ a: NearestQueueItem, _ b: NearestQueueItem) -> Bool {
            if a.key != b.key { return a.key < b.key }
            let ka = a.kind, kb = b.kind
            if ka != kb { return ka < kb }
            if ka == NearestQueueItem.resolved { return ids[Int(a.ref)].utf8.lexicographicallyPrecedes(ids[Int(b.ref)].utf8) }
            return false
        }
        @inline(__always) func push(_ item: NearestQueueItem) {
            scratch.heap.append(item)
            var i = scratch.heap.count - 1
            while i > 0 {
                let parent = (i - 1) >> 1
                if !less(item, scratch.heap[parent]) { break }
                scratch.heap[i] = scratch.heap[parent]
                i = parent
            }
            scratch.heap[i] = item
        }
        @inline(__always) func pop() -> NearestQueueItem {
            let top = scratch.heap[0]
            let last = scratch.heap.removeLast()
            let count = scratch.heap.count
            if count > 0 {
                var i = 0
                while true {
                    let l = 2 * i + 1
                    if l >= count { break }
                    var c = l
                    if l + 1 < count && less(scratch.heap[l + 1], scratch.heap[l]) { c = l + 1 }
                    if !less(scratch.heap[c], last) { break }
                    scratch.heap[i] = scratch.heap[c]
                    i = c
                }
                scratch.heap[i] = last
            }
            return top
        }
        @inline(__always) func boxKey(_ b: BoundingBox) -> Double {
            SphericalBounds.geodesicLowerBound(angle: SphericalBounds.angleLowerBound(
                lat: p.lat, lon: p.lon, cosLat: p.cosLat,
                west: Double(b.west), south: Double(b.south), east: Double(b.east), north: Double(b.north)))
        }
        /// Queues the fence of an entry with its lower bound.
        @inline(__always) func pushEntry(_ v: UInt32, _ box: BoundingBox) {
            var slot = Int(v >> EntryValue.payloadShift)
            if v & EntryValue.secondary != 0 { slot = Int(table.splits[slot].slot) }
            guard table.isLive(slot) else { return }
            let key: Double
            if v & EntryValue.polygon == 0 {
                let c = table.circles[slot]
                let lb = c.distanceBounds(p).lower
                key = max(0, lb - c.radius)
            } else {
                key = boxKey(box)
            }
            guard key <= maxDistance else { return }
            push(NearestQueueItem(key: key, ref: UInt32(slot),
                                  tag: NearestQueueItem.unresolved | (v & EntryValue.twin != 0 ? NearestQueueItem.twin : 0)))
        }
        @inline(__always) func emitted(_ slot: UInt32) -> Bool {
            results.contains { $0.slot == Int32(bitPattern: slot) }
        }
        @inline(__always) func emit(_ item: NearestQueueItem) {
            if item.tag & NearestQueueItem.twin != 0 && emitted(item.ref) { return }
            results.append(Neighbor(slot: Int32(bitPattern: item.ref), distance: item.key))
        }

        if main.count > 0 {
            push(NearestQueueItem(key: 0, ref: UInt32(main.levelStarts[main.rootLevel]),
                                  tag: NearestQueueItem.node | UInt32(main.rootLevel) << NearestQueueItem.levelShift))
        }
        if delta.count > 0 {
            push(NearestQueueItem(key: 0, ref: UInt32(delta.levelStarts[delta.rootLevel]),
                                  tag: NearestQueueItem.node | NearestQueueItem.secondTree | UInt32(delta.rootLevel) << NearestQueueItem.levelShift))
        }
        for e in tail { pushEntry(e.value, e.box) }

        let m = PackedRTree.nodeCapacity
        while !scratch.heap.isEmpty && results.count < n {
            let item = pop()
            switch item.kind {
            case NearestQueueItem.node:
                let tree = item.tag & NearestQueueItem.secondTree != 0 ? delta : main
                let level = Int(item.tag >> NearestQueueItem.levelShift)
                let node = Int(item.ref)
                let first = tree.levelStarts[level - 1] + (node - tree.levelStarts[level]) * m
                if level == 1 {
                    for c in first..<(first + m) {
                        let v = tree.values[c]
                        if v == EntryValue.none { continue }
                        pushEntry(v, tree.box(at: c))
                    }
                } else {
                    let tag = NearestQueueItem.node | (item.tag & NearestQueueItem.secondTree) | UInt32(level - 1) << NearestQueueItem.levelShift
                    for c in first..<(first + m) {
                        let b = tree.box(at: c)
                        if b.isEmpty { continue }
                        let key = boxKey(b)
                        if key <= maxDistance { push(NearestQueueItem(key: key, ref: UInt32(c), tag: tag)) }
                    }
                }
            case NearestQueueItem.unresolved:
                if item.tag & NearestQueueItem.twin != 0 && emitted(item.ref) { continue }
                let d = fenceDistance(Int(item.ref), &p)
                guard d <= maxDistance else { continue }
                let resolved = NearestQueueItem(key: d, ref: item.ref,
                                                tag: NearestQueueItem.resolved | (item.tag & NearestQueueItem.twin))
                if scratch.heap.isEmpty || less(resolved, scratch.heap[0]) { emit(resolved) } else { push(resolved) }
            default:
                emit(item)
            }
        }
    }

    /// The `n` nearest live fences (see `nearest(_:lat:lon:maxDistance:scratch:into:)`).
    /// - Complexity: as the scratch variant, plus the result allocation.
    public func nearest(_ n: Int, lat: Double, lon: Double, maxDistance: Double = .infinity) -> [Neighbor] {
        var scratch = NearestScratch()
        var r: [Neighbor] = []
        nearest(n, lat: lat, lon: lon, maxDistance: maxDistance, scratch: &scratch, into: &r)
        return r
    }
}
