import GeofenceBase
import GeofenceLogs
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import Geodesy
import GeofencePlanning

/// An event the simulated app reports (what the device would see), or a ground-truth event.
public struct ReportedEvent: Hashable, Sendable {
    /// Device index (``Fix/device``).
    public var device: Int32
    /// Fence index into ``CompiledFences/fences``.
    public var fence: Int32
    /// `enter` or `exit` (ground-truth dwell events are dropped).
    public var type: EventType
    /// Unix seconds: for ground truth the fix's time; for a reported event its delivery time
    /// (the fix's time plus ``OSModel/delay`` for an OS event).
    public var time: Double

    /// An event from its parts.
    public init(device: Int32, fence: Int32, type: EventType, time: Double) {
        self.device = device; self.fence = fence; self.type = type; self.time = time
    }
}

/// The speed classes the simulator reports apart (docs/rotation.md#speed-classes), by the
/// speed of each segment between consecutive fixes (distance ÷ time).
public enum SpeedClass: Int, CaseIterable, Sendable {
    /// Under 3 m/s (walking, a ship in harbour, standing still).
    case walking
    /// 3 to 40 m/s (cars, bicycles, ships under way).
    case road
    /// 40 to 100 m/s (trains, an aircraft taxiing or on approach).
    case rail
    /// 100 m/s and over (aircraft), and a jump with no time between two fixes.
    case air

    /// The name in the table and the JSON: `walking`, `road`, `rail`, `air`.
    public var name: String { ["walking", "road", "rail", "air"][rawValue] }
    /// The class's range for the table, e.g. `< 3 m/s`.
    public var range: String { ["< 3 m/s", "3-40 m/s", "40-100 m/s", ">= 100 m/s"][rawValue] }

    /// The class of a segment of `metres` covered in `seconds` (no time and some distance: `air`).
    public init(metres: Double, seconds: Double) {
        let v = seconds > 0 ? metres / seconds : (metres > 0 ? .infinity : 0)
        self = v < 3 ? .walking : v < 40 ? .road : v < 100 ? .rail : .air
    }
}

/// The strategies' parameters a simulation uses (what `--sweep` varies): the guaranteed
/// strategy's horizon and speed cap, the baselines' refresh radii (docs/rotation.md).
public struct StrategyTuning: Hashable, Sendable {
    /// Guaranteed: metres beyond the reach within which free slots are filled
    /// (``Planner/Settings/horizon``); nil (the default) for the adaptive horizon
    /// (``Planner/Settings/adaptiveHorizon``).
    public var horizon: Double? = nil
    /// Guaranteed: the largest speed believed, m/s (``Planner/Settings/speedCap``); default 300;
    /// 0 gives the instant-OS planner.
    public var speedCap = 300.0
    /// Guaranteed: the largest acceleration believed, m/s² (``Planner/Settings/acceleration``);
    /// default 0.2.
    public var acceleration = 0.2
    /// `trigger`: the movement trigger radius in metres; default 1000.
    public var triggerRadius = 1000.0
    /// `centre`: the refresh radius in metres; default 2500.
    public var centreRadius = 2500.0
    /// The defaults listed above.
    public init() {}
}

/// Counters of one strategy on one device (or summed over devices); the metrics of
/// docs/rotation.md#the-simulator. All zero initially.
public struct SimulationCounts: Sendable {
    /// Ground-truth `enter` and `exit` events.
    public var truthEnter = 0, truthExit = 0
    /// `enter` and `exit` events the simulated app reported.
    public var detectedEnter = 0, detectedExit = 0
    /// Ground-truth `enter` and `exit` events matched by a reported event of the same device,
    /// fence and type within ``Simulator/matchWindow``.
    public var matchedEnter = 0, matchedExit = 0
    /// Seconds from each matched ground-truth event to its reported event (negative when the
    /// app reported it early, e.g. through a circle enlarged to the OS minimum).
    public var delays: [Double] = []
    /// Regions registered, the first plan's included.
    public var registrations = 0
    /// Regions removed at re-plans.
    public var removals = 0
    /// Re-plans, the first plan not counted.
    public var replans = 0
    /// Distance travelled in metres: the sum of geodesics between consecutive fixes.
    public var metres = 0.0
    /// Time covered in seconds: last fix − first fix (per device, summed).
    public var seconds = 0.0
    /// Seconds spent under plans marked broken (until the next unbroken plan or the last fix).
    public var brokenSeconds = 0.0
    /// The same counters split by ``SpeedClass`` (indexed by its raw value; empty inside a
    /// class's own counts): segments by their speed, a plan by the speed of the segment ending
    /// at its fix, an event by the segment ending at the fix of its time.
    public var classes: [SimulationCounts] = []

