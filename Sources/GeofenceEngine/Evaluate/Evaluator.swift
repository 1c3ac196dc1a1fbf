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

    public init(index: FenceIndex, options: CompiledOptions, settings: EvaluationSettings) {
        self.index = index
        self.options = options
        self.settings = settings
    }

    /// Scratch space of one thread.
    public struct Worker {
        var candidates: [FenceClassification] = []
        var pending: [EvaluationEvent] = []
        public init() { candidates.reserveCapacity(64); pending.reserveCapacity(16) }
    }

    /// Applies one fix to a device's state and appends its events (sorted by fence identifier).
    /// - Complexity: one index query plus O(k·m) for k candidate fences and m fences the device is in.
    func process(device: Int32, time: Double, lat: Double, lon: Double, accuracy: Double,
                 state s: inout DeviceTracker, worker w: inout Worker) {
        index.classify(lat: lat, lon: lon, accuracy: accuracy, exitMargin: settings.exitMargin, into: &w.candidates)
        s.stamp &+= 1
        let stamp = s.stamp
        let first = !s.started
        s.started = true
        w.pending.removeAll(keepingCapacity: true)

        @inline(__always) func emit(_ fence: Int32, _ type: EventType, initial: Bool) {
            let allowed: Bool
            switch type {
            case .enter: allowed = options.notifyOnEntry[Int(fence)]
            case .exit: allowed = options.notifyOnExit[Int(fence)]
            case .dwell: allowed = true
            }
            guard allowed else { return }
            if !options.repeats[Int(fence)] {
                if s.consumed.contains(fence) { return }
                s.consumed.append(fence)
            }
            w.pending.append(EvaluationEvent(device: device, fence: fence, type: type, initial: initial, time: time, lat: lat, lon: lon))
        }

        for c in w.candidates {
            let f = c.slot
            if let k = s.find(f) {
                s.entries[k].seen = stamp
                if s.entries[k].inside {
                    if c.state == .outside {
                        emit(f, .exit, initial: false)
                        s.entries.remove(at: k)
                    }
                } else {
                    switch c.state {
                    case .inside:
                        s.entries[k].inside = true
                        s.entries[k].since = time
                        emit(f, .enter, initial: true)
                    case .outside, .outsideWithinMargin:
                        s.entries.remove(at: k)          // unknown -> outside: no event
                    case .uncertain:
                        break
                    }
                }
            } else {
                // No entry: outside (determined), or the device's very first fix.
                switch c.state {
                case .inside:
                    s.entries.append(.init(fence: f, inside: true, since: time, dwellFired: false, seen: stamp))
                    emit(f, .enter, initial: first)
                case .uncertain where first:
                    s.entries.append(.init(fence: f, inside: false, since: time, dwellFired: false, seen: stamp))
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
                if e.inside { emit(e.fence, .exit, initial: false) }
                s.entries.remove(at: k)
                continue
            }
            if e.inside, !e.dwellFired {
                let d = options.dwell[Int(e.fence)]
                if d >= 0, time - e.since >= d {
                    s.entries[k].dwellFired = true
                    emit(e.fence, .dwell, initial: false)
                }
            }
            k += 1
        }
        if w.pending.count > 1 {
            let rank = options.idRank
            w.pending.sort { a, b in
                a.fence == b.fence ? a.type.rawValue < b.type.rawValue : rank[Int(a.fence)] < rank[Int(b.fence)]
            }
        }
        s.events.append(contentsOf: w.pending)
    }
}
