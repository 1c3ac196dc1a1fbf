import GeofenceBase
import GeofenceIndex

/// Everything an evaluation needs to continue exactly where a previous run stopped
/// (docs/state.md): per device its name, last fix (for the time-order check), whether its
/// state was ever determined, its non-default fence states with their dwell timers, and
/// its fired one-shot fences; plus the settings and a fingerprint of the fence set.
///
/// `encoded()` writes the versioned binary format of docs/state.md (little-endian, SHA-256
/// checksum); `init(decoding:path:)` reads it back and refuses anything else.
public struct EvaluationState: Sendable, Equatable {
    /// One fence of the run that wrote the state: its identifier and a hash of what the
    /// evaluation depends on (shape, notify flags, dwell, repeats; not the note).
    public struct FenceRecord: Sendable, Equatable {
        /// The fence identifier.
        public var id: String
        /// 64 bits of SHA-256 over the fence's shape and state-relevant options.
        public var hash: UInt64
    }

    /// One (device, fence) state that differs from the default "outside".
    public struct Entry: Sendable, Equatable {
        /// Slot of the fence in `fences`.
        public var fence: Int32
        /// Time the current visit started (Unix seconds), for dwell.
        public var since: Double
        /// The dwell seconds still due for this visit, or -1 when none (or already sent).
        public var dwell: Double
        /// Inside (true), or unknown: uncertain since the device's first determination (false).
        public var inside: Bool
    }

    /// One device.
    public struct Device: Sendable, Equatable {
        /// The device identifier.
        public var name: String
        /// Time (Unix seconds) and position (degrees) of its last accepted fix.
        public var lastTime: Double, lastLat: Double, lastLon: Double
        /// Whether any fix of the device was evaluated (its state was determined once).
        public var started: Bool
        /// Its non-default fence states.
        public var entries: [Entry]
        /// Slots of one-shot fences that already sent their event to this device.
        public var consumed: [Int32]
    }

    /// The format version this code writes and reads.
    public static let version: UInt32 = 1
    /// The first eight bytes of a state file.
    public static let magic: [UInt8] = Array("GFSTATE1".utf8)

    /// Exit margin of the run (metres); a continuation must use the same.
    public var exitMargin: Double
    /// Default dwell of the run (seconds, nil for none); a continuation must use the same.
    public var defaultDwell: Double?
    /// The fences of the run in slot order.
    public var fences: [FenceRecord]
    /// The devices in order of first appearance (dense indices).
    public var devices: [Device]

    /// SHA-256 of the fence records: equal fingerprints mean the same fences in the same order
    /// with the same shapes and state-relevant options.
    public var fingerprint: [UInt8] { EvaluationState.fingerprint(fences) }

    /// A state with every field given.
    public init(exitMargin: Double, defaultDwell: Double?, fences: [FenceRecord], devices: [Device]) {
        self.exitMargin = exitMargin; self.defaultDwell = defaultDwell; self.fences = fences; self.devices = devices
    }

    /// The records of fences as a state stores them.
    /// - Complexity: O(total size of the fences).
    public static func records(_ fences: [Fence]) -> [FenceRecord] {
        fences.map { FenceRecord(id: $0.id, hash: hash($0)) }
    }

