import GeofenceBase
import GeofenceLogs
import GeofenceIndex

/// Evaluation settings (docs/evaluation.md).
public struct EvaluationSettings: Sendable, Hashable {
    /// The largest exit margin, metres (10,000 km: a quarter of the Earth's circumference).
    public static let maximumExitMargin = 10_000_000.0

    /// Metres past the edge (beyond accuracy) before `inside` becomes `outside`.
    public var exitMargin: Double = 0
    /// Default dwell seconds for fences without their own `dwell` (nil: none).
    public var dwell: Double? = nil

    /// Settings with an exit margin (metres) and a default dwell time (seconds).
    /// - Precondition: `exitMargin` is in `0...maximumExitMargin`; `dwell`, when given, is finite and ≥ 0.
    public init(exitMargin: Double = 0, dwell: Double? = nil) {
        precondition(exitMargin >= 0 && exitMargin <= EvaluationSettings.maximumExitMargin, "exit margin must be in [0, 1e7] metres")
        precondition(dwell.map { $0 >= 0 && $0.isFinite } ?? true, "dwell must be finite and >= 0")
        self.exitMargin = exitMargin; self.dwell = dwell
    }
}

/// The per-device state machine of docs/evaluation.md over a fence index.
///
/// `apply` takes one fix of one device with its classification by the index
/// (which depends on the fix alone, so a caller may query the index for many
/// fixes first, in any order — `EvaluationRun` does, in spatial order);
/// devices are independent, so a caller may run disjoint sets of devices on
/// different threads, each with its own `Evaluator.Worker`. The index is
/// only read.
public struct Evaluator: Sendable {
    /// The index the fixes are classified by.
    public let index: FenceIndex
    /// The fences' options per slot.
    public let options: CompiledOptions
    /// Exit margin and default dwell.
    public let settings: EvaluationSettings
    /// Per slot: the fence is new or changed since a restored state (see `DeviceTracker.fresh`).
    var restarts: [Bool] = []

    /// An evaluator over an index and its fences' options.
    public init(index: FenceIndex, options: CompiledOptions, settings: EvaluationSettings) {
        self.index = index
        self.options = options
        self.settings = settings
    }

    /// Scratch space of one thread.
    public struct Worker {
        /// Classifications of the fixes of a batch this worker queried (see `EvaluationRun`).
        var answers = AnswerBuffer()
        /// The last candidate search (consecutive fixes are near each other).
        var cache = CandidateCache()
        /// Empty scratch space.
        public init() {}
    }

