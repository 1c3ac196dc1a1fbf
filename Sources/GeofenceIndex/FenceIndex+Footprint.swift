import GeofenceBase
import Geodesy

extension FenceIndex {
    /// Bytes held, split as the benchmark reports them.
    public struct Footprint: Hashable, Sendable {
        /// R-trees, change buffers, live bitset, split records: the index proper.
        public var indexBytes: Int
        /// Identifiers, identifier map, compiled circles and polygons.
        public var tableBytes: Int
    }

    /// Bytes held by the index and by the fence table (array capacities; string
    /// and dictionary overheads estimated).
    /// - Complexity: O(n) (identifier lengths are summed).
    public var footprint: Footprint {
        let t = table.memoryBytes
        let index = main.memoryBytes + delta.memoryBytes + tail.capacity * 20 + t.liveBits + t.splits
        return Footprint(indexBytes: index, tableBytes: t.table)
    }
}
