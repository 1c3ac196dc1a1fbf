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

    mutating func add(_ o: SimulationCounts) {
        truthEnter += o.truthEnter; truthExit += o.truthExit
        detectedEnter += o.detectedEnter; detectedExit += o.detectedExit
        matchedEnter += o.matchedEnter; matchedExit += o.matchedExit
        delays += o.delays
        registrations += o.registrations; removals += o.removals; replans += o.replans
        metres += o.metres; seconds += o.seconds; brokenSeconds += o.brokenSeconds
    }

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
        let planner = Planner(index: compiled.index, circles: circles,
                              settings: .init(slots: os.slots, minRadius: os.minRadius, maxRadius: os.maxRadius, clusters: clusters, exitDistance: os.exitDistance),
                              strategy: strategy)
        let requestsState = strategy == .guaranteed
        var registered: [Registered] = []
        var pending: [Pending] = []
        var appInside = Set<Int32>()        // fences the app believes it is inside
        var polygonWatch = Set<Int32>()      // polygons whose enclosing circle the OS says we are in
        var detected: [ReportedEvent] = []
        var brokenSince: Double? = nil
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

        func replan(_ f: Fix, initial: Bool) {
            let plan = planner.plan(lat: f.lat, lon: f.lon, accuracy: f.accuracy)
            let new = plan.regions(circles: circles)
            plans.append((f.time, new))
            let diff = PlanDiff(from: registered.map(\.region), to: new)
            counts.registrations += diff.adds.count
            counts.removals += diff.removes.count
            if !initial { counts.replans += 1 }
            let removed = Set(diff.removes)
            registered.removeAll { removed.contains($0.region) }
            pending.removeAll { removed.contains($0.region) }
            for r in diff.adds {
                // A new registration: the OS learns its state silently; the app asks for it if it requests state.
                let inside = osInside(r, f)
                registered.append(Registered(region: r, inside: inside))
                guard case .fence(let s) = r.kind else { continue }
                if inside, requestsState || initial {
                    if refined(s) { polygonWatch.insert(s) } else { report(s, .enter, f.time) }
                } else if !inside, appInside.contains(s), !refined(s) {
                    // The app believed it was inside a fence it had stopped watching: asking the
                    // state reveals the exit (late); without asking, the exit is lost.
                    if requestsState { report(s, .exit, f.time) } else { appInside.remove(s) }
                }
            }
            // Polygons no longer registered cannot be refined any more.
            let still = Set(registered.compactMap { r -> Int32? in if case .fence(let s) = r.region.kind { return s }; return nil })
            polygonWatch = polygonWatch.filter { still.contains($0) }
            if plan.guaranteeBroken { if brokenSince == nil { brokenSince = f.time } }
            else if let b = brokenSince { counts.brokenSeconds += f.time - b; brokenSince = nil }
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
        var previous = first
        for f in fixes {
            counts.metres += Geodesic.wgs84.distance(lat1: previous.lat, lon1: previous.lon, lat2: f.lat, lon2: f.lon)
            previous = f
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
            // 3. The app, awake inside the OS region of a refined fence, tests the true shape.
            for s in polygonWatch.sorted() {
                let inside = index.contains(s, lat: f.lat, lon: f.lon)
                if inside { report(s, .enter, f.time) } else if appInside.contains(s) { report(s, .exit, f.time) }
            }
            if needReplan { replan(f, initial: false) }
        }
        if let b = brokenSince { counts.brokenSeconds += fixes.last!.time - b }
        counts.seconds = fixes.last!.time - first.time
        match(truth: truth, detected: detected, counts: &counts)
        out += detected
        return counts
    }

    /// Greedy matching per (fence, type) in time order within `matchWindow`.
    func match(truth: [ReportedEvent], detected: [ReportedEvent], counts: inout SimulationCounts) {
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
                    cands.remove(at: j)
                    if key.type == .enter { counts.matchedEnter += 1 } else { counts.matchedExit += 1 }
                }
            }
        }
    }
}
