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

/// Per-fence options as the evaluator reads them, by slot: the fences' own options (one
/// flags byte a fence; dwell times and notes only where set), the default dwell, and the
/// identifier ranks of the index (no per-fence copy of any of them).
public struct CompiledOptions: Sendable {
    /// The fences' own options.
    public let table: FenceOptionTable
    /// Dwell seconds for fences without their own (nil: none).
    public let defaultDwell: Double?
    /// The index whose order keys give the identifier ranks.
    let index: FenceIndex

    /// The options of `table` over `index` (fresh: built or opened, not changed since).
    public init(table: FenceOptionTable, index: FenceIndex, defaultDwell: Double?) {
        self.table = table; self.index = index; self.defaultDwell = defaultDwell
    }

    /// Whether the slot emits `enter` events.
    public func notifyOnEntry(_ slot: Int32) -> Bool { table.flags[Int(slot)] & SlotFlags.notifyEntry != 0 }
    /// Whether the slot emits `exit` events.
    public func notifyOnExit(_ slot: Int32) -> Bool { table.flags[Int(slot)] & SlotFlags.notifyExit != 0 }
    /// Whether the slot repeats (false: one event per device, ever).
    public func repeats(_ slot: Int32) -> Bool { table.flags[Int(slot)] & SlotFlags.repeats != 0 }

    /// Dwell seconds of a slot (its own, else the default), or -1 for none.
    /// - Complexity: O(log d) for d fences with their own dwell time.
    @inline(__always)
    public func dwell(_ slot: Int32) -> Double { table.dwell(of: Int(slot)) ?? defaultDwell ?? -1 }

    /// Rank of the slot's identifier in bytewise UTF-8 order (ties in one fix sort by it).
    /// - Complexity: O(1).
    @inline(__always)
    public func idRank(_ slot: Int32) -> Int32 { index.identifierRank(of: slot) }
}

/// The bits of `FenceOptionTable.flags` (docs/compiled-fences.md).
enum SlotFlags {
    static let notifyEntry: UInt8 = 1
    static let notifyExit: UInt8 = 2
    static let repeats: UInt8 = 4
    static let hasDwell: UInt8 = 16
}
