import GeofenceBase

extension FenceIndex {
    /// Builds an index and its option table from fences handed over one at a time, so a
    /// loader can stream fences straight into the compact table (docs/compiled-fences.md#memory)
    /// without an array of ``Fence`` values: each fence costs its table record from the moment
    /// it is appended. The result is the index `FenceIndex(_:)` builds over the same fences in
    /// the same order, and the ``FenceOptionTable`` of their options.
    public struct Builder {
        var index = FenceIndex()
        var options = FenceOptionTable()

        /// An empty builder with room for about `count` fences (a hint: more may be appended).
        public init(reserving count: Int = 0) {
            if count > 0 {
                index.table.reserve(count, identifierBytes: count * 8)
                options.flags.reserveCapacity(count)
            }
        }

        /// Fences appended so far.
        public var count: Int { index.table.slotCount }

        /// Appends a fence under the next slot; its properties and source are not kept.
        /// - Throws: `FenceIndexError.invalidFence` for a shape the index cannot use,
        ///   `.tooManyFences` past 2^29 − 2 fences.
        /// - Complexity: O(1) amortized for a circle, O(vertices) for a polygon.
        public mutating func append(_ fence: Fence) throws(FenceIndexError) {
            let shape = try FenceTable.check(fence)
            guard index.table.slotCount < EntryValue.maxPayload, index.table.ids.canAppend(bytes: fence.id.utf8.count) else {
                throw .tooManyFences
            }
            _ = index.table.append(id: fence.id, shape)
            options.append(fence.options)
        }

        /// The finished index (identifiers ranked, tree packed) and the option table.
        /// - Throws: `FenceIndexError.duplicateIdentifier` naming the identifier of the first
        ///   slot (in slot order) whose identifier an earlier slot has.
        /// - Complexity: O(n log n).
        public consuming func finish() throws(FenceIndexError) -> (index: FenceIndex, options: FenceOptionTable) {
            var index = self.index
            if let dup = index.firstDuplicate() { throw .duplicateIdentifier(index.table.ids[dup]) }
            index.rebuild()
            return (index, options)
        }
    }
}
