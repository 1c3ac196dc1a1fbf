#if GEOFENCE_INTERNAL_CHECKS
extension FenceIndex {
    /// Table and trees agree: every live slot has its entries in exactly one
    /// of main, second tree or tail; identifiers map to live slots; counts add up.
    func checkInvariants() {
        precondition(table.ids.count == table.circles.count && table.ids.count == table.polygonOf.count)
        precondition(table.alive.count * 64 >= table.slotCount)
        var live = 0
        for s in 0..<table.slotCount where table.isLive(s) {
            live += 1
            precondition(table.slotByID[table.ids[s]] == Int32(s), "identifier maps to its live slot")
        }
        precondition(live == table.liveCount && table.slotByID.count == live, "live count")
        var primaries = [Int](repeating: 0, count: table.slotCount)
        func note(_ v: UInt32) {
            if v == EntryValue.none { return }
            if v & EntryValue.secondary == 0 { primaries[Int(v >> EntryValue.payloadShift)] += 1 }
            else { precondition(Int(v >> EntryValue.payloadShift) < table.splits.count) }
        }
        main.values.forEach(note)
        delta.values.forEach(note)
        tail.forEach { note($0.value) }
        for s in 0..<table.slotCount where table.isLive(s) {
            precondition(primaries[s] == 1, "live slot \(s) indexed once")
        }
        #if GEOFENCE_DEEP_CHECKS
        main.checkInvariants()
        delta.checkInvariants()
        #endif
    }
}
#endif
