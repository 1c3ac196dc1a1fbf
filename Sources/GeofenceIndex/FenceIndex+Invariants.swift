import GeofenceBase
import Geodesy

#if GEOFENCE_INTERNAL_CHECKS
extension FenceIndex {
    /// Table and trees agree: slots and records map to each other, every live
    /// record has its primary entry in exactly one of main, second tree or
    /// tail, identifiers map to live slots, counts add up.
    func checkInvariants() {
        precondition(table.ids.count == table.recordOf.count)
        precondition(table.circles.count == table.slotOf.count && table.circles.count == table.orderKeys.count)
        precondition(table.alive.count * 64 >= table.recordCount)
        var live = 0
        for s in 0..<table.slotCount where table.recordOf[s] >= 0 {
            live += 1
            let r = Int(table.recordOf[s])
            precondition(table.isLive(record: r) && table.slotOf[r] == Int32(s), "slot and record map to each other")
            precondition(table.slot(of: table.ids[s]) == Int32(s), "identifier maps to its live slot")
        }
        let liveRecords = (0..<table.recordCount).filter { table.isLive(record: $0) }.count
        precondition(live == table.liveCount && liveRecords == live && (table.slotByID?.count ?? table.idOrder.count) == live, "live counts")
        var primaries = [Int](repeating: 0, count: table.recordCount)
        func note(_ v: UInt32) {
            if v == EntryValue.none { return }
            if v & EntryValue.secondary == 0 { primaries[Int(v >> EntryValue.payloadShift)] += 1 }
            else { precondition(Int(v >> EntryValue.payloadShift) < table.splits.count) }
        }
        for tree in [main, delta] {
            for k in 0..<tree.leafLanes { note(tree.value(k / PackedRTree.nodeCapacity, k % PackedRTree.nodeCapacity)) }
        }
        tail.forEach { note($0.value) }
        for r in 0..<table.recordCount where table.isLive(record: r) {
            precondition(primaries[r] == 1, "live record \(r) indexed once")
        }
        for k in 0..<main.leafLanes {
            let v = main.value(at: k)
            if v != EntryValue.none && v & EntryValue.secondary == 0 {
                precondition(Int(v >> EntryValue.payloadShift) == k, "main tree lane k holds record k")
            }
        }
    }
}
#endif
