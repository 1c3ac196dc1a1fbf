import Foundation

/// Nearest-N by distance to the fence (0 inside): best-first search
/// (Hjaltason & Samet) over one priority queue holding tree nodes and fences.
///
/// Keys: a node's key is a lower bound in metres of the geodesic distance
/// from the point to its box (the sphere bound, `SphericalBounds`, no libm
/// calls, 0.75% slack). A fence first enters with a lower bound (circle: the
/// same bound to its centre, minus the radius; polygon: its box's bound).
/// Beyond 100 km, a node or fence reaching the front has its key refined once
/// by `EllipsoidBounds` (following the ellipsoid's radii of curvature, ~1e-4
/// slack) and is requeued if no longer first, so that a distant city of
/// fences is not expanded and resolved wholesale. An unresolved fence at the
/// front is resolved to its exact distance (one Karney geodesic for a circle)
/// and re-queued unless it is already the minimum. A resolved fence at the front is nearer than
/// anything still queued: it is an answer. At equal keys, nodes and
/// unresolved fences come first and resolved fences go by identifier
/// (bytewise UTF-8), so ties are deterministic. A fence stored under two
/// boxes is answered once.
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
        let cosLat = p.cosLat()
        let muTable = EllipsoidBounds.muTable
        let mu = EllipsoidBounds.mu(p.lat, muTable), cosMu = cos(mu)
        scratch.heap.removeAll(keepingCapacity: true)
        let ids = table.ids, slotOf = table.slotOf

        @inline(__always) func less(_ a: NearestQueueItem, _ b: NearestQueueItem) -> Bool {
            if a.key != b.key { return a.key < b.key }
            let ka = a.kind, kb = b.kind
            if ka != kb { return ka < kb }
            if ka == NearestQueueItem.resolved {
                return ids[Int(slotOf[Int(a.ref)])].utf8.lexicographicallyPrecedes(ids[Int(slotOf[Int(b.ref)])].utf8)
            }
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
            SphericalBounds.geodesicLowerBound(angle: SphericalBounds.fastAngleLowerBound(
                lat: p.lat, lon: p.lon, cosLat: cosLat,
                west: Double(b.west), south: Double(b.south), east: Double(b.east), north: Double(b.north)))
        }
        /// The ellipsoidal key of a queued node or unresolved circle (at least its key).
        @inline(__always) func refinedKey(_ item: NearestQueueItem) -> Double {
            if item.kind == NearestQueueItem.node {
                let second = item.tag & NearestQueueItem.secondTree != 0
                let level = Int(item.tag >> NearestQueueItem.levelShift)
                let b = second ? delta.nodeBox(Int(item.ref), level: level) : main.nodeBox(Int(item.ref), level: level)
                return max(item.key, EllipsoidBounds.lowerBound(
                    lat: p.lat, lon: p.lon, cosLat: cosLat, mu: mu, cosMu: cosMu,
                    west: Double(b.west), south: Double(b.south), east: Double(b.east), north: Double(b.north), table: muTable))
            }
            let c = table.circles[Int(item.ref)]
            if c.radius < 0 { return item.key }  // polygons keep their box key
            return max(item.key, EllipsoidBounds.lowerBound(lat1: p.lat, lon1: p.lon, cos1: cosLat, mu1: mu, cosMu1: cosMu,
                                                            lat2: c.lat, lon2: c.lon, cos2: c.cosLat, table: muTable) - c.radius)
        }
        /// Queues the fence of an entry with its lower bound.
        @inline(__always) func pushEntry(_ v: UInt32, _ node: Int, _ lane: Int, _ second: Bool) {
            var r = Int(v >> EntryValue.payloadShift)
            if v & EntryValue.secondary != 0 { r = Int(table.splits[r].record) }
            guard table.isLive(record: r) else { return }
            let key: Double
            if v & EntryValue.polygon == 0 {
                let c = table.circles[r]
                let lb = SphericalBounds.geodesicLowerBound(angle: SphericalBounds.fastAngleLowerBound(
                    lat1: c.lat, lon1: c.lon, cos1: c.cosLat, lat2: p.lat, lon2: p.lon, cos2: cosLat))
                key = max(0, lb - c.radius)
            } else {
                key = boxKey(node < 0 ? tail[lane].box : second ? delta.childBox(node, lane) : main.childBox(node, lane))
            }
            guard key <= maxDistance else { return }
            push(NearestQueueItem(key: key, ref: UInt32(r),
                                  tag: NearestQueueItem.unresolved | (v & EntryValue.twin != 0 ? NearestQueueItem.twin : 0)))
        }
        @inline(__always) func emitted(_ record: UInt32) -> Bool {
            let slot = slotOf[Int(record)]
            return results.contains { $0.slot == slot }
        }
        @inline(__always) func emit(_ item: NearestQueueItem) {
            if item.tag & NearestQueueItem.twin != 0 && emitted(item.ref) { return }
            results.append(Neighbor(slot: slotOf[Int(item.ref)], distance: item.key))
        }

        if main.count > 0 {
            push(NearestQueueItem(key: 0, ref: UInt32(main.root),
                                  tag: NearestQueueItem.node | UInt32(main.height) << NearestQueueItem.levelShift))
        }
        if delta.count > 0 {
            push(NearestQueueItem(key: 0, ref: UInt32(delta.root),
                                  tag: NearestQueueItem.node | NearestQueueItem.secondTree | UInt32(delta.height) << NearestQueueItem.levelShift))
        }
        for (k, e) in tail.enumerated() { pushEntry(e.value, -1, k, false) }

        let m = PackedRTree.nodeCapacity
        while !scratch.heap.isEmpty && results.count < n {
            let item = pop()
            // Far away the sphere key is loose (0.75%): refine it once with the
            // ellipsoidal bound, and requeue if that lets something else go first.
            if item.kind != NearestQueueItem.resolved && item.key >= EllipsoidBounds.from && item.tag & NearestQueueItem.refined == 0 {
                let key = refinedKey(item)
                if key > maxDistance { continue }
                if !scratch.heap.isEmpty && key > scratch.heap[0].key {
                    push(NearestQueueItem(key: key, ref: item.ref, tag: item.tag | NearestQueueItem.refined))
                    continue
                }
            }
            switch item.kind {
            case NearestQueueItem.node:
                let second = item.tag & NearestQueueItem.secondTree != 0
                let level = Int(item.tag >> NearestQueueItem.levelShift)
                let node = Int(item.ref)
                if level == 1 {
                    for lane in 0..<m {
                        let v = second ? delta.value(node, lane) : main.value(node, lane)
                        if v == EntryValue.none { continue }
                        pushEntry(v, node, lane, second)
                    }
                } else {
                    let tag = NearestQueueItem.node | (item.tag & NearestQueueItem.secondTree) | UInt32(level - 1) << NearestQueueItem.levelShift
                    let first = second ? delta.child(node, level: level, lane: 0) : main.child(node, level: level, lane: 0)
                    for lane in 0..<m {
                        let b = second ? delta.childBox(node, lane) : main.childBox(node, lane)
                        if b.isEmpty { continue }
                        let key = boxKey(b)
                        if key <= maxDistance { push(NearestQueueItem(key: key, ref: UInt32(first + lane), tag: tag)) }
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
