/// The devices of the fixes a parallel read joined for one batch, each once, in the order the
/// join met them: handed out with a batch that holds exactly those fixes
/// (``LogReader/batchDevices``), so that the evaluation need not look at every fix's device to
/// learn them (docs/logs.md#the-devices-of-a-batch).
///
/// The join adds a device once per run of its fixes (where it meets the run), and the set
/// looks it up in a table of stamps, one per device of the reader, so that clearing the set
/// costs nothing per device.
struct JoinedDevices {
    /// Per device of the reader, the generation in which it was last added.
    private var stamps: [UInt32] = []
    private var generation: UInt32 = 1
    /// The devices added since ``clear()``, each once.
    private(set) var members: [Int32] = []

    /// Empties the set.
    mutating func clear() {
        generation &+= 1
        if generation == 0 {
            // Wrapped around: every stamp is stale again.
            for i in stamps.indices { stamps[i] = 0 }
            generation = 1
        }
        members.removeAll(keepingCapacity: true)
    }

    /// Adds device `d` (an index of the reader's device table), if it is not in the set yet.
    @inline(__always)
    mutating func insert(_ d: Int32) {
        let i = Int(d)
        if i >= stamps.count { grow(to: i) }
        if stamps[i] != generation {
            stamps[i] = generation
            members.append(d)
        }
    }

    /// Stamps up to device `i`, at least doubled.
    @inline(never)
    private mutating func grow(to i: Int) {
        stamps.append(contentsOf: repeatElement(0, count: Swift.max(i + 1, 2 * stamps.count, 1024) - stamps.count))
    }
}