    /// 64 bits of SHA-256 over a fence's shape and its options that the evaluation uses.
    static func hash(_ f: Fence) -> UInt64 {
        var w = ByteWriter()
        switch f.shape {
        case .circle(let lat, let lon, let r):
            w.u8(1); w.f64(lat); w.f64(lon); w.f64(r)
        case .polygon(let parts):
            w.u8(2); w.u32(UInt32(parts.count))
            for rings in parts {
                w.u32(UInt32(rings.count))
                for ring in rings {
                    w.u32(UInt32(ring.count))
                    for c in ring { w.f64(c.lon); w.f64(c.lat) }
                }
            }
        }
        w.u8(f.options.notifyOnEntry ? 1 : 0); w.u8(f.options.notifyOnExit ? 1 : 0)
        w.f64(f.options.dwell ?? -1); w.u8(f.options.repeats ? 1 : 0)
        var h = SHA256()
        h.update(w.bytes)
        let d = h.finalize()
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(d[$1]) << (8 * UInt64($1)) }
    }

    static func fingerprint(_ fences: [FenceRecord]) -> [UInt8] {
        var w = ByteWriter()
        w.u64(UInt64(fences.count))
        for f in fences { w.string(f.id); w.u64(f.hash) }
        var h = SHA256()
        h.update(w.bytes)
        return h.finalize()
    }

    // MARK: Encoding

    /// The state in the binary format of docs/state.md.
    /// - Complexity: O(devices + entries + fences).
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.bytes.append(contentsOf: EvaluationState.magic)
        w.u32(EvaluationState.version)
        w.u32(0x0102_0304)                                   // byte-order mark: reads back 0x01020304 little-endian
        w.f64(exitMargin)
        w.f64(defaultDwell ?? -1)
        w.bytes.append(contentsOf: fingerprint)
        w.u64(UInt64(fences.count))
        for f in fences { w.string(f.id); w.u64(f.hash) }
        w.u64(UInt64(devices.count))
        for d in devices {
            w.string(d.name)
            w.f64(d.lastTime); w.f64(d.lastLat); w.f64(d.lastLon)
            w.u8(d.started ? 1 : 0)
            w.u64(UInt64(d.entries.count))
            for e in d.entries { w.u32(UInt32(bitPattern: e.fence)); w.f64(e.since); w.f64(e.dwell); w.u8(e.inside ? 1 : 0) }
            w.u64(UInt64(d.consumed.count))
            for c in d.consumed { w.u32(UInt32(bitPattern: c)) }
        }
        var h = SHA256()
        h.update(w.bytes)
        w.bytes.append(contentsOf: h.finalize())
        return w.bytes
    }

    /// Reads a state written by `encoded()`.
    /// - Throws: `GeofenceError.input` (`malformed`, at `path`) for a file that is not a state
    ///   file, has another version or byte order, fails its checksum, or is truncated or
    ///   inconsistent; the message says which.
    /// - Complexity: O(bytes).
    public init(decoding bytes: [UInt8], path: String) throws(GeofenceError) {
        func bad(_ m: String) -> GeofenceError { .malformed(SourceLocation(file: path), m) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == EvaluationState.magic else {
            throw bad("not a geofence state file (no GFSTATE1 signature)")
        }
        guard bytes.count >= 8 + 8 + 32 else { throw bad("truncated state file (\(bytes.count) bytes)") }
        var r = ByteReader(bytes: bytes, end: bytes.count - 32)
        let version = r.u32()!, order = r.u32()!
        guard order == 0x0102_0304 else { throw bad("state file written with another byte order") }
        guard version == EvaluationState.version else {
            throw bad("state file version \(version); this geofence reads version \(EvaluationState.version)")
        }
        var h = SHA256()
        h.update(bytes[0..<(bytes.count - 32)])
        guard h.finalize() == Array(bytes[(bytes.count - 32)...]) else {
            throw bad("state file checksum mismatch (the file is corrupt or truncated)")
        }
        func need<T>(_ v: T?) throws(GeofenceError) -> T {
            guard let v else { throw bad("state file ends early at byte \(r.position) (truncated or corrupt)") }
            return v
        }
        exitMargin = try need(r.f64())
        guard exitMargin >= 0 && exitMargin <= EvaluationSettings.maximumExitMargin else {
            throw bad("state file exit margin \(exitMargin) is out of range")
        }
        let dwell = try need(r.f64())
        guard dwell == -1 || (dwell >= 0 && dwell.isFinite) else { throw bad("state file default dwell \(dwell) is out of range") }
        defaultDwell = dwell < 0 ? nil : dwell
        let stored = try need(r.take(32))
        let fenceCount = try need(r.count(minimumSize: 12))
        var fences: [FenceRecord] = []
        fences.reserveCapacity(fenceCount)
        for _ in 0..<fenceCount { fences.append(FenceRecord(id: try need(r.string()), hash: try need(r.u64()))) }
        guard EvaluationState.fingerprint(fences) == stored else { throw bad("state file fence fingerprint does not match its fence list") }
        self.fences = fences
        let deviceCount = try need(r.count(minimumSize: 37))
        var devices: [Device] = []
        devices.reserveCapacity(deviceCount)
        var names = Set<[UInt8]>()
        func flag(_ v: UInt8) throws(GeofenceError) -> Bool {
            guard v <= 1 else { throw bad("state file has a flag byte \(v) at byte \(r.position - 1)") }
            return v == 1
        }
        for _ in 0..<deviceCount {
            let name = try need(r.string())
            // Identifiers are compared bytewise (docs/fences.md): two spellings are two devices.
            guard names.insert(Array(name.utf8)).inserted else { throw bad("state file lists device \"\(name)\" twice") }
            let t = try need(r.f64()), la = try need(r.f64()), lo = try need(r.f64())
            let started = try flag(try need(r.u8()))
            let n = try need(r.count(minimumSize: 21))
            var entries: [Entry] = []
            entries.reserveCapacity(n)
            var slots = Set<Int32>()
            for _ in 0..<n {
                let f = Int32(bitPattern: try need(r.u32()))
                guard f >= 0 && Int(f) < fenceCount else { throw bad("state file entry names fence slot \(f) of \(fenceCount)") }
                guard slots.insert(f).inserted else { throw bad("state file repeats fence slot \(f) for device \"\(name)\"") }
                entries.append(Entry(fence: f, since: try need(r.f64()), dwell: try need(r.f64()), inside: try flag(try need(r.u8()))))
            }
            let m = try need(r.count(minimumSize: 4))
            var consumed: [Int32] = []
            var once = Set<Int32>()
            for _ in 0..<m {
                let f = Int32(bitPattern: try need(r.u32()))
                guard f >= 0 && Int(f) < fenceCount else { throw bad("state file one-shot record names fence slot \(f) of \(fenceCount)") }
                guard once.insert(f).inserted else { throw bad("state file repeats one-shot fence slot \(f) for device \"\(name)\"") }
                consumed.append(f)
            }
            devices.append(Device(name: name, lastTime: t, lastLat: la, lastLon: lo, started: started, entries: entries, consumed: consumed))
        }
        guard r.position == r.end else { throw bad("state file has \(r.end - r.position) unexpected bytes before its checksum") }
        self.devices = devices
    }
}

