import Foundation
import GeofenceIndex
import Geodesy

/// The nearest-K rotation planner of docs/rotation.md, and the two public-SDK baselines.
///
/// Pure Swift over `FenceIndex` (no GEOS), so it could run on a phone.
public struct Planner: Sendable {
    /// How fences are picked and the refresh region sized (docs/rotation.md#baseline-strategies).
    /// The raw values are the names `geofence simulate --strategy` takes.
    public enum Strategy: String, Sendable, CaseIterable {
        /// Ours: boundary ranking, inside fences kept, refresh radius = distance to the nearest
        /// unmonitored fence (clamped), clusters when that distance collapses under the OS minimum.
        case guaranteed
        /// Baseline: rank by centre distance among candidates within 10 km; refresh radius
        /// min(2500 m, accuracy + 2000 m).
        case centre
        /// Baseline: rank by boundary distance; fixed 1000 m movement trigger (clamped 100–5000 m).
        case trigger
    }

    /// The OS model a plan is made for (docs/rotation.md#the-os-model), and the strategies
    /// parameters; radii and distances in metres, times in seconds. The OS defaults are
    /// iOS-like, except `exitDistance` and `delay`, which are 0 here (an instant OS).
    public struct Settings: Hashable, Sendable {
        /// Regions the OS monitors at once (iOS 20, Android 100).
        public var slots = 20
        /// Smallest radius the OS monitors reliably (iOS: about 100 m).
        public var minRadius = 100.0
        /// Largest radius the OS accepts (iOS `maximumRegionMonitoringDistance`, device-dependent).
        public var maxRadius = 100_000.0
        /// Cover dense clusters with one region instead of breaking the guarantee (guaranteed only).
        public var clusters = true
        /// How far past a region's edge the OS reports the exit (guaranteed only): the refresh
        /// radius is shrunk by it, so the re-plan comes before an unmonitored fence is reached.
        public var exitDistance = 0.0
        /// Seconds from the OS noticing a crossing to the app receiving the event (guaranteed
        /// only): the refresh radius is also shrunk by what the device covers meanwhile
        /// (``Motion/speed`` × (delay + ``Motion/interval``), docs/rotation.md#the-guarantee).
        public var delay = 0.0
        /// The largest speed believed, m/s (guaranteed only): estimates above it are taken as it;
        /// default 300 (a jet airliner's ground speed with a strong tail wind). 0 plans as if
        /// the device stood still (the instant-OS planner).
        public var speedCap = 300.0
        /// Guaranteed only: the refresh radius aimed for, metres: the planner monitors the fewest
        /// nearest fences that allow a refresh region this large (fewer registrations, more
        /// re-plans), all free slots when none does; default ∞
        /// (every free slot used). `geofence simulate` uses ``adaptiveHorizon`` unless told otherwise.
        public var horizon = Double.infinity
        /// Guaranteed only: the largest acceleration believed, m/s² (default 0: the speed holds
        /// until the next plan). With it the speed at the refresh region's edge is bounded by
        /// √(v² + 2a·distance) (docs/rotation.md#the-guarantee), so a device at rest is not
        /// assumed to stay slow.
        public var acceleration = 0.0
        /// Guaranteed only: when true, `horizon` is ignored and set at each plan from the local
        /// fence density, d·√(π / 2K) with d the distance to the K-th nearest fence (K the slot
        /// count): about the refresh radius that minimizes registrations per km when fences are
        /// spread evenly (docs/rotation.md#cost). Default false.
        public var adaptiveHorizon = false
        /// The `trigger` baseline's movement trigger radius; default 1000 (clamped 100–5000).
        public var triggerRadius = 1000.0
        /// The `centre` baseline's refresh radius: min(this, accuracy + this − 500); default
        /// 2500 (clamped 100–5000).
        public var centreRadius = 2500.0
        /// Settings from a slot count, radii in metres, the cluster switch and the exit distance in
        /// metres; `Planner.init` requires `slots` ≥ 2. The other parameters keep their defaults.
        public init(slots: Int = 20, minRadius: Double = 100, maxRadius: Double = 100_000, clusters: Bool = true, exitDistance: Double = 0) {
            self.slots = slots; self.minRadius = minRadius; self.maxRadius = maxRadius; self.clusters = clusters
            self.exitDistance = exitDistance
        }
    }

