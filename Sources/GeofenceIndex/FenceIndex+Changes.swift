import GeofenceBase
import Geodesy

/// Adding, replacing and removing fences while the index is in use.
///
/// New entries go to an unsorted tail (scanned linearly by every query);
/// past `tailLimit` the tail is packed together with the second tree; when
/// the second tree exceeds `secondTreeLimit` or the tombstoned entries
/// exceed a quarter of the main tree, everything is repacked into the main
/// tree. Amortized cost per change: O(log n) plus the repacks, each change
/// costing about (second tree size / 64) + (n / secondTreeLimit) entry
/// moves, i.e. tens of microseconds at 1M fences.
extension FenceIndex {
    /// Largest second tree before a full repack.
    var secondTreeLimit: Int { min(max(main.count / 16, 1024), 16384) }

    /// Adds a fence, or replaces the live fence with the same identifier
    /// (like `CLMonitor.add`): the old slot is retired and the fence gets a
    /// new slot, which is returned.
    /// - Throws: `FenceIndexError.invalidFence`, or `.tooManyFences` past 2^29 − 2 slots
    ///   (the index is unchanged then).
    /// - Complexity: O(1) amortized plus occasional repacks (see above).
    @discardableResult
    public mutating func insert(_ fence: Fence) throws(FenceIndexError) -> Int32 {
        generation = IndexGeneration.next()
        let shape = try FenceTable.check(fence)
        guard table.slotCount < EntryValue.maxPayload, table.ids.canAppend(bytes: fence.id.utf8.count) else { throw .tooManyFences }
        table.materializeSlotMap()
        if let old = table.slotByID![Array(fence.id.utf8)] { retire(Int(old)) }
        let (slot, record) = table.append(id: fence.id, shape)
        table.entries(record: Int(record), into: &tail)
        maintain()
        return slot
    }

    /// Inserts (adds or replaces) many fences, repacking at most once.
    /// - Complexity: O(k) plus one repack when the changes outgrow the buffers.
    /// - Throws: `FenceIndexError.invalidFence` or `.tooManyFences` at the first fence
    ///   refused; the fences before it stay inserted.
    public mutating func insert(contentsOf fences: some Sequence<Fence>) throws(FenceIndexError) {
        generation = IndexGeneration.next()  // before any change: a throw may leave some fences added
        for f in fences {
            let shape = try FenceTable.check(f)
            guard table.slotCount < EntryValue.maxPayload, table.ids.canAppend(bytes: f.id.utf8.count) else { throw .tooManyFences }
            table.materializeSlotMap()
            if let old = table.slotByID![Array(f.id.utf8)] { retire(Int(old)) }
            let (_, record) = table.append(id: f.id, shape)
            table.entries(record: Int(record), into: &tail)
        }
        if tail.count > FenceIndex.tailLimit { rebuild() } else { maintain() }
    }

    /// Removes the live fence with this identifier; returns its (now retired) slot.
    /// - Complexity: O(1) amortized.
    @discardableResult
    public mutating func remove(id: String) -> Int32? {
        generation = IndexGeneration.next()
        table.materializeSlotMap()
        guard let slot = table.slotByID![Array(id.utf8)] else { return nil }
        retire(Int(slot))
        table.slotByID![Array(id.utf8)] = nil
        maintain()
        return slot
    }

    /// Repacks every live fence into the main tree, lays the compiled fences
    /// out in tree order and drops retired ones. Slots are kept.
    /// - Complexity: O(n log n).
    public mutating func compact() {
        rebuild()
    }

    /// Entries waiting outside the main tree (tail and second tree) plus
    /// tombstoned ones; 0 right after a build or `compact()`.
    public var pendingChanges: Int { tail.count + delta.count + deadEntries }

    private mutating func retire(_ slot: Int) {
        table.retire(slot: slot)
        deadEntries += 1
    }

    private mutating func maintain() {
        if deadEntries > max(1024, main.count / 4) || delta.count + tail.count > secondTreeLimit {
            rebuild()
            return
        }
        if tail.count > FenceIndex.tailLimit {
            var entries = delta.entries
            entries.append(contentsOf: tail)
            // Drop entries of retired fences on the way.
            entries.removeAll { e in
                var r = Int(e.value >> EntryValue.payloadShift)
                if e.value & EntryValue.secondary != 0 { r = Int(table.splits[r].record) }
                return !table.isLive(record: r)
            }
            delta = PackedRTree(entries: entries)
            tail.removeAll(keepingCapacity: true)
        }
        #if GEOFENCE_INTERNAL_CHECKS
        checkInvariants()
        #endif
    }
}