/// How a state's fences relate to the fences of the run that continues it.
public struct FenceChanges: Sendable, Equatable {
    /// For each slot of the state, the slot in the new fences (-1: removed or changed).
    public var slotMap: [Int32]
    /// Per new slot: true when the fence is new or changed (its state restarts unknown).
    public var restarts: [Bool]
    /// Identifiers in the state and not in the new fences.
    public var removed: [String]
    /// Identifiers in the new fences and not in the state.
    public var added: [String]
    /// Identifiers in both whose shape or state-relevant options differ.
    public var changed: [String]

    /// True when the fences are the same, in the same order.
    public var isIdentity: Bool {
        removed.isEmpty && added.isEmpty && changed.isEmpty && slotMap.enumerated().allSatisfy { Int($0.element) == $0.offset }
            && slotMap.count == restarts.count
    }

    /// Compares the state's fences with `fences` by identifier.
    /// - Complexity: O(n) expected for n fences.
    public init(from old: [EvaluationState.FenceRecord], to fences: [EvaluationState.FenceRecord]) {
        var slotOf: [String: Int32] = [:]
        slotOf.reserveCapacity(fences.count)
        for (k, f) in fences.enumerated() { slotOf[f.id] = Int32(k) }
        var seen = [Bool](repeating: false, count: fences.count)
        restarts = [Bool](repeating: false, count: fences.count)
        slotMap = []
        slotMap.reserveCapacity(old.count)
        removed = []; changed = []; added = []
        for f in old {
            guard let s = slotOf[f.id] else { removed.append(f.id); slotMap.append(-1); continue }
            seen[Int(s)] = true
            if fences[Int(s)].hash != f.hash {
                changed.append(f.id); restarts[Int(s)] = true; slotMap.append(-1)
            } else {
                slotMap.append(s)
            }
        }
        for (k, f) in fences.enumerated() where !seen[k] { added.append(f.id); restarts[k] = true }
    }
}

/// Little-endian writer for the state format.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) } }
    mutating func u64(_ v: UInt64) { for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) } }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
    mutating func string(_ s: String) { u32(UInt32(s.utf8.count)); bytes.append(contentsOf: s.utf8) }
}

/// Little-endian reader for the state format: nil past `end`.
struct ByteReader {
    let bytes: [UInt8]
    let end: Int
    var position = 8

    mutating func take(_ n: Int) -> [UInt8]? {
        guard n >= 0, end - position >= n else { return nil }
        defer { position += n }
        return Array(bytes[position..<(position + n)])
    }
    mutating func u8() -> UInt8? {
        guard position < end else { return nil }
        defer { position += 1 }
        return bytes[position]
    }
    mutating func u32() -> UInt32? {
        guard end - position >= 4 else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(bytes[position + k]) << (8 * UInt32(k)) }
        position += 4
        return v
    }
    mutating func u64() -> UInt64? {
        guard end - position >= 8 else { return nil }
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(bytes[position + k]) << (8 * UInt64(k)) }
        position += 8
        return v
    }
    mutating func f64() -> Double? { u64().map { Double(bitPattern: $0) } }
    /// A count whose items take at least `minimumSize` bytes each: nil when they cannot fit.
    mutating func count(minimumSize: Int) -> Int? {
        guard let n = u64(), n <= UInt64(max(0, end - position) / max(1, minimumSize)) else { return nil }
        return Int(n)
    }
    mutating func string() -> String? {
        guard let n = u32(), let b = take(Int(n)) else { return nil }
        return String(validating: b, as: UTF8.self)
    }
}
