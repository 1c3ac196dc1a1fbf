import FenceIndex

/// Per-(device, fence) state of DESIGN §3, kept sparse: a device remembers only
/// the fences it is inside or whose state is still unknown; every other fence is
/// outside. A device inside nothing costs one empty array.
struct DeviceTracker {
    struct Entry {
        var fence: Int32
        /// true: inside; false: unknown (uncertain since the first fix).
        var inside: Bool
        /// Time of the fix that started this visit (for dwell).
        var since: Double
        var dwellFired: Bool
        /// Stamp of the last fix that saw this fence among the index candidates.
        var seen: UInt32
    }

    var started = false
    var stamp: UInt32 = 0
    var entries: [Entry] = []
    /// One-shot fences (`repeats == false`) that already emitted their event.
    var consumed: [Int32] = []
    var events: [EvaluationEvent] = []

    @inline(__always)
    func find(_ fence: Int32) -> Int? {
        for k in entries.indices where entries[k].fence == fence { return k }
        return nil
    }
}

/// Per-fence options compiled into flat arrays indexed by slot.
public struct CompiledOptions: Sendable {
    public var notifyOnEntry: [Bool]
    public var notifyOnExit: [Bool]
    /// Dwell seconds, or -1 for none.
    public var dwell: [Double]
    public var repeats: [Bool]
    /// Rank of each slot's identifier in bytewise UTF-8 order (ties in one fix sort by it).
    public var idRank: [Int32]
}
