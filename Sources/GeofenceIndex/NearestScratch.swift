import GeofenceBase
import Geodesy

/// Reusable working memory for `FenceIndex.nearest`: the best-first priority
/// queue. Keep one per thread and pass it to every query; after the first few
/// queries no query allocates.
public struct NearestScratch: Sendable {
    var heap: [NearestQueueItem] = []
    /// Max-heap of the n least (upper bound, order key) pairs of fences seen.
    var best: [NearestBound] = []
    /// The largest of `best` once it holds n pairs (else infinite).
    var bound = NearestBound(key: .infinity, order: .max, record: 0)

    /// An empty scratch; it grows to the largest query it serves and keeps that memory.
    public init() {}

    /// Preallocates room for `capacity` queued nodes and items.
    public init(capacity: Int) {
        heap.reserveCapacity(capacity)
    }
}

/// One element of the best-first queue: a tree node or a fence, keyed by a
/// lower bound of its distance (node, unresolved fence) or by the exact
/// distance (resolved fence).
struct NearestQueueItem: Sendable {
    var key: Double
    /// Node index, or fence record.
    var ref: UInt32
    /// Bits 0-1 kind, bit 2 tree (0 main, 1 second), bit 3 twin, bit 4 key refined, bits 8... node level.
    var tag: UInt32
    /// The fence's order key (`FenceTable.orderKeys`), or for a node the least
    /// order key below it (0 when unknown): ties in `key` go by it.
    var order: UInt32

    static let node: UInt32 = 0
    static let unresolved: UInt32 = 1
    static let resolved: UInt32 = 2
    static let kindMask: UInt32 = 3
    static let secondTree: UInt32 = 4
    static let twin: UInt32 = 8
    static let refined: UInt32 = 16
    static let levelShift: UInt32 = 8

    @inline(__always) var kind: UInt32 { tag & NearestQueueItem.kindMask }
}

/// An upper bound of a fence's (distance, order key) in nearest-N.
struct NearestBound: Sendable {
    var key: Double
    var order: UInt32
    /// The fence's record (used by `FenceIndex.nearestInside` only).
    var record: UInt32
}

extension NearestBound {
    /// Offers `x` to `heap`, a max-heap under `greater` holding at most `n`
    /// bounds (the n least seen): appended while there is room, else it
    /// replaces the root when it is less. Returns false when `x` was not kept.
    @inline(__always)
    static func keep(_ x: NearestBound, in heap: inout [NearestBound], atMost n: Int,
                     greater: (NearestBound, NearestBound) -> Bool) -> Bool {
        if heap.count < n {
            heap.append(x)
            var i = heap.count - 1
            while i > 0 {
                let parent = (i - 1) >> 1
                if !greater(x, heap[parent]) { break }
                heap[i] = heap[parent]
                i = parent
            }
            heap[i] = x
            return true
        }
        guard greater(heap[0], x) else { return false }
        let count = heap.count
        var i = 0
        while true {
            let l = 2 * i + 1
            if l >= count { break }
            var c = l
            if l + 1 < count && greater(heap[l + 1], heap[l]) { c = l + 1 }
            if !greater(heap[c], x) { break }
            heap[i] = heap[c]
            i = c
        }
        heap[i] = x
        return true
    }
}
