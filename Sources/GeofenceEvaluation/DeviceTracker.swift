import GeofenceBase
import GeofenceLogs
import GeofenceIndex

/// Per-(device, fence) state of docs/evaluation.md, kept sparse: a device remembers only
/// the fences it is inside or whose state is still unknown; every other fence is
/// outside. A device inside nothing costs no allocation.
///
/// The entries live in a small buffer of their own, grown by doubling and
/// never shrunk, read and written in place without copy-on-write checks; the
/// owner (`EvaluationRun`) releases it with `release()`. Copies of a tracker
/// share the buffer: only one may be written.
struct DeviceTracker {
    struct Entry {
        var fence: Int32
        /// Stamp of the last fix that saw this fence among the index candidates.
        var seen: UInt32
        /// Time of the fix that started this visit (for dwell).
        var since: Double
        /// The fence's dwell seconds while the dwell event is due, else -1.
        var dwell: Double
        /// true: inside; false: unknown (uncertain since the first fix).
        var inside: Bool
    }

    var started = false
    /// Set when the device continues from a saved state whose fences changed: its next fix
    /// is the first determination for the new and changed fences (`Evaluator.restarts`).
    var fresh = false
    var stamp: UInt32 = 0
    /// Entries `0..<entryCount` of `entryStorage`, in no particular order.
    private(set) var entryCount = 0
    private var entryCapacity = 0
    private(set) var entryStorage: UnsafeMutablePointer<Entry>? = nil
    /// One-shot fences (`repeats == false`) that already emitted their event.
    var consumed: [Int32] = []
    var events: [EvaluationEvent] = []

    /// The entries, for reading and writing in place (valid until the next append).
    @inline(__always)
    var entries: UnsafeMutableBufferPointer<Entry> { UnsafeMutableBufferPointer(start: entryStorage, count: entryCount) }

    @inline(__always)
    mutating func appendEntry(_ e: Entry) {
        if entryCount == entryCapacity {
            let capacity = max(4, 2 * entryCapacity)
            let grown = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
            if let old = entryStorage {
                grown.update(from: old, count: entryCount)
                old.deallocate()
            }
            entryStorage = grown
            entryCapacity = capacity
        }
        entryStorage![entryCount] = e
        entryCount += 1
    }

    /// Removes entry `k`, moving the last one into its place.
    @inline(__always)
    mutating func removeEntry(at k: Int) {
        entryCount -= 1
        if k != entryCount { entryStorage![k] = entryStorage![entryCount] }
    }

    /// Frees the entry buffer (the tracker must not be used afterwards).
    func release() { entryStorage?.deallocate() }
}

/// Per-fence options compiled into flat arrays indexed by slot.
public struct CompiledOptions: Sendable {
    /// Per slot: emit `enter` events.
    public var notifyOnEntry: [Bool]
    /// Per slot: emit `exit` events.
    public var notifyOnExit: [Bool]
    /// Dwell seconds, or -1 for none.
    public var dwell: [Double]
    /// Per slot: false for one-shot fences (one event per device, ever).
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