    /// Applies one fix, given its classification (`FenceIndex.classify` with the
    /// fix's accuracy and the settings' exit margin), to a device's state and
    /// appends its events (sorted by fence identifier).
    /// - Complexity: O(k + m) for k candidate fences and m fences the device is in, up to 16;
    ///   O((k + m) log m) beyond.
    @inline(__always)
    func apply(device: Int32, time: Double, lat: Double, lon: Double, accuracy: Double, offset: Int16 = 0,
               candidates: UnsafeBufferPointer<FenceClassification>, state s: inout DeviceTracker) {
        let first = !s.started
        s.started = true
        // A device continuing from a state over changed fences: this fix is the first
        // determination for the new and changed fences.
        let fresh = s.fresh
        s.fresh = false
        // A device inside nothing, near nothing: nothing to do.
        if candidates.isEmpty && s.entryCount == 0 { return }
        s.stamp &+= 1
        let stamp = s.stamp
        let eventStart = s.events.count
        let fix = EventFix(device: device, time: time, lat: lat, lon: lon, accuracy: Float(accuracy), offset: offset)
        // A device in many fences at once (overlapping fences, a shared centre): its entries
        // are sorted by slot once and searched by bisection, so a fix costs O(k log m), not
        // O(k·m). Entries appended below are never searched (each fence is a candidate once).
        let searched = s.entryCount
        let bisect = searched > Evaluator.linearEntries
        if bisect { var e = s.entries; e.sort { $0.fence < $1.fence } }
        let opt = options
        let defaultDwell = options.defaultDwell ?? -1
        options.table.flags.withUnsafeBufferPointer { flags in
            /// The slot's dwell seconds, -1 for none (the side table only for fences with their own).
            @inline(__always) func dwell(_ f: Int32) -> Double {
                flags[Int(f)] & SlotFlags.hasDwell == 0 ? defaultDwell : opt.table.dwell(of: Int(f)) ?? defaultDwell
            }
            for c in candidates {
                let f = c.slot
                let e = s.entries
                var k = 0
                if bisect {
                    var lo = 0, hi = searched
                    while lo < hi {
                        let mid = (lo + hi) >> 1
                        if e[mid].fence < f { lo = mid + 1 } else { hi = mid }
                    }
                    k = lo < searched && e[lo].fence == f ? lo : e.count
                } else {
                    while k < searched && e[k].fence != f { k += 1 }
                    if k == searched { k = e.count }
                }
                if k < e.count {
                    // An entry not marked seen is dropped by the sweep below, with an exit when inside.
                    if e[k].inside {
                        if c.state != .outside { e[k].seen = stamp }
                    } else {
                        switch c.state {
                        case .inside:
                            e[k].seen = stamp
                            e[k].inside = true
                            e[k].since = time
                            e[k].dwell = dwell(f)
                            Evaluator.emit(f, .enter, true, .nan, flags, &s, fix)
                        case .outside, .outsideWithinMargin:
                            break                             // unknown -> outside: no event
                        case .uncertain:
                            e[k].seen = stamp
                        }
                    }
                } else {
                    // No entry: outside (determined), or the device's very first fix.
                    let firstForFence = first || (fresh && restarts[Int(f)])
                    switch c.state {
                    case .inside:
                        s.appendEntry(.init(fence: f, seen: stamp, since: time, dwell: dwell(f), inside: true))
                        Evaluator.emit(f, .enter, firstForFence, .nan, flags, &s, fix)
                    case .uncertain where firstForFence:
                        s.appendEntry(.init(fence: f, seen: stamp, since: time, dwell: -1, inside: false))
                    default:
                        break
                    }
                }
            }
            // Fences the index did not report are certainly outside (margin included).
            var k = 0
            while k < s.entryCount {
                let e = s.entries[k]
                if e.seen != stamp {
                    s.removeEntry(at: k)
                    if e.inside { Evaluator.emit(e.fence, .exit, false, time - e.since, flags, &s, fix) }
                    continue
                }
                if e.inside && e.dwell >= 0 && time - e.since >= e.dwell {
                    s.entries[k].dwell = -1
                    Evaluator.emit(e.fence, .dwell, false, time - e.since, flags, &s, fix)
                }
                k += 1
            }
            // This fix's events by fence identifier, then type: insertion sort for the usual
            // handful, a full sort when a fix enters or leaves many fences at once.
            let end = s.events.count
            if end - eventStart > 1 {
                @inline(__always) func before(_ a: EvaluationEvent, _ b: EvaluationEvent) -> Bool {
                    a.fence == b.fence ? a.type.rawValue < b.type.rawValue : opt.idRank(a.fence) < opt.idRank(b.fence)
                }
                s.events.withUnsafeMutableBufferPointer { ev in
                    if end - eventStart > Evaluator.linearEntries {
                        var part = UnsafeMutableBufferPointer(rebasing: ev[eventStart..<end])
                        part.sort(by: before)
                        return
                    }
                    for i in (eventStart + 1)..<end {
                        let x = ev[i]
                        var j = i
                        while j > eventStart && before(x, ev[j - 1]) { ev[j] = ev[j - 1]; j -= 1 }
                        ev[j] = x
                    }
                }
            }
        }
    }

    /// Does all `apply` would do for a fix with `candidates` classifications when there are
    /// none and the device is in no fence (marks the device started) and returns true; else
    /// does nothing and returns false (the caller then calls `apply`).
    @inline(__always)
    static func passQuietly(candidates: Int32, state s: inout DeviceTracker) -> Bool {
        guard candidates == 0 && s.entryCount == 0 else { return false }
        s.started = true
        s.fresh = false
        return true
    }

    /// Whether a fix without candidates would change nothing of `s` (``passQuietly(candidates:state:)``
    /// would only set what is set): started, not fresh, in no fence.
    @inline(__always)
    static func isQuiet(_ s: DeviceTracker) -> Bool {
        s.entryCount == 0 && s.started && !s.fresh
    }

    /// Entries (and one fix's events) up to which a linear scan beats sorting.
    static let linearEntries = 16

    /// Appends an event unless the fence's options filter it (notify flags) or
    /// it is one-shot and already fired.
    @inline(__always)
    static func emit(_ fence: Int32, _ type: EventType, _ initial: Bool, _ duration: Double, _ flagsOf: UnsafeBufferPointer<UInt8>,
                     _ s: inout DeviceTracker, _ fix: EventFix) {
        let flags = flagsOf[Int(fence)]
        switch type {
        case .enter: if flags & SlotFlags.notifyEntry == 0 { return }
        case .exit: if flags & SlotFlags.notifyExit == 0 { return }
        case .dwell: break
        }
        if flags & SlotFlags.repeats == 0 {
            if s.consumed.contains(fence) { return }
            s.consumed.append(fence)
        }
        s.events.append(EvaluationEvent(device: fix.device, fence: fence, type: type, initial: initial, time: fix.time, lat: fix.lat,
                                        lon: fix.lon, accuracy: fix.accuracy, duration: duration, offset: fix.offset))
    }
}

/// The fix an `apply` call emits its events at.
struct EventFix {
    var device: Int32
    var time: Double
    var lat: Double
    var lon: Double
    var accuracy: Float
    var offset: Int16
}
