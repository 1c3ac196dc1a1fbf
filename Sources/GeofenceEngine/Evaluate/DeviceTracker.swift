import FenceIndex

/// Per-(device, fence) state of DESIGN §3, kept sparse: a device remembers only
/// the fences it is inside or whose state is still unknown; every other fence is
/// outside. A device inside nothing costs one empty array.
struct DeviceTracker {
    struct Entry {
        var fence: Int32
        /// Stamp of the last fix that saw this fence among the index candidates.
        var seen: UInt32
        /// Time of the fix that started this visit (for dwell).
        var since: Double
        /// true: inside; false: unknown (uncertain since the first fix).
        var inside: Bool
        var dwellFired: Bool
    }

    var started = false
    var stamp: UInt32 = 0
    /// In no particular order (removal swaps the last entry in).
    var entries: [Entry] = []
    /// One-shot fences (`repeats == false`) that already emitted their event.
    var consumed: [Int32] = []
    var events: [EvaluationEvent] = []
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

/// One slot's options as the evaluator reads them: one 16-byte load per fence.
struct SlotOptions: Sendable {
    /// Dwell seconds, or -1 for none.
    var dwell: Double
    /// Rank of the identifier in bytewise UTF-8 order.
    var rank: Int32
    /// `notifyEntry | notifyExit | oneShot`.
    var flags: UInt8

    static let notifyEntry: UInt8 = 1
    static let notifyExit: UInt8 = 2
    static let oneShot: UInt8 = 4

    /// Per slot, from the public per-option arrays.
    static func pack(_ o: CompiledOptions) -> [SlotOptions] {
        (0..<o.idRank.count).map { k in
            SlotOptions(dwell: o.dwell[k], rank: o.idRank[k],
                        flags: (o.notifyOnEntry[k] ? notifyEntry : 0) | (o.notifyOnExit[k] ? notifyExit : 0) | (o.repeats[k] ? 0 : oneShot))
        }
    }
}
