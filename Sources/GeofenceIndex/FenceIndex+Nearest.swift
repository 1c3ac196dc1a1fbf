import GeofenceBase
import Geodesy
import Foundation

/// Nearest-N by distance to the fence (0 inside): best-first search
/// (Hjaltason & Samet) over one priority queue holding tree nodes and fences.
///
/// Order: answers go by (distance, identifier bytewise UTF-8). Identifiers
/// are compared through integer order keys (`FenceTable.orderKeys`, given at
/// each full build, odd keys in between for fences added since), so queue
/// items carry a pair (key, order key): a lower bound of the pair of every
/// fence they stand for. A node's order key is the least below it (stored in
/// the upper nodes' spare lane words; 0 in the second tree), so among nodes
/// at distance 0 — points inside many fences — the ones holding the first
/// identifiers go first. At equal pairs unresolved items go before resolved
/// ones; equal odd order keys go by identifier.
///
/// Keys: a node's key is a lower bound in metres of the geodesic distance
/// from the point to its box (the sphere bound, `SphericalBounds`, no libm
/// calls, 0.75% slack). A fence first enters with a lower bound (circle: the
/// same bound to its centre, minus the radius; polygon: its box's bound); a
/// circle whose upper bound puts the point inside enters resolved at 0. A
/// circle reaching the front unresolved, or a node beyond 100 km, has its key
/// refined once by `EllipsoidBounds` (~1e-5 slack nearby) and is requeued if
/// no longer first, so that fences are resolved with a geodesic only when
/// they are among the answers or too close to call. An unresolved fence at
/// the front is resolved to its exact distance (0 when the bounds put the
/// point inside a circle, else one Karney geodesic for a circle) and
/// requeued unless it is already the minimum. A resolved fence at the front
/// is nearer than anything still queued: it is an answer.
///
/// Pruning: the n least upper bounds (distance, order key) of distinct fences
/// seen bound the n-th answer; nothing whose lower bound exceeds it is
/// queued. A point inside at least n fences (dense clusters) is answered by a
/// containment search first (`nearestInside`): every answer is then at
/// distance 0, and the n first identifiers among the containing fences are
/// found with far less bookkeeping than the queue's. A fence stored under two
/// boxes is answered once.
extension FenceIndex {
    /// Replaces `results` with the `n` live fences nearest to the point by
    /// distance to the fence (`distance(to:lat:lon:)`: circle `max(0, d - r)`,
    /// polygon 0 when covered else its boundary distance), nearest first,
    /// ties by identifier bytewise; only fences within `maxDistance` metres.
    /// Distances are exact metres.
    /// - Complexity: O((n + m) log(n + m)) expected, where m is the number of
    ///   nodes and fences whose lower bound is below the n-th (distance,
    ///   identifier); at most n exact geodesics plus the few too close to call.
    /// - Precondition: when `n` > 0: `maxDistance` ≥ 0, `lat` in [-90, 90] and `lon` finite
    ///   (normalized to [-180, 180]).
    public func nearest(_ n: Int, lat: Double, lon: Double, maxDistance: Double = .infinity,
                        scratch: inout NearestScratch, into results: inout [Neighbor]) {
        if !results.isEmpty { results.removeAll(keepingCapacity: true) }
        guard n > 0 else { return }
        precondition(maxDistance >= 0, "maxDistance must be >= 0")
        var p = QueryPoint(lat: lat, lon: lon)
        // A point inside at least n fences (a dense cluster): every answer is at
        // distance 0, the n first identifiers among the fences containing the point.
        if nearestInside(n, &p, scratch: &scratch, into: &results) { return }
        let cosLat = p.cosLat()
        // Plain copies for the nested functions (reading the captured `var p` there costs an exclusivity check).
        let plat = p.lat, plon = p.lon
        let muTable = EllipsoidBounds.muTable
        let mu = EllipsoidBounds.mu(plat, muTable), cosMu = cos(mu)
        if !scratch.heap.isEmpty { scratch.heap.removeAll(keepingCapacity: true) }
        if !scratch.best.isEmpty { scratch.best.removeAll(keepingCapacity: true) }
        let ids = table.ids, slotOf = table.slotOf, orderKeys = table.orderKeys

        // Pruning: the n least upper bounds (distance, order key) of distinct
        // eligible fences seen so far; the n-th answer is at most the largest,
        // so nothing whose lower bound exceeds it need be queued.
        // (Kept in `scratch`: a captured local `var` would cost an exclusivity check per access.)
        scratch.bound = NearestBound(key: .infinity, order: .max, record: 0)
        @inline(__always) func beyond(_ key: Double, _ order: UInt32) -> Bool {
            key > scratch.bound.key || (key == scratch.bound.key && order > scratch.bound.order)
        }
        @inline(__always) func offer(_ key: Double, _ order: UInt32) {
            @inline(__always) func greater(_ a: NearestBound, _ b: NearestBound) -> Bool {
                a.key > b.key || (a.key == b.key && a.order > b.order)
            }
            let x = NearestBound(key: key, order: order, record: 0)
            guard NearestBound.keep(x, in: &scratch.best, atMost: n, greater: greater) else { return }
            if scratch.best.count == n { scratch.bound = scratch.best[0] }
        }

        // Items go by (key, order key, unresolved before resolved): a node's or
        // unresolved fence's pair is at most that of every fence it stands for,
        // a resolved fence's is exact; equal odd order keys (fences added since
        // the last build) go by identifier.
        @inline(__always) func less(_ a: NearestQueueItem, _ b: NearestQueueItem) -> Bool {
            if a.key != b.key { return a.key < b.key }
            if a.order != b.order { return a.order < b.order }
            let ra = a.kind == NearestQueueItem.resolved, rb = b.kind == NearestQueueItem.resolved
            if ra != rb { return rb }
            if ra && a.ref != b.ref {
                return ids.precedes(Int(slotOf[Int(a.ref)]), Int(slotOf[Int(b.ref)]))
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
                lat: plat, lon: plon, cosLat: cosLat,
                west: Double(b.west), south: Double(b.south), east: Double(b.east), north: Double(b.north)))
        }
        /// The ellipsoidal key of a queued node or unresolved circle (at least its key).
        @inline(__always) func refinedKey(_ item: NearestQueueItem) -> Double {
            if item.kind == NearestQueueItem.node {
                let second = item.tag & NearestQueueItem.secondTree != 0
                let level = Int(item.tag >> NearestQueueItem.levelShift)
                let b = second ? delta.nodeBox(Int(item.ref), level: level) : main.nodeBox(Int(item.ref), level: level)
                return max(item.key, EllipsoidBounds.lowerBound(
                    lat: plat, lon: plon, cosLat: cosLat, mu: mu, cosMu: cosMu,
                    west: Double(b.west), south: Double(b.south), east: Double(b.east), north: Double(b.north), table: muTable))
            }
            let c = table.circles[Int(item.ref)]
            if c.radius < 0 { return item.key }  // polygons keep their box key
            return max(item.key, EllipsoidBounds.lowerBound(lat1: plat, lon1: plon, cos1: cosLat, mu1: mu, cosMu1: cosMu,
                                                            lat2: c.lat, lon2: c.lon, cos2: c.cosLat, table: muTable) - c.radius)
        }
        /// Queues the fence of an entry with its lower bound (a circle also
        /// offers its upper bound, once: from its primary entry).
        @inline(__always) func pushEntry(_ v: UInt32, _ node: Int, _ lane: Int, _ second: Bool) {
            var r = Int(v >> EntryValue.payloadShift)
            if v & EntryValue.secondary != 0 { r = Int(table.splits[r].record) }
            guard table.isLive(record: r) else { return }
            let order = orderKeys[r]
            if beyond(0, order) { return }
            let key: Double
            if v & EntryValue.polygon == 0 {
                let c = table.circles[r]
                let lb = SphericalBounds.geodesicLowerBound(angle: SphericalBounds.fastAngleLowerBound(
                    lat1: c.lat, lon1: c.lon, cos1: c.cosLat, lat2: plat, lon2: plon, cos2: cosLat))
                key = max(0, lb - c.radius)
                guard key <= maxDistance && !beyond(key, order) else { return }
                // Its upper bound can only tighten the pruning bound if its lower one is below it.
                if key < scratch.bound.key || (key == scratch.bound.key && order < scratch.bound.order) {
                    let upper = max(0, c.distanceBounds(lat: plat, lon: plon, cosLat: cosLat).upper - c.radius)
                    if upper == 0 {
                        // Certainly inside: distance exactly 0, queued resolved.
                        if v & EntryValue.secondary == 0 { offer(0, order) }
                        push(NearestQueueItem(key: 0, ref: UInt32(r),
                                              tag: NearestQueueItem.resolved | (v & EntryValue.twin != 0 ? NearestQueueItem.twin : 0),
                                              order: order))
                        return
                    }
                    if v & EntryValue.secondary == 0 && upper <= maxDistance { offer(upper, order) }
                }
            } else {
                key = boxKey(node < 0 ? tail[lane].box : second ? delta.childBox(node, lane) : main.childBox(node, lane))
                guard key <= maxDistance && !beyond(key, order) else { return }
            }
            push(NearestQueueItem(key: key, ref: UInt32(r),
                                  tag: NearestQueueItem.unresolved | (v & EntryValue.twin != 0 ? NearestQueueItem.twin : 0),
                                  order: order))
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
                                  tag: NearestQueueItem.node | UInt32(main.height) << NearestQueueItem.levelShift, order: 0))
        }
        if delta.count > 0 {
            push(NearestQueueItem(key: 0, ref: UInt32(delta.root),
                                  tag: NearestQueueItem.node | NearestQueueItem.secondTree | UInt32(delta.height) << NearestQueueItem.levelShift,
                                  order: 0))
        }
        for (k, e) in tail.enumerated() { pushEntry(e.value, -1, k, false) }

        let m = PackedRTree.nodeCapacity
        while !scratch.heap.isEmpty && results.count < n {
            let item = pop()
            // The sphere key is loose (0.75%): refine it once with the ellipsoidal
            // bound (a circle's always, a node's far away), and requeue if that
            // lets something else go first, so that a fence is resolved with a
            // geodesic only when it is among the answers or too close to call.
            if item.tag & NearestQueueItem.refined == 0
                && (item.kind == NearestQueueItem.unresolved || (item.kind == NearestQueueItem.node && item.key >= EllipsoidBounds.from)) {
                let key = refinedKey(item)
                if key > maxDistance { continue }
                if !scratch.heap.isEmpty && key > scratch.heap[0].key {
                    push(NearestQueueItem(key: key, ref: item.ref, tag: item.tag | NearestQueueItem.refined, order: item.order))
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
                        // Main tree: a live lane k holds record k; skip it early when even at distance 0 it comes too late.
                        if !second && table.isLive(record: node * m + lane) && beyond(0, orderKeys[node * m + lane]) { continue }
                        let v = second ? delta.value(node, lane) : main.value(node, lane)
                        if v == EntryValue.none { continue }
                        pushEntry(v, node, lane, second)
                    }
                } else {
                    let tag = NearestQueueItem.node | (item.tag & NearestQueueItem.secondTree) | UInt32(level - 1) << NearestQueueItem.levelShift
                    let first = second ? delta.child(node, level: level, lane: 0) : main.child(node, level: level, lane: 0)
                    for lane in 0..<m {
                        let order = second ? 0 : main.minOrderKey(node, lane)
                        if beyond(0, order) { continue }
                        let b = second ? delta.childBox(node, lane) : main.childBox(node, lane)
                        if b.isEmpty { continue }
                        let key = boxKey(b)
                        if key <= maxDistance && !beyond(key, order) {
                            push(NearestQueueItem(key: key, ref: UInt32(first + lane), tag: tag, order: order))
                        }
                    }
                }
            case NearestQueueItem.unresolved:
                if item.tag & NearestQueueItem.twin != 0 && emitted(item.ref) { continue }
                let d = fenceDistance(Int(item.ref), &p)
                guard d <= maxDistance else { continue }
                let resolved = NearestQueueItem(key: d, ref: item.ref,
                                                tag: NearestQueueItem.resolved | (item.tag & NearestQueueItem.twin), order: item.order)
                if scratch.heap.isEmpty || less(resolved, scratch.heap[0]) { emit(resolved) } else { push(resolved) }
            default:
                emit(item)
            }
        }
    }

    /// When at least `n` fences contain the point, sets `results` to the `n`
    /// first of them by identifier (bytewise UTF-8), at distance 0, and
    /// returns true; else returns false and leaves `results` empty.
    /// - Complexity: a containment search; once n fences are found, order
    ///   keys skip the subtrees and fences that come after them.
    func nearestInside(_ n: Int, _ p: inout QueryPoint, scratch: inout NearestScratch, into results: inout [Neighbor]) -> Bool {
        if !results.isEmpty { results.removeAll(keepingCapacity: true) }
        let ids = table.ids, slotOf = table.slotOf, orderKeys = table.orderKeys
        /// Identifier order of two records (order keys, then the identifiers when those are equal).
        @inline(__always) func after(_ a: NearestBound, _ b: NearestBound) -> Bool {
            if a.order != b.order { return a.order > b.order }
            return a.record != b.record
                && ids.precedes(Int(slotOf[Int(b.record)]), Int(slotOf[Int(a.record)]))
        }
        // The n-th order key found so far (through a pointer: a local `var` captured
        // by the escaping `maxOrder` closure would cost an exclusivity check per access).
        let worst = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        defer { worst.deallocate() }
        worst.pointee = .max
        if !scratch.best.isEmpty { scratch.best.removeAll(keepingCapacity: true) }
        _ = forEachCandidate(QueryWindow(p.window(metres: 0)), maxOrder: { worst.pointee }) { r in
            let order = orderKeys[r]
            if order > worst.pointee || !fenceContains(r, &p) { return true }
            let x = NearestBound(key: 0, order: order, record: UInt32(r))
            // Max-heap (by identifier order) of the n first found.
            guard NearestBound.keep(x, in: &scratch.best, atMost: n, greater: after) else { return true }
            if scratch.best.count == n { worst.pointee = scratch.best[0].order }
            return true
        }
        guard scratch.best.count == n else { return false }
        scratch.best.sort { after($1, $0) }
        for b in scratch.best { results.append(Neighbor(slot: slotOf[Int(b.record)], distance: 0)) }
        return true
    }

    /// The `n` nearest live fences (see `nearest(_:lat:lon:maxDistance:scratch:into:)`).
    /// - Complexity: as the scratch variant, plus the result allocation.
    /// - Precondition: when `n` > 0: `maxDistance` ≥ 0, `lat` in [-90, 90] and `lon` finite
    ///   (normalized to [-180, 180]).
    public func nearest(_ n: Int, lat: Double, lon: Double, maxDistance: Double = .infinity) -> [Neighbor] {
        var scratch = NearestScratch()
        var r: [Neighbor] = []
        nearest(n, lat: lat, lon: lon, maxDistance: maxDistance, scratch: &scratch, into: &r)
        return r
    }
}
