import FenceIndex

/// Evaluation settings (DESIGN §3).
public struct EvaluationSettings: Sendable, Hashable {
    /// Metres past the edge (beyond accuracy) before `inside` becomes `outside`.
    public var exitMargin: Double = 0
    /// Default dwell seconds for fences without their own `dwell` (nil: none).
    public var dwell: Double? = nil
    public init(exitMargin: Double = 0, dwell: Double? = nil) { self.exitMargin = exitMargin; self.dwell = dwell }
}

/// The per-device state machine of DESIGN §3 over a fence index.
///
/// `process` takes one fix of one device; devices are independent, so a caller
/// may run disjoint sets of devices on different threads, each with its own
/// `Evaluator.Worker`. The index is only read.
public struct Evaluator: Sendable {
    public let index: FenceIndex
    public let options: CompiledOptions
    public let settings: EvaluationSettings
    /// `options` per slot, packed for the hot path.
    let slots: [SlotOptions]

    public init(index: FenceIndex, options: CompiledOptions, settings: EvaluationSettings) {
        self.index = index
        self.options = options
        self.settings = settings
        slots = SlotOptions.pack(options)
    }

    /// Scratch space of one thread.
    public struct Worker {
        var candidates: [FenceClassification] = []
        public init() { candidates.reserveCapacity(64) }
    }

    /// Applies one fix to a device's state and appends its events (sorted by fence identifier).
    /// - Complexity: one index query plus O(k·m) for k candidate fences and m fences the device is in.
    @inline(__always)
    func process(device: Int32, time: Double, lat: Double, lon: Double, accuracy: Double,
                 state s: inout DeviceTracker, worker w: inout Worker) {
        index.classify(lat: lat, lon: lon, accuracy: accuracy, exitMargin: settings.exitMargin, into: &w.candidates)
        let first = !s.started
        s.started = true
        // A device inside nothing, near nothing: nothing to do.
        if w.candidates.isEmpty && s.entries.isEmpty { return }
        s.stamp &+= 1
        let stamp = s.stamp
        let eventStart = s.events.count
        slots.withUnsafeBufferPointer { opt in
            for c in w.candidates {
                let f = c.slot
                var k = 0
                let n = s.entries.count
                while k < n && s.entries[k].fence != f { k += 1 }
                if k < n {
                    s.entries[k].seen = stamp
                    if s.entries[k].inside {
                        if c.state == .outside {
                            Evaluator.emit(f, .exit, false, opt, &s, device, time, lat, lon)
                            Evaluator.removeEntry(k, &s)
                        }
                    } else {
                        switch c.state {
                        case .inside:
                            s.entries[k].inside = true
                            s.entries[k].since = time
                            Evaluator.emit(f, .enter, true, opt, &s, device, time, lat, lon)
                        case .outside, .outsideWithinMargin:
                            Evaluator.removeEntry(k, &s)      // unknown -> outside: no event
                        case .uncertain:
                            break
                        }
                    }
                } else {
                    // No entry: outside (determined), or the device's very first fix.
                    switch c.state {
                    case .inside:
                        s.entries.append(.init(fence: f, seen: stamp, since: time, inside: true, dwellFired: false))
                        Evaluator.emit(f, .enter, first, opt, &s, device, time, lat, lon)
                    case .uncertain where first:
                        s.entries.append(.init(fence: f, seen: stamp, since: time, inside: false, dwellFired: false))
                    default:
                        break
                    }
                }
            }
            // Fences the index did not report are certainly outside (margin included).
            var k = 0
            while k < s.entries.count {
                let e = s.entries[k]
                if e.seen != stamp {
                    if e.inside { Evaluator.emit(e.fence, .exit, false, opt, &s, device, time, lat, lon) }
                    Evaluator.removeEntry(k, &s)
                    continue
                }
                if e.inside && !e.dwellFired {
                    let d = opt[Int(e.fence)].dwell
                    if d >= 0 && time - e.since >= d {
                        s.entries[k].dwellFired = true
                        Evaluator.emit(e.fence, .dwell, false, opt, &s, device, time, lat, lon)
                    }
                }
                k += 1
            }
            // This fix's events by fence identifier, then type (insertion sort: a handful at most).
            let end = s.events.count
            if end - eventStart > 1 {
                @inline(__always) func before(_ a: EvaluationEvent, _ b: EvaluationEvent) -> Bool {
                    a.fence == b.fence ? a.type.rawValue < b.type.rawValue : opt[Int(a.fence)].rank < opt[Int(b.fence)].rank
                }
                for i in (eventStart + 1)..<end {
                    let x = s.events[i]
                    var j = i
                    while j > eventStart && before(x, s.events[j - 1]) { s.events[j] = s.events[j - 1]; j -= 1 }
                    s.events[j] = x
                }
            }
        }
    }

    @inline(__always)
    static func removeEntry(_ k: Int, _ s: inout DeviceTracker) {
        let last = s.entries.count - 1
        if k != last { s.entries[k] = s.entries[last] }
        s.entries.removeLast()
    }

    /// Appends an event unless the fence's options filter it (notify flags) or
    /// it is one-shot and already fired.
    @inline(__always)
    static func emit(_ fence: Int32, _ type: EventType, _ initial: Bool, _ opt: UnsafeBufferPointer<SlotOptions>,
                     _ s: inout DeviceTracker, _ device: Int32, _ time: Double, _ lat: Double, _ lon: Double) {
        let flags = opt[Int(fence)].flags
        switch type {
        case .enter: if flags & SlotOptions.notifyEntry == 0 { return }
        case .exit: if flags & SlotOptions.notifyExit == 0 { return }
        case .dwell: break
        }
        if flags & SlotOptions.oneShot != 0 {
            if s.consumed.contains(fence) { return }
            s.consumed.append(fence)
        }
        s.events.append(EvaluationEvent(device: device, fence: fence, type: type, initial: initial, time: time, lat: lat, lon: lon))
    }
}
