import GeofenceBase
import Glibc

/// Device names and their dense indices (``Fix/device``), in order of first appearance, plus
/// each device's previous fix (for the ordering and duplicate checks of docs/logs.md).
///
/// One table may be shared by several readers in turn (`--log a.csv --log b.csv`): a device
/// keeps its index across the files, and its fixes must stay in time order across them, as if
/// the logs were one file.
///
/// Interning works on bytes: a row whose device equals the previous row's costs a comparison
/// of one word (names of up to 8 bytes) or a `memcmp`; any other known device one hash probe
/// (a hash over 8 bytes at a time); neither allocates. A device's name is kept as bytes; its
/// `String` is made only when asked for (``name(_:)``).
public final class DeviceTable {
    var state = DeviceState()

    /// An empty table.
    public init() {}

    /// Number of devices seen.
    public var count: Int { state.keys.count }

    /// Device names, index = ``Fix/device``: made from the table's bytes at each call (take
    /// ``name(_:)`` for one).
    /// - Complexity: O(total name length).
    public var names: [String] { (0..<state.keys.count).map { state.name($0) } }

    /// The name of device `index`.
    public func name(_ index: Int32) -> String { state.name(Int(index)) }

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
    /// Name bytes of all devices, back to back; device i is `bytes[offsets[i]..<offsets[i + 1]]`
    /// (valid UTF-8: a name is checked when it is added; its `String` is made when asked for,
    /// ``name(_:)``, not for every device).
    var bytes: [UInt8] = []
    var offsets: [Int] = [0]
    /// Per device: what a probe compares first.
    var keys: [Key] = []
    /// Open addressing, linear probing; -1 = empty. Size a power of two, at most half full.
    var slots: [Int32] = Array(repeating: -1, count: 64)
    /// The device of the previous row (fast path for runs of one device).
    var previous: Int32 = -1
    /// A parse worker's table: no last fix.
    var bytesOnly = false
    /// Devices (and their names' bytes) that may be added soon: the first one added makes
    /// room for them all (``reserve(devices:bytes:)``); none added, nothing is grown.
    var expected = (devices: 0, bytes: 0)

