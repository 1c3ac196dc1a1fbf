/// Per-slot fence options: one flags byte a fence; dwell times and notes only for the
/// fences that have them (sparse side tables searched by slot).
public struct FenceOptionTable: Sendable {
    /// Per slot: bit 0 notify on entry, bit 1 notify on exit, bit 2 repeats, bit 3 has a
    /// note, bit 4 has its own dwell time.
    public internal(set) var flags: [UInt8]
    /// The slots with their own dwell time, increasing.
    var dwellSlots: [Int32]
    /// Their dwell seconds, in the order of `dwellSlots`.
    var dwellValues: [Double]
    /// The slots with a note, increasing.
    var noteSlots: [Int32]
    /// End of each note (in the order of `noteSlots`) in `noteBytes`, after a leading 0.
    var noteEnds: [UInt32]
    var noteBytes: [UInt8]

    static let notifyEntry: UInt8 = 1
    static let notifyExit: UInt8 = 2
    static let repeats: UInt8 = 4
    static let hasNote: UInt8 = 8
    static let hasDwell: UInt8 = 16

    /// The table of the options given, in slot order.
    /// - Complexity: O(n + note bytes).
    public init(_ options: some Sequence<FenceOptions>) {
        self.init()
        for o in options { append(o) }
    }

    /// An empty table.
    init() {
        flags = []; dwellSlots = []; dwellValues = []; noteSlots = []; noteEnds = [0]; noteBytes = []
    }

    init(flags: [UInt8], dwellSlots: [Int32], dwellValues: [Double], noteSlots: [Int32], noteEnds: [UInt32], noteBytes: [UInt8]) {
        self.flags = flags; self.dwellSlots = dwellSlots; self.dwellValues = dwellValues
        self.noteSlots = noteSlots; self.noteEnds = noteEnds; self.noteBytes = noteBytes
    }

    /// Appends the options of the next slot.
    mutating func append(_ o: FenceOptions) {
        let slot = Int32(flags.count)
        var f: UInt8 = (o.notifyOnEntry ? Self.notifyEntry : 0) | (o.notifyOnExit ? Self.notifyExit : 0) | (o.repeats ? Self.repeats : 0)
        if let note = o.note {
            f |= Self.hasNote
            noteSlots.append(slot)
            noteBytes += Array(note.utf8)
            noteEnds.append(UInt32(truncatingIfNeeded: noteBytes.count))
        }
        if let d = o.dwell {
            f |= Self.hasDwell
            dwellSlots.append(slot)
            dwellValues.append(d)
        }
        flags.append(f)
    }

    /// Slots held.
    public var count: Int { flags.count }

    /// The position of `slot` in an increasing slot list (which holds it).
    @inline(__always)
    static func position(of slot: Int, in slots: [Int32]) -> Int {
        var lo = 0, hi = slots.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if Int(slots[mid]) < slot { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The fence's own dwell seconds (nil for none).
    /// - Complexity: O(log d) for d fences with a dwell time.
    @inline(__always)
    public func dwell(of slot: Int) -> Double? {
        guard flags[slot] & Self.hasDwell != 0 else { return nil }
        return dwellValues[Self.position(of: slot, in: dwellSlots)]
    }

    /// The note of a slot (nil for none).
    /// - Complexity: O(log m + note length) for m fences with a note.
    public func note(of slot: Int) -> String? {
        guard flags[slot] & Self.hasNote != 0 else { return nil }
        let k = Self.position(of: slot, in: noteSlots)
        return String(decoding: noteBytes[Int(noteEnds[k])..<Int(noteEnds[k + 1])], as: UTF8.self)
    }

    /// The options of a slot.
    public func options(of slot: Int) -> FenceOptions {
        var o = FenceOptions()
        let f = flags[slot]
        o.notifyOnEntry = f & Self.notifyEntry != 0; o.notifyOnExit = f & Self.notifyExit != 0; o.repeats = f & Self.repeats != 0
        o.dwell = dwell(of: slot)
        o.note = note(of: slot)
        return o
    }

    /// Bytes held.
    public var memoryBytes: Int {
        flags.capacity + dwellSlots.capacity * 4 + dwellValues.capacity * 8 + noteSlots.capacity * 4 + noteEnds.capacity * 4 + noteBytes.capacity
    }
}