    /// Adds `o`'s counters (and its classes') to these.
    mutating func add(_ o: SimulationCounts) {
        if !o.classes.isEmpty {
            if classes.isEmpty { classes = Array(repeating: SimulationCounts(), count: o.classes.count) }
            for k in o.classes.indices { classes[k].add(o.classes[k]) }
        }
        truthEnter += o.truthEnter; truthExit += o.truthExit
        detectedEnter += o.detectedEnter; detectedExit += o.detectedExit
        matchedEnter += o.matchedEnter; matchedExit += o.matchedExit
        delays += o.delays
        registrations += o.registrations; removals += o.removals; replans += o.replans
        metres += o.metres; seconds += o.seconds; brokenSeconds += o.brokenSeconds
    }

    mutating func addMatch(_ e: ReportedEvent, delay: Double) {
        delays.append(delay)
        if e.type == .enter { matchedEnter += 1 } else { matchedExit += 1 }
    }
    mutating func addTruth(_ e: ReportedEvent) { if e.type == .enter { truthEnter += 1 } else { truthExit += 1 } }
    mutating func addDetected(_ e: ReportedEvent) { if e.type == .enter { detectedEnter += 1 } else { detectedExit += 1 } }

    static func ratio(_ a: Int, _ b: Int) -> Double? { b == 0 ? nil : Double(a) / Double(b) }
    /// Matched ÷ ground-truth `enter` events, in [0, 1]; nil when there are none.
    public var recallEnter: Double? { Self.ratio(matchedEnter, truthEnter) }
    /// Matched ÷ ground-truth `exit` events, in [0, 1]; nil when there are none.
    public var recallExit: Double? { Self.ratio(matchedExit, truthExit) }
    /// Matched ÷ reported `enter` events, in [0, 1]; nil when none were reported.
    public var precisionEnter: Double? { Self.ratio(matchedEnter, detectedEnter) }
    /// Matched ÷ reported `exit` events, in [0, 1]; nil when none were reported.
    public var precisionExit: Double? { Self.ratio(matchedExit, detectedExit) }
    /// Regions registered per kilometre travelled; nil when the device did not move.
    public var registrationsPerKm: Double? { metres > 0 ? Double(registrations) / (metres / 1000) : nil }
    /// Regions removed per kilometre travelled; nil when the device did not move.
    public var removalsPerKm: Double? { metres > 0 ? Double(removals) / (metres / 1000) : nil }
    /// Regions registered per hour; nil when no time passed.
    public var registrationsPerHour: Double? { seconds > 0 ? Double(registrations) / (seconds / 3600) : nil }
    /// Re-plans per hour; nil when no time passed.
    public var replansPerHour: Double? { seconds > 0 ? Double(replans) / (seconds / 3600) : nil }

    /// The `p` quantile of ``delays`` in seconds, by nearest rank over the sorted delays
    /// (index `round(p × (n − 1))`); `p` in [0, 1], values outside are clamped. Nil when
    /// nothing matched.
    /// - Complexity: O(n log n) for n delays (they are sorted on every call).
    public func percentile(_ p: Double) -> Double? {
        guard !delays.isEmpty else { return nil }
        let s = delays.sorted()
        let k = min(s.count - 1, max(0, Int((p * Double(s.count - 1)).rounded())))
        return s[k]
    }