    /// The name of device `i`.
    func name(_ i: Int) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offsets[i]..<offsets[i + 1]]), as: UTF8.self) }
    }

    /// Each device's last accepted fix.
    var last: [LastFix] = []

    /// The storage of ``last``, made unique (nil while it is empty): writes through it stay
    /// valid until ``last`` grows (a new device) or is copied.
    mutating func lastFixes() -> UnsafeMutablePointer<LastFix>? {
        last.withUnsafeMutableBufferPointer { $0.baseAddress }
    }
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

        /// Whether a fix at `time`, `lat`, `lon` may follow this one (``follows(_:_:_:after:_:_:)``).
        @inline(__always) func isFollowed(by time: Double, _ lat: Double, _ lon: Double) -> Bool {
            DeviceState.follows(time, lat, lon, after: self.time, self.lat, self.lon)
        }
    }

    /// The time order of a device's fixes (docs/logs.md#time-order-per-device): a fix may
    /// follow another when it is later, or at the same time elsewhere (the same time and place
    /// is a duplicate; accuracy is not compared).
    @inline(__always) static func follows(_ time: Double, _ lat: Double, _ lon: Double,
                                          after t: Double, _ la: Double, _ lo: Double) -> Bool {
        time > t || (time == t && (lat != la || lon != lo))
    }

    /// What a probe compares before any name byte: the hash, the length and the name's last
    /// 1 to 8 bytes as one word (``tail(_:_:readable:)``); a name of up to 8 bytes is equal
    /// when these are.
    struct Key {
        var hash: UInt64
        var tail: UInt64
        var count: Int
    }

    /// The last `n - 8·⌊(n - 1) / 8⌋` bytes of `p[0..<n]` (1 to 8; none when n is 0),
    /// first byte lowest, zero above. One load when 8 bytes from there are `readable` (bytes
    /// loadable from `p`, at least n), else two overlapping loads of 4 or three of 1; the same
    /// word either way.
    @inline(always)
    static func tail(_ p: UnsafePointer<UInt8>, _ n: Int, readable: Int) -> UInt64 {
        guard n > 0 else { return 0 }
        let start = (n &- 1) & ~7
        let r = n &- start
        let q = UnsafeRawPointer(p + start)
        if readable &- start >= 8 {
            let w = UInt64(littleEndian: q.loadUnaligned(as: UInt64.self))
            return w & (UInt64.max &>> UInt64(truncatingIfNeeded: 64 &- 8 &* r))   // r is 1...8
        }
        if r >= 4 {
            let low = UInt64(UInt32(littleEndian: q.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: q.loadUnaligned(fromByteOffset: r &- 4, as: UInt32.self)))
            return low | high &<< UInt64(8 &* (r &- 4))                 // the overlap holds the same bytes
        }
        let b = q.assumingMemoryBound(to: UInt8.self)
        return UInt64(b[0]) | UInt64(b[r >> 1]) &<< UInt64(8 &* (r >> 1)) | UInt64(b[r &- 1]) &<< UInt64(8 &* (r &- 1))
    }

    /// The hash and tail of a name `p[0..<n]` (n > 0) whose bytes are all ASCII (below 0x80),
    /// or nil for any other name. `readable` as for ``tail(_:_:readable:)``.
    @inline(__always)
    static func asciiKey(_ p: UnsafePointer<UInt8>, _ n: Int, readable: Int) -> (hash: UInt64, tail: UInt64)? {
        let tail = Self.tail(p, n, readable: Swift.max(n, readable))
        var bits = tail, i = 0
        while n &- i > 8 {
            bits |= UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            i &+= 8
        }
        guard bits & 0x8080_8080_8080_8080 == 0 else { return nil }
        return (hash(p, n, tail: tail), tail)
    }

    /// The hash of `p[0..<n]` whose ``tail(_:_:readable:)`` is `tail`: 64×64→128-bit
    /// multiply-and-fold rounds over the length, each full 8 bytes before the tail, and the
    /// tail; the low bits, which pick the slot, depend on every byte.
    @inline(always)
    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int, tail: UInt64) -> UInt64 {
        @inline(__always) func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (high, low) = a.multipliedFullWidth(by: b)
            return high ^ low
        }
        var h = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: n)
        var i = 0
        while n &- i > 8 {
            h = fold(h ^ UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)), 0xA076_1D64_78BD_642F)
            i &+= 8
        }
        return fold(h ^ 0xE703_7ED1_A0B4_28DB, tail ^ 0x8EBC_6AF0_9C88_C6E3)
    }

    /// Whether device `id` is `p[0..<n]`, whose key is `key` (the hash not compared).
    @inline(always)
    func equals(_ id: Int32, _ p: UnsafePointer<UInt8>, _ n: Int, tail: UInt64) -> Bool {
        let k = keys[Int(id)]
        guard k.tail == tail && k.count == n else { return false }
        if n <= 8 { return true }
        let s = offsets[Int(id)]
        return bytes.withUnsafeBufferPointer { b in Self.sameHead(b.baseAddress! + s, p, n) }
    }

    /// Whether two names of `n` bytes whose tails (``tail(_:_:readable:)``) are equal are the
    /// same: their bytes before the tail compared (none for a name of up to 8 bytes).
    @inline(always)
    static func sameHead(_ a: UnsafePointer<UInt8>, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        if n <= 8 { return true }
        let head = (n &- 1) & ~7                                       // the bytes before the tail, whole words
        let q = UnsafeRawPointer(a)
        if head > 32 { return memcmp(q, p, head) == 0 }
        // Device ids are short: an inline loop beats a call.
        var i = 0
        while i < head {
            if q.loadUnaligned(fromByteOffset: i, as: UInt64.self) != UnsafeRawPointer(p).loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i &+= 8
        }
        return true
    }

    /// The index of a name, or -1.
    func find(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int32 {
        let tail = Self.tail(p, n, readable: n)
        let h = Self.hash(p, n, tail: tail)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = slots[i]
            if id < 0 { return -1 }
            if keys[Int(id)].hash == h && equals(id, p, n, tail: tail) { return id }
            i = (i + 1) & mask
        }
    }

    /// The index of the name `p[0..<n]`, adding it when new; nil when a new name is not UTF-8.
    /// `readable` (at least n) is how many bytes from `p` may be loaded: 8 past the name's
    /// last full word let one load read its tail.
    /// - Complexity: O(n) expected; allocation only for a new name.
    @inline(always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int, readable: Int = 0) -> Int32? {
        let tail = Self.tail(p, n, readable: Swift.max(n, readable))
        if previous >= 0 && equals(previous, p, n, tail: tail) { return previous }
        return intern(p, n, hash: Self.hash(p, n, tail: tail), tail: tail)
    }

    /// Where the probe for `hash` starts (to prefetch; valid until the table next changes).
    @inline(__always)
    func slotAddress(_ hash: UInt64) -> UnsafePointer<Int32> {
        slots.withUnsafeBufferPointer { $0.baseAddress! + (Int(truncatingIfNeeded: hash) & ($0.count &- 1)) }
    }

    /// The key of the device in the slot where the probe for `hash` starts, if the slot is
    /// taken (to prefetch; valid until the table next changes).
    @inline(__always)
    func firstKeyAddress(_ hash: UInt64) -> UnsafePointer<Key>? {
        let id = slotAddress(hash).pointee
        return id >= 0 ? keys.withUnsafeBufferPointer { $0.baseAddress! + Int(id) } : nil
    }

    /// ``intern(_:_:hash:tail:)`` with the previous row's device compared first, as
    /// ``intern(_:_:readable:)`` does.
    @inline(__always)
    mutating func internAfterPrevious(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64, tail: UInt64) -> Int32? {
        if previous >= 0 && equals(previous, p, n, tail: tail) { return previous }
        return intern(p, n, hash: h, tail: tail)
    }

    /// ``intern(_:_:readable:)`` with the name's ``hash(_:_:tail:)`` and ``tail(_:_:readable:)``
    /// already made (another table's key for the same bytes).
    @inline(always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64, tail: UInt64) -> Int32? {
        let mask = slots.count &- 1
        var i = Int(truncatingIfNeeded: h) & mask
        if n <= 8 {
            // A short name is equal when its key is: the probe reads the key alone, unchecked
            // (a slot holds -1 or the index of a key).
            let found: Int32 = slots.withUnsafeBufferPointer { slot in
                keys.withUnsafeBufferPointer { key in
                    while true {
                        let id = slot[i]
                        if id < 0 { return -1 }
                        let k = key[Int(id)]
                        if k.hash == h && k.tail == tail && k.count == n { return id }
                        i = (i &+ 1) & mask
                    }
                }
            }
            if found >= 0 { previous = found; return found }
            return insert(p, n, key: Key(hash: h, tail: tail, count: n), slot: i)
        }
        while true {
            let id = slots[i]
            if id < 0 { break }
            if keys[Int(id)].hash == h && equals(id, p, n, tail: tail) { previous = id; return id }
            i = (i &+ 1) & mask
        }
        return insert(p, n, key: Key(hash: h, tail: tail, count: n), slot: i)
    }

    @inline(never)
    private mutating func insert(_ p: UnsafePointer<UInt8>, _ n: Int, key: Key, slot: Int) -> Int32? {
        let text = UnsafeBufferPointer(start: p, count: n)
        // ASCII is valid UTF-8, and checking it is much cheaper than the generic validation.
        guard text.allSatisfy({ $0 < 0x80 }) || String(validating: text, as: UTF8.self) != nil else { return nil }
        var slot = slot
        if expected.devices > 0 {
            let (count, nameBytes) = expected
            expected = (0, 0)
            let size = slots.count
            reserve(devices: count, bytes: nameBytes)
            if slots.count != size { slot = Self.emptySlot(slots, key.hash) }   // rehashed: elsewhere now
        }
        if !bytesOnly { last.append(LastFix()) }
        let id = Int32(keys.count)
        // Byte by byte: names are short, and the generic append of a buffer cost about 200
        // instructions a name.
        bytes.reserveRoom(for: n)
        for k in 0..<n { bytes.append(p[k]) }
        offsets.append(bytes.count)
        keys.append(key)
        slots[slot] = id
        if keys.count * 2 > slots.count { rehash() }
        previous = id
        return id
    }

    /// Room for `count` more devices whose names take `bytes` bytes in all, so that adding
    /// them grows each array once (to at least twice its capacity) and the slots at most once,
    /// rather than doubling step by step: a log's first rows bring thousands of devices at
    /// once (a copy and fresh pages each step).
    mutating func reserve(devices count: Int, bytes nameBytes: Int) {
        guard count > 0 else { return }
        keys.reserveRoom(for: count)
        offsets.reserveRoom(for: count)
        bytes.reserveRoom(for: nameBytes)
        if !bytesOnly { last.reserveRoom(for: count) }
        var size = slots.count
        while (keys.count + count) * 2 > size { size *= 2 }
        if size > slots.count { rehash(to: size) }
    }

    /// Empties the table, keeping its storage (a parse worker's, from chunk to chunk).
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        keys.removeAll(keepingCapacity: true)
        last.removeAll(keepingCapacity: true)
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        previous = -1
    }

    private mutating func rehash() { rehash(to: slots.count * 2) }

    /// The slots rebuilt at `size` (a power of two, more than twice the devices).
    private mutating func rehash(to size: Int) {
        var newSlots = [Int32](repeating: -1, count: size)
        for id in 0..<keys.count { newSlots[Self.emptySlot(newSlots, keys[id].hash)] = Int32(id) }
        slots = newSlots
    }

    /// The first empty slot of `slots` (a power of two long) on the probe for `hash`.
    @inline(__always)
    private static func emptySlot(_ slots: [Int32], _ hash: UInt64) -> Int {
        let mask = slots.count &- 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i] >= 0 { i = (i &+ 1) & mask }
        return i
    }
}
