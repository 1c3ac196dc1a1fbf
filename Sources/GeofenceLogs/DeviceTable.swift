import GeofenceBase
import Glibc

/// Device names and their dense indices (``Fix/device``), in order of first appearance, plus
/// each device's previous fix (for the ordering and duplicate checks of docs/logs.md).
///
/// One table may be shared by several readers in turn (`--log a.csv --log b.csv`): a device
/// keeps its index across the files, and its fixes must stay in time order across them, as if
/// the logs were one file.
///
/// Interning works on bytes: a row whose device equals the previous row's costs one `memcmp`;
/// any other known device one hash probe; neither allocates. Only a new device creates a
/// `String`.
public final class DeviceTable {
    var state = DeviceState()

    /// An empty table.
    public init() {}

    /// Number of devices seen.
    public var count: Int { state.names.count }

    /// Device names, index = ``Fix/device``.
    public var names: [String] { state.names }

    /// The name of device `index`.
    public func name(_ index: Int32) -> String { state.names[Int(index)] }

    /// The index of a device name, adding the name when it is new (for hosts that
    /// feed fixes themselves instead of reading a log).
    /// - Complexity: O(name length) expected.
    public func intern(_ name: String) -> Int32 {
        var bytes = Array(name.utf8)
        let n = bytes.count
        return bytes.withUnsafeMutableBufferPointer { b -> Int32 in
            // A Swift String is valid UTF-8, so interning never refuses it.
            var empty: UInt8 = 0
            return withUnsafeMutablePointer(to: &empty) { z in state.intern(UnsafePointer(b.baseAddress ?? z), n)! }
        }
    }

    /// Adds a device carried over from a saved state, with its last fix (so the time-order
    /// check continues across runs); returns its index.
    /// - Precondition: no log has been read into the table yet.
    /// - Complexity: O(name length) expected.
    public func restore(name: String, lastTime: Double, lastLat: Double, lastLon: Double) -> Int32 {
        let d = intern(name)
        if state.files.isEmpty { state.files.append(DeviceTable.savedState) }
        precondition(state.files[0] == DeviceTable.savedState, "devices are restored before any log is read")
        state.last[Int(d)] = DeviceState.LastFix(time: lastTime, lat: lastLat, lon: lastLon, line: 0, file: 0)
        return d
    }

    /// Records a device's last accepted fix (for hosts that check time order themselves).
    public func setLastFix(_ index: Int32, time: Double, lat: Double, lon: Double) {
        let l = state.last[Int(index)]
        state.last[Int(index)] = DeviceState.LastFix(time: time, lat: lat, lon: lon, line: l.line, file: l.file)
    }

    /// The pseudo-file name of fixes restored from a saved state.
    static let savedState = "the saved state"

    /// Time (Unix seconds) and position (degrees) of a device's last accepted fix
    /// (time -infinity before any).
    public func lastFix(_ index: Int32) -> (time: Double, lat: Double, lon: Double) {
        let l = state.last[Int(index)]
        return (l.time, l.lat, l.lon)
    }

    /// The index of a device name, if it has been seen.
    /// - Complexity: O(name length).
    public func index(of name: String) -> Int32? {
        var bytes = Array(name.utf8)
        let n = bytes.count
        return bytes.withUnsafeMutableBufferPointer { b -> Int32? in
            guard let p = b.baseAddress else { return nil }
            let i = state.find(UnsafePointer(p), n)
            return i >= 0 ? i : nil
        }
    }
}

/// The table's storage, a value so that a batch of rows works on it through one `inout`
/// access instead of a class access per row.
struct DeviceState {
    var names: [String] = []
    /// Name bytes of all devices, back to back; device i is `bytes[offsets[i]..<offsets[i + 1]]`.
    var bytes: [UInt8] = []
    var offsets: [Int] = [0]
    var hashes: [UInt64] = []
    /// Open addressing, linear probing; -1 = empty. Size a power of two, at most half full.
    var slots: [Int32] = Array(repeating: -1, count: 64)
    /// The device of the previous row (fast path for runs of one device).
    var previous: Int32 = -1
    /// A parse worker's table: names kept as bytes only (no `String`, no last fix).
    var bytesOnly = false

    /// Each device's last accepted fix.
    var last: [LastFix] = []
    /// The paths of the logs read into this table, in order.
    var files: [String] = []

    /// What the ordering and duplicate checks need of a device's previous fix.
    struct LastFix {
        var time = -Double.infinity
        var lat = Double.nan
        var lon = Double.nan
        var line = 0
        /// Index into `files`.
        var file: Int32 = -1
    }

    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        // FNV-1a, then a final mix so that linear probing sees well-spread low bits.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in 0..<n { h = (h ^ UInt64(p[i])) &* 0x0000_0100_0000_01B3 }
        h ^= h >> 32
        h = h &* 0xd6e8_feb8_6659_fd93
        return h ^ (h >> 32)
    }

    @inline(__always)
    func equals(_ id: Int32, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let s = offsets[Int(id)], e = offsets[Int(id) + 1]
        guard e - s == n else { return false }
        return bytes.withUnsafeBufferPointer { b in
            let q = b.baseAddress! + s
            if n > 32 { return memcmp(q, p, n) == 0 }
            // Device ids are short: an inline loop beats a call.
            var i = 0
            while i + 8 <= n {
                if UnsafeRawPointer(q + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) { return false }
                i += 8
            }
            while i < n {
                if q[i] != p[i] { return false }
                i += 1
            }
            return true
        }
    }

    /// The index of a name, or -1.
    func find(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int32 {
        let h = Self.hash(p, n)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = slots[i]
            if id < 0 { return -1 }
            if hashes[Int(id)] == h && equals(id, p, n) { return id }
            i = (i + 1) & mask
        }
    }

    /// The index of the name `p[0..<n]`, adding it when new; nil when a new name is not UTF-8.
    /// - Complexity: O(n) expected; allocation only for a new name.
    @inline(__always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int32? {
        if previous >= 0 && equals(previous, p, n) { return previous }
        let h = Self.hash(p, n)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = slots[i]
            if id < 0 { break }
            if hashes[Int(id)] == h && equals(id, p, n) { previous = id; return id }
            i = (i + 1) & mask
        }
        return insert(p, n, hash: h, slot: i)
    }

    @inline(never)
    private mutating func insert(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64, slot: Int) -> Int32? {
        let text = UnsafeBufferPointer(start: p, count: n)
        if bytesOnly {
            guard text.allSatisfy({ $0 < 0x80 }) || String(validating: text, as: UTF8.self) != nil else { return nil }
        } else {
            guard let name = String(validating: text, as: UTF8.self) else { return nil }
            names.append(name)
            last.append(LastFix())
        }
        let id = Int32(hashes.count)
        bytes.append(contentsOf: text)
        offsets.append(bytes.count)
        hashes.append(h)
        slots[slot] = id
        if hashes.count * 2 > slots.count { rehash() }
        previous = id
        return id
    }

    /// Empties the table, keeping its storage (a parse worker's, from chunk to chunk).
    mutating func removeAll() {
        names.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        hashes.removeAll(keepingCapacity: true)
        last.removeAll(keepingCapacity: true)
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        previous = -1
    }

    private mutating func rehash() {
        var newSlots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = newSlots.count - 1
        for id in 0..<hashes.count {
            var i = Int(truncatingIfNeeded: hashes[id]) & mask
            while newSlots[i] >= 0 { i = (i + 1) & mask }
            newSlots[i] = Int32(id)
        }
        slots = newSlots
    }
}