    /// The strategy object of the report JSON (docs/rotation.md#the-simulator), without its
    /// `name`: ratios and delays rounded to 4 decimals (`null` when undefined),
    /// `guarantee_broken_s` in whole seconds, `km` and `hours` to 2 decimals.
    /// - Complexity: O(n log n) for n delays.
    public var json: JSONValue {
        func n(_ d: Double?) -> JSONValue { d.map { .number(($0 * 10000).rounded() / 10000) } ?? .null }
        return .object([
            ("recall", .object([("enter", n(recallEnter)), ("exit", n(recallExit))])),
            ("precision", .object([("enter", n(precisionEnter)), ("exit", n(precisionExit))])),
            ("delay_s", .object([("p50", n(percentile(0.5))), ("p95", n(percentile(0.95)))])),
            ("registrations_per_km", n(registrationsPerKm)),
            ("removals_per_km", n(removalsPerKm)),
            ("registrations_per_hour", n(registrationsPerHour)),
            ("replans_per_hour", n(replansPerHour)),
            ("guarantee_broken_s", .number(brokenSeconds.rounded())),
            ("events", .object([("truth_enter", .number(Double(truthEnter))), ("truth_exit", .number(Double(truthExit))),
                                 ("detected_enter", .number(Double(detectedEnter))), ("detected_exit", .number(Double(detectedExit))),
                                 ("matched_enter", .number(Double(matchedEnter))), ("matched_exit", .number(Double(matchedExit)))])),
            ("registrations", .number(Double(registrations))), ("removals", .number(Double(removals))),
            ("replans", .number(Double(replans))), ("km", .number((metres / 10).rounded() / 100)),
            ("hours", .number((seconds / 36).rounded() / 100)),
        ])
    }

    /// Matched enter and exit events ÷ ground-truth enter and exit events; nil when there are none.
    public var recall: Double? { Self.ratio(matchedEnter + matchedExit, truthEnter + truthExit) }
}

/// Replays each device's fixes through a rotation strategy and an OS model, and compares
/// what the app would report with full evaluation of the same trace (docs/rotation.md).
///
/// The app model: at start it plans and asks the state of every region; each OS event is
/// delivered `delay` seconds after the fix that caused it; leaving the refresh region or
/// entering a cluster region re-plans at the current fix; after a re-plan the guaranteed
/// strategy asks the state of newly registered regions (`requestState`), the baselines do
/// not. A polygon is monitored as its enclosing circle, and a circle under the OS minimum
/// radius as a circle of that minimum; while the OS says the device is inside that region
/// the app is awake and tests the fence's true shape at every fix.
public struct Simulator: Sendable {
    /// The fences: their true shapes (for refined fences) and the index the planner queries.
    public let compiled: CompiledFences
    /// The circle the OS is given for each fence, indexed like `compiled.fences`: a circle
    /// fence itself, a polygon's enclosing circle.
    public let circles: [OSCircle]
    /// The simulated OS.
    public let os: OSModel
    /// Events are matched to ground truth of the same device, fence and type within this
    /// window, in seconds either side; default 900 (15 minutes).
    public var matchWindow = 900.0
    /// The strategies' parameters; default ``StrategyTuning/init()``.
    public var tuning = StrategyTuning()

    /// The planner settings of this simulator's OS model and tuning.
    public func settings(clusters: Bool) -> Planner.Settings {
        var s = Planner.Settings(slots: os.slots, minRadius: os.minRadius, maxRadius: os.maxRadius, clusters: clusters, exitDistance: os.exitDistance)
        s.delay = os.delay
        s.speedCap = tuning.speedCap
        s.acceleration = tuning.acceleration
        if let h = tuning.horizon { s.horizon = h } else { s.adaptiveHorizon = true }
        s.triggerRadius = tuning.triggerRadius
        s.centreRadius = tuning.centreRadius
        return s
    }

    /// The app's estimate of the device's motion at fix `i` of `fixes` (docs/rotation.md#speed):
    /// over the last (up to) 5 segments ending at it with time between their fixes, the speed is
    /// the largest segment speed, the observation interval the median segment time (the upper
    /// one of an even count), the heading the initial azimuth of the last segment longer than
    /// 10 m. No such segment (the first fix): ``Planner/Motion/still``, and `known` false.
    public static func motion(_ fixes: [Fix], at i: Int) -> Planner.Motion { motionEstimate(fixes, at: i).motion }