    /// The device's motion when a plan is made, as the app estimates it from its last fixes
    /// (docs/rotation.md#speed): the guaranteed strategy shrinks the refresh region by what the
    /// device can cover before the next plan is in place, and ranks fences ahead first where
    /// the slots cannot hold the guarantee.
    public struct Motion: Hashable, Sendable {
        /// Estimated ground speed, m/s (≥ 0; capped by ``Settings/speedCap`` when planning).
        public var speed: Double
        /// Seconds between the OS's observations of the position (the fix interval in the
        /// simulator): a crossing is noticed at most this late.
        public var interval: Double
        /// Course over ground, degrees clockwise from north; nil when unknown.
        public var heading: Double?
        /// A motion from speed (m/s), observation interval (s) and heading (degrees, or nil).
        public init(speed: Double, interval: Double, heading: Double? = nil) {
            self.speed = speed; self.interval = interval; self.heading = heading
        }
        /// Standing still (what the planner assumes without an estimate).
        public static let still = Motion(speed: 0, interval: 0)
    }

    /// The fences planned over; plans name them by slot.
    public let index: FenceIndex
    /// The circle the OS monitors for each fence, indexed by slot: a circle fence's own
    /// circle, a polygon's enclosing circle.
    public let circles: [OSCircle]
    /// The OS model: slot count, radius limits, clusters and exit distance.
    public let settings: Settings
    /// The strategy `plan(lat:lon:accuracy:)` follows.
    public let strategy: Strategy

    /// The largest OS circle radius (bounds the centre-distance candidate query).
    let maxCircleRadius: Double

    /// A planner over `index` with one OS circle per slot.
    /// - Precondition: `settings.slots` ≥ 2 (at least one fence slot besides the refresh region),
    ///   and `circles` has an entry for every slot of `index` (`index.slotCount`).
    /// - Complexity: O(circles) (finds the largest radius).
    public init(index: FenceIndex, circles: [OSCircle], settings: Settings, strategy: Strategy) {
        precondition(settings.slots >= 2, "a plan needs at least one fence slot and the refresh region")
        self.index = index; self.circles = circles; self.settings = settings; self.strategy = strategy
        maxCircleRadius = circles.map(\.radius).max() ?? 0
    }

    /// Plans at a position.
    /// `accuracy` (metres) is used by the `centre` strategy only (its refresh radius); `motion`
    /// by the guaranteed strategy to plan (docs/rotation.md#the-guarantee), and by the baselines
    /// only to judge whether their plan keeps the same guarantee (`broken`).
    /// - Precondition: `lat` in [-90, 90] and `lon` finite (the index's queries require it).
    /// - Complexity: one nearest-K query (plus one radius query when clustering, and one
    ///   nearest-3K query when the slots cannot hold the guarantee at the device's speed).
    public func plan(lat: Double, lon: Double, accuracy: Double = 0, motion: Motion = .still) -> Plan {
        switch strategy {
        case .guaranteed: return planGuaranteed(lat: lat, lon: lon, motion: motion)
        case .centre: return planCentre(lat: lat, lon: lon, accuracy: accuracy, motion: motion)
        case .trigger: return planTrigger(lat: lat, lon: lon, motion: motion)
        }
    }