    /// ``motion(_:at:)`` and whether it rests on at least one segment with time.
    static func motionEstimate(_ fixes: [Fix], at i: Int) -> (motion: Planner.Motion, known: Bool) {
        var speed = 0.0, times: [Double] = [], heading: Double? = nil
        var j = i
        while j > 0, times.count < 5 {
            let a = fixes[j - 1], b = fixes[j]
            let dt = b.time - a.time
            if dt > 0 {
                let g = Geodesic.wgs84.inverse(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
                speed = max(speed, g.distance / dt)
                times.append(dt)
                if heading == nil, g.distance > 10 { heading = g.azimuth1 }
            }
            j -= 1
        }
        guard !times.isEmpty else { return (.still, false) }
        times.sort()
        return (Planner.Motion(speed: speed, interval: times[times.count / 2], heading: heading), true)
    }

    /// A simulator; `circles` must have one entry per fence of `compiled`.
    public init(compiled: CompiledFences, circles: [OSCircle], os: OSModel) {
        self.compiled = compiled; self.circles = circles; self.os = os
    }

    struct Registered {
        var region: Region
        /// nil unknown, true inside, false outside (the OS's view).
        var inside: Bool?
    }

    struct Pending {
        var time: Double
        var region: Region
        var enter: Bool
    }

    /// Simulates one device; `fixes` are that device's fixes in time order, `truth` its ground-truth events.
    /// The events the app reports are appended to `out`; the returned counts include the
    /// matching against `truth`. No fixes: zero counts, nothing appended.
    /// - Precondition: `os.slots` ≥ 2 when `fixes` is not empty (the planner traps otherwise).
    /// - Complexity: O(fixes × registered regions) geodesics, plus a plan per re-plan and
    ///   O(truth × reported) for the matching.
    public func run(strategy: Planner.Strategy, clusters: Bool = true, device: Int32, fixes: [Fix], truth: [ReportedEvent],
                    detected out: inout [ReportedEvent]) -> SimulationCounts {
        var plans: [(time: Double, regions: [Region])] = []
        return run(strategy: strategy, clusters: clusters, device: device, fixes: fixes, truth: truth, detected: &out, plans: &plans)
    }

    /// As above, also recording every plan's registered regions (for `geofence render`):
    /// one `(time, regions)` entry per plan, the first plan's included, appended to `plans`.
    /// - Precondition: `os.slots` ≥ 2 when `fixes` is not empty (the planner traps otherwise).
    /// - Complexity: as ``run(strategy:clusters:device:fixes:truth:detected:)``.
    public func run(strategy: Planner.Strategy, clusters: Bool = true, device: Int32, fixes: [Fix], truth: [ReportedEvent],
                    detected out: inout [ReportedEvent], plans: inout [(time: Double, regions: [Region])]) -> SimulationCounts {
        var counts = SimulationCounts()
        guard let first = fixes.first else { return counts }
        let planner = Planner(index: compiled.index, circles: circles, settings: settings(clusters: clusters), strategy: strategy)
        // The speed class of each fix: that of the segment ending at it (the first fix: the first segment's).
        var fixClass = [SpeedClass](repeating: .walking, count: fixes.count)
        var segmentMetres = [Double](repeating: 0, count: fixes.count)
        for i in fixes.indices.dropFirst() {
            let a = fixes[i - 1], b = fixes[i]
            segmentMetres[i] = Geodesic.wgs84.distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
            fixClass[i] = SpeedClass(metres: segmentMetres[i], seconds: b.time - a.time)
        }
        if fixes.count > 1 { fixClass[0] = fixClass[1] }
        var classes = Array(repeating: SimulationCounts(), count: SpeedClass.allCases.count)
        var current = 0                      // index of the fix being replayed
        let requestsState = strategy == .guaranteed
        var registered: [Registered] = []
        var pending: [Pending] = []
        var appInside = Set<Int32>()        // fences the app believes it is inside
        var polygonWatch = Set<Int32>()      // polygons whose enclosing circle the OS says we are in
        var detected: [ReportedEvent] = []
        let index = compiled.index

        func report(_ fence: Int32, _ type: EventType, _ t: Double) {
            if type == .enter { guard appInside.insert(fence).inserted else { return } }
            else { guard appInside.remove(fence) != nil else { return } }
            detected.append(ReportedEvent(device: device, fence: fence, type: type, time: t))
        }

        func effectiveRadius(_ r: Region) -> Double { max(r.radius, os.minRadius) }
        // Fences the OS sees differently from their true shape (polygons as circles, circles
        // enlarged to the OS minimum): the app, woken inside the OS region, tests the true shape.
        func refined(_ s: Int32) -> Bool { index.isPolygon(s) || circles[Int(s)].radius < os.minRadius }

        func osInside(_ r: Region, _ f: Fix) -> Bool {
            Geodesic.wgs84.distance(lat1: r.lat, lon1: r.lon, lat2: f.lat, lon2: f.lon) <= effectiveRadius(r)
        }

        var brokenNow = false
        func replan(_ f: Fix, initial: Bool) {
            // Every strategy gets the estimate: the guaranteed one plans with it, the baselines'
            // plans are judged by it (broken when their refresh region exceeds the safe radius).
            let motion = Self.motion(fixes, at: current)
            let plan = planner.plan(lat: f.lat, lon: f.lon, accuracy: f.accuracy, motion: motion)
            let new = plan.regions(circles: circles)
            plans.append((f.time, new))
            let diff = PlanDiff(from: registered.map(\.region), to: new)
            let c = fixClass[current].rawValue
            counts.registrations += diff.adds.count; classes[c].registrations += diff.adds.count
            counts.removals += diff.removes.count; classes[c].removals += diff.removes.count
            if !initial { counts.replans += 1; classes[c].replans += 1 }
            let removed = Set(diff.removes)
            registered.removeAll { removed.contains($0.region) }
            pending.removeAll { removed.contains($0.region) }
            for r in diff.adds {
                // A new registration: the OS learns its state silently; the app asks for it if it requests state.
                let inside = osInside(r, f)
                registered.append(Registered(region: r, inside: inside))
                guard case .fence(let s) = r.kind else { continue }
                if inside, requestsState || initial {
                    // A refined fence: the app, awake with this fix, tests the true shape at once and
                    // keeps testing it at every fix while the OS says it is inside the region.
                    if refined(s) {
                        polygonWatch.insert(s)
                        if index.contains(s, lat: f.lat, lon: f.lon) { report(s, .enter, f.time) }
                    } else { report(s, .enter, f.time) }
                } else if !inside, appInside.contains(s), !refined(s) {
                    // The app believed it was inside a fence it had stopped watching: asking the
                    // state reveals the exit (late); without asking, the exit is lost.
                    if requestsState { report(s, .exit, f.time) } else { appInside.remove(s) }
                }
            }
            if requestsState {
                // A fence the app believes it is inside whose region the plan drops: the app, awake
                // with this fix, tests the fence itself and reports the exit it would otherwise lose.
                for r in diff.removes {
                    guard case .fence(let s) = r.kind, appInside.contains(s) else { continue }
                    if !index.contains(s, lat: f.lat, lon: f.lon) { report(s, .exit, f.time) }
                }
            }
            // Polygons no longer registered cannot be refined any more.
            let still = Set(registered.compactMap { r -> Int32? in if case .fence(let s) = r.region.kind { return s }; return nil })
            polygonWatch = polygonWatch.filter { still.contains($0) }
            brokenNow = plan.guaranteeBroken
        }

        /// Delivers pending OS events due by `time`; returns whether one of them asks for a re-plan.
        func deliver(upTo time: Double) -> Bool {
            var replanNeeded = false
            pending.sort { $0.time < $1.time }
            while let p = pending.first, p.time <= time {
                pending.removeFirst()
                switch p.region.kind {
                case .fence(let s):
                    if refined(s) {
                        if p.enter { polygonWatch.insert(s) } else { polygonWatch.remove(s); report(s, .exit, p.time) }
                    } else {
                        report(s, p.enter ? .enter : .exit, p.time)
                    }
                case .refresh: if !p.enter { replanNeeded = true }
                case .cluster: if p.enter { replanNeeded = true }
                }
            }
            return replanNeeded
        }

        replan(first, initial: true)
        var motionKnown = strategy != .guaranteed
        for (i, f) in fixes.enumerated() {
            current = i
            if i > 0 {
                let dt = f.time - fixes[i - 1].time, c = fixClass[i].rawValue
                counts.metres += segmentMetres[i]; classes[c].metres += segmentMetres[i]
                classes[c].seconds += dt
                if brokenNow { counts.brokenSeconds += dt; classes[c].brokenSeconds += dt }
            }
            // 1. Deliver OS events due by now, in time order.
            var needReplan = deliver(upTo: f.time)
            // 2. The OS observes the position.
            for k in registered.indices {
                let r = registered[k].region
                let d = Geodesic.wgs84.distance(lat1: r.lat, lon1: r.lon, lat2: f.lat, lon2: f.lon)
                let R = effectiveRadius(r)
                switch registered[k].inside {
                case nil:
                    registered[k].inside = d <= R
                case false?:
                    if d <= R {
                        registered[k].inside = true
                        pending.append(Pending(time: f.time + os.delay, region: r, enter: true))
                    }
                case true?:
                    if d > R + os.exitDistance {
                        registered[k].inside = false
                        pending.append(Pending(time: f.time + os.delay, region: r, enter: false))
                    }
                }
            }
            if os.delay == 0 { needReplan = deliver(upTo: f.time) || needReplan }   // ideal OS: at once
            // The guaranteed app planned its first fix without a speed: it stays awake for the next
            // fix that gives one, and plans again there.
            if strategy == .guaranteed, !motionKnown, Self.motionEstimate(fixes, at: i).known { motionKnown = true; needReplan = true }
            // 3. The app, awake inside the OS region of a refined fence, tests the true shape.
            for s in polygonWatch.sorted() {
                let inside = index.contains(s, lat: f.lat, lon: f.lon)
                if inside { report(s, .enter, f.time) } else if appInside.contains(s) { report(s, .exit, f.time) }
            }
            if needReplan { replan(f, initial: false) }
        }
        // The device does not vanish with the log's last fix: OS events already due are delivered
        // (a re-plan they ask for has no fix to plan at and is dropped).
        _ = deliver(upTo: .infinity)
        counts.seconds = fixes.last!.time - first.time
        // Events by the class of the fix at their time (the last fix at or before it).
        func classOf(_ t: Double) -> Int {
            var lo = 0, hi = fixes.count - 1
            while lo < hi { let m = (lo + hi + 1) / 2; if fixes[m].time <= t { lo = m } else { hi = m - 1 } }
            return fixClass[lo].rawValue
        }
        match(truth: truth, detected: detected, counts: &counts) { classes[classOf($0.time)].addMatch($0, delay: $1) }
        for e in truth where e.type != .dwell { classes[classOf(e.time)].addTruth(e) }
        for e in detected { classes[classOf(e.time)].addDetected(e) }
        counts.classes = classes
        out += detected
        return counts
    }

    /// Greedy matching per (fence, type) in time order within `matchWindow`; `matched` is called
    /// with every matched ground-truth event and its delay.
    func match(truth: [ReportedEvent], detected: [ReportedEvent], counts: inout SimulationCounts,
               matched: (ReportedEvent, Double) -> Void = { _, _ in }) {
        struct Key: Hashable { var fence: Int32; var type: EventType }
        var t: [Key: [Double]] = [:], d: [Key: [Double]] = [:]
        for e in truth where e.type != .dwell { t[Key(fence: e.fence, type: e.type), default: []].append(e.time) }
        for e in detected { d[Key(fence: e.fence, type: e.type), default: []].append(e.time) }
        counts.truthEnter += truth.filter { $0.type == .enter }.count
        counts.truthExit += truth.filter { $0.type == .exit }.count
        counts.detectedEnter += detected.filter { $0.type == .enter }.count
        counts.detectedExit += detected.filter { $0.type == .exit }.count
        for (key, times) in t {
            var cands = d[key] ?? []
            for tt in times {
                if let j = cands.firstIndex(where: { abs($0 - tt) <= matchWindow }) {
                    counts.delays.append(cands[j] - tt)
                    matched(ReportedEvent(device: 0, fence: key.fence, type: key.type, time: tt), cands[j] - tt)
                    cands.remove(at: j)
                    if key.type == .enter { counts.matchedEnter += 1 } else { counts.matchedExit += 1 }
                }
            }
        }
    }
}