    func geodesic(_ lat: Double, _ lon: Double, _ c: OSCircle) -> Double {
        Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: c.lat, lon2: c.lon)
    }

    func tooLarge(_ fences: [Int32]) -> [String] {
        fences.filter { circles[Int($0)].radius > settings.maxRadius }.map {
            "fence \(index.identifier(of: $0)) needs a \(Planner.metres(circles[Int($0)].radius)) region, over the OS maximum \(Planner.metres(settings.maxRadius))"
        }
    }

    /// The distance the device can cover between the plan and the next one being in place,
    /// beyond the refresh region's edge, at its current speed (docs/rotation.md#the-guarantee):
    /// the exit distance, plus speed × (delay + observation interval) when the OS delays its
    /// events. With an acceleration the refresh radius is computed by
    /// ``safeRadius(coverage:motion:)`` instead, which is never larger.
    public func reach(for motion: Motion) -> Double {
        settings.exitDistance + speed(motion) * reactionTime(motion)
    }

    /// The speed planned for, m/s: the estimate clamped to [0, ``Settings/speedCap``] (an
    /// unknown or infinite estimate counts as the cap).
    public func speed(_ motion: Motion) -> Double {
        motion.speed.isFinite ? min(max(motion.speed, 0), settings.speedCap) : settings.speedCap
    }

    /// Seconds from a crossing to the new plan being in place: delay + observation interval,
    /// or 0 when the OS has no delay (the event comes at the fix that crosses, docs/rotation.md).
    public func reactionTime(_ motion: Motion) -> Double {
        settings.delay > 0 ? settings.delay + (motion.interval.isFinite ? max(0, motion.interval) : 0) : 0
    }

    /// The largest refresh radius that keeps the guarantee when the nearest unmonitored fence is
    /// `coverage` metres away (may be negative: none does). With speed v, acceleration a, cap
    /// V, reaction time T and exit distance e: the device that reaches x = radius + e (where the
    /// OS notices it) goes at most u = √(v² + 2ax) ≤ V there, and covers at most uT more
    /// before the new plan; the largest x with x + uT ≤ coverage is x = (u*² − v²) / 2a with
    /// u* = √(a²T² + v² + 2a·coverage) − aT (when u* > V: coverage − VT; when u* < v:
    /// coverage − vT). With a = 0: coverage − e − vT.
    public func safeRadius(coverage: Double, motion: Motion) -> Double {
        let v = speed(motion), t = reactionTime(motion), a = settings.acceleration, e = settings.exitDistance
        guard coverage.isFinite else { return coverage }
        guard a > 0, t > 0 else { return coverage - e - v * t }
        let u = (a * a * t * t + v * v + 2 * a * coverage).squareRoot() - a * t
        if u > settings.speedCap { return coverage - settings.speedCap * t - e }
        if u < v { return coverage - v * t - e }
        return (u * u - v * v) / (2 * a) - e
    }

    func planGuaranteed(lat: Double, lon: Double, motion: Motion) -> Plan {
        let k = settings.slots
        let reach = reach(for: motion)
        let found = index.nearest(k, lat: lat, lon: lon)
        var broken: [String] = []
        let inside = found.prefix { $0.distance == 0 }.count
        if inside >= k {
            broken.append("the device is inside at least \(k) fences, more than the \(k - 1) fence slots")
        }
        var horizon = settings.horizon
        if settings.adaptiveHorizon {
            horizon = found.count >= k ? found[k - 1].distance * (Double.pi / Double(2 * k)).squareRoot() : .infinity
        }
        // The fewest nearest fences (at least those the device is inside) whose nearest unmonitored
        // fence allows a refresh radius of the horizon; all k-1 slots when none does.
        var n = min(k - 1, found.count)
        let target = max(horizon, settings.minRadius)
        if target.isFinite {
            var m = inside
            while m < n, safeRadius(coverage: found[m].distance, motion: motion) < target { m += 1 }
            n = m
        }
        var fences = found.prefix(n).map(\.slot)
        var clusters: [Region] = []
        var coverage = found.count > n ? found[n].distance : .infinity
        if safeRadius(coverage: coverage, motion: motion) < settings.minRadius, n == k - 1, settings.clusters, k >= 3, inside < k - 1 {
            // Too dense for a refresh region of the OS minimum: monitor the k-2 nearest, and one
            // circle covering every other fence within reach, provided the device is outside it.
            let near = index.within(settings.minRadius + reach, ofLat: lat, lon: lon)
            var monitored = Array(found.prefix(k - 2).map(\.slot))
            if monitored.count < inside { monitored = Array(found.prefix(inside).map(\.slot)) }
            let kept = Set(monitored)
            let rest = near.filter { !kept.contains($0) }
            if let cover = coveringCircle(rest), geodesic(lat, lon, cover) > cover.radius + 1, cover.radius <= settings.maxRadius {
                fences = monitored
                clusters = [Region(kind: .cluster(rest.sorted()), lat: cover.lat, lon: cover.lon, radius: cover.radius)]
                let covered = Set(rest).union(kept)
                let beyond = index.nearest(covered.count + 1, lat: lat, lon: lon).first { !covered.contains($0.slot) }
                coverage = beyond?.distance ?? .infinity
            }
        }
        var refresh: Region? = nil
        var planned = reach
        if coverage.isFinite {
            var r = safeRadius(coverage: coverage, motion: motion)
            planned = coverage - r
            if r < settings.minRadius {
                let moving = reach - settings.exitDistance
                if moving > 0 || (settings.acceleration > 0 && reactionTime(motion) > 0) {
                    let v = speed(motion)
                    broken.append("at \(String(format: "%.1f", v)) m/s the device covers up to \(Self.metres(reach)) before a new plan is in place (OS delay, observation interval and exit distance); the nearest unmonitored fence is \(Self.metres(coverage)) away, leaving less than the OS minimum radius \(Self.metres(settings.minRadius))")
                    if clusters.isEmpty, let heading = motion.heading, v > 0, inside < k - 1 {
                        (fences, coverage) = aheadFirst(lat: lat, lon: lon, heading: heading, inside: inside)
                    }
                } else {
                    broken.append(settings.exitDistance > 0
                        ? "the nearest unmonitored fence is \(Self.metres(coverage)) away; less the OS exit distance \(Self.metres(settings.exitDistance)) that is under the OS minimum radius \(Self.metres(settings.minRadius))"
                        : "the nearest unmonitored fence is \(Self.metres(coverage)) away, under the OS minimum radius \(Self.metres(settings.minRadius))")
                }
                r = settings.minRadius
            }
            r = min(r, settings.maxRadius)
            refresh = Region(kind: .refresh, lat: lat, lon: lon, radius: r)
        }
        broken += tooLarge(fences)
        return Plan(lat: lat, lon: lon, fences: fences, clusters: clusters, refresh: refresh, coverage: coverage, broken: broken,
                    reach: planned)
    }

    /// Where the slots cannot hold the guarantee at the device's speed: among the 3(k − 1)
    /// nearest fences, monitor the k − 1 the device reaches first if it keeps its heading,
    /// ranked by time to reach, boundary distance ÷ (speed × max(cos θ, ¼)) with θ the angle
    /// between the heading and the initial bearing (on the sphere) to the fence's OS circle centre (fences it
    /// is inside first; ties by distance, then identifier). Returns the fences, nearest-time
    /// first, and the distance to the nearest fence left out.
    func aheadFirst(lat: Double, lon: Double, heading: Double, inside: Int) -> ([Int32], Double) {
        let k = settings.slots
        let candidates = index.nearest(3 * (k - 1), lat: lat, lon: lon)
        guard candidates.count > k - 1 else {
            return (candidates.prefix(k - 1).map(\.slot), candidates.count > k - 1 ? candidates[k - 1].distance : .infinity)
        }
        var scored: [(rank: Int, score: Double)] = []
        scored.reserveCapacity(candidates.count)
        for (i, c) in candidates.enumerated() {
            if c.distance == 0 { scored.append((i, -1)); continue }
            let o = circles[Int(c.slot)]
            let azimuth = Self.bearing(lat, lon, o.lat, o.lon)
            let closing = max(cos((azimuth - heading) * .pi / 180), 0.25)
            scored.append((i, c.distance / closing))
        }
        // Candidates are in (distance, identifier) order, so the rank breaks score ties that way.
        scored.sort { $0.score != $1.score ? $0.score < $1.score : $0.rank < $1.rank }
        let chosen = scored.prefix(k - 1).map(\.rank).sorted()
        let chosenSet = Set(chosen)
        // Fences beyond the candidates are at least as far as the last candidate.
        var coverage = candidates.count == 3 * (k - 1) ? candidates.last!.distance : .infinity
        for (i, c) in candidates.enumerated() where !chosenSet.contains(i) { coverage = min(coverage, c.distance) }
        return (scored.prefix(k - 1).map { candidates[$0.rank].slot }, coverage)
    }

    /// A baseline's plan is broken when its refresh region is larger than the safe radius: an
    /// unmonitored fence can be reached before the plan made on leaving it is in place.
    func baselineBroken(coverage: Double, radius: Double, motion: Motion, what: String) -> [String] {
        if coverage < radius { return ["an unmonitored fence is \(Self.metres(coverage)) away, inside the \(Self.metres(radius)) \(what)"] }
        let safe = safeRadius(coverage: coverage, motion: motion)
        guard safe < radius else { return [] }
        return ["an unmonitored fence is \(Self.metres(coverage)) away; at \(String(format: "%.1f", speed(motion))) m/s it can be reached before a plan made on leaving the \(Self.metres(radius)) \(what) is in place (safe radius \(Self.metres(max(0, safe))))"]
    }

    func planCentre(lat: Double, lon: Double, accuracy: Double, motion: Motion) -> Plan {
        // Candidates: fences whose OS circle centre is within 10 km, ranked by centre distance.
        let candidates = index.within(10_000 + maxCircleRadius, ofLat: lat, lon: lon)
        var ranked: [(Int32, Double)] = []
        for s in candidates {
            let d = geodesic(lat, lon, circles[Int(s)])
            if d <= 10_000 { ranked.append((s, d)) }
        }
        ranked.sort { $0.1 != $1.1 ? $0.1 < $1.1 : index.identifier(of: $0.0).utf8.lexicographicallyPrecedes(index.identifier(of: $1.0).utf8) }
        let fences = ranked.prefix(settings.slots - 1).map(\.0)
        let r = min(settings.centreRadius, accuracy + settings.centreRadius - 500)
        let coverage = index.nearest(settings.slots, lat: lat, lon: lon).first { !fences.contains($0.slot) }?.distance ?? .infinity
        let radius = min(max(r, 100), 5000)
        let broken = baselineBroken(coverage: coverage, radius: radius, motion: motion, what: "refresh region") + tooLarge(fences)
        return Plan(lat: lat, lon: lon, fences: fences, clusters: [],
                    refresh: Region(kind: .refresh, lat: lat, lon: lon, radius: radius), coverage: coverage, broken: broken)
    }

    func planTrigger(lat: Double, lon: Double, motion: Motion) -> Plan {
        let found = index.nearest(settings.slots, lat: lat, lon: lon)
        let fences = found.prefix(settings.slots - 1).map(\.slot)
        let coverage = found.count >= settings.slots ? found[settings.slots - 1].distance : .infinity
        let r = min(max(settings.triggerRadius, 100), 5000)
        let broken = baselineBroken(coverage: coverage, radius: r, motion: motion, what: "movement trigger") + tooLarge(fences)
        return Plan(lat: lat, lon: lon, fences: fences, clusters: [],
                    refresh: Region(kind: .refresh, lat: lat, lon: lon, radius: r), coverage: coverage, broken: broken)
    }


    /// A circle covering the OS circles of the given fences: centred on the mean of their
    /// centres (on the unit sphere), radius the farthest centre distance plus its radius.
    func coveringCircle(_ slots: [Int32]) -> OSCircle? {
        guard !slots.isEmpty else { return nil }
        var x = 0.0, y = 0.0, z = 0.0
        for s in slots {
            let c = circles[Int(s)]
            let p = c.lat * .pi / 180, l = c.lon * .pi / 180
            x += cos(p) * cos(l); y += cos(p) * sin(l); z += sin(p)
        }
        let h = (x * x + y * y).squareRoot()
        guard h > 1e-12 || abs(z) > 1e-12 else { return nil }
        let lat = atan2(z, h) * 180 / .pi, lon = atan2(y, x) * 180 / .pi
        var r = 0.0
        for s in slots {
            let c = circles[Int(s)]
            r = max(r, Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: c.lat, lon2: c.lon) + c.radius)
        }
        return OSCircle(lat: lat, lon: lon, radius: r)
    }

    /// Initial bearing on the sphere from (lat1, lon1) to (lat2, lon2), degrees clockwise from north.
    static func bearing(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180, dl = (lon2 - lon1) * .pi / 180
        return atan2(sin(dl) * cos(p2), cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)) * 180 / .pi
    }

    /// Metres for messages, one decimal under 10 m; any value (no integer conversion that could trap).
    static func metres(_ m: Double) -> String {
        guard m.isFinite, m.magnitude < 1e15 else { return String(format: "%.4g m", m) }
        return m < 10 ? String(format: "%.1f m", m) : "\(Int(m.rounded())) m"
    }
}
