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

    /// The OS model a plan is made for (docs/rotation.md#the-os-model); radii and distances in
    /// metres. The defaults are iOS-like, except `exitDistance`, which is 0 here.
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
        /// Settings from a slot count, radii in metres, the cluster switch and the exit distance in
        /// metres; `Planner.init` requires `slots` ≥ 2.
        public init(slots: Int = 20, minRadius: Double = 100, maxRadius: Double = 100_000, clusters: Bool = true, exitDistance: Double = 0) {
            self.slots = slots; self.minRadius = minRadius; self.maxRadius = maxRadius; self.clusters = clusters
            self.exitDistance = exitDistance
        }
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
    /// `accuracy` (metres) is used by the `centre` strategy only (its refresh radius).
    /// - Precondition: `lat` in [-90, 90] and `lon` finite (the index's queries require it).
    /// - Complexity: one nearest-K query (plus one radius query when clustering).
    public func plan(lat: Double, lon: Double, accuracy: Double = 0) -> Plan {
        switch strategy {
        case .guaranteed: return planGuaranteed(lat: lat, lon: lon)
        case .centre: return planCentre(lat: lat, lon: lon, accuracy: accuracy)
        case .trigger: return planTrigger(lat: lat, lon: lon)
        }
    }

    func geodesic(_ lat: Double, _ lon: Double, _ c: OSCircle) -> Double {
        Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: c.lat, lon2: c.lon)
    }

    func tooLarge(_ fences: [Int32]) -> [String] {
        fences.filter { circles[Int($0)].radius > settings.maxRadius }.map {
            "fence \(index.identifier(of: $0)) needs a \(Int(circles[Int($0)].radius)) m region, over the OS maximum \(Int(settings.maxRadius)) m"
        }
    }

    func planGuaranteed(lat: Double, lon: Double) -> Plan {
        let k = settings.slots
        let found = index.nearest(k, lat: lat, lon: lon)
        var broken: [String] = []
        let inside = found.prefix { $0.distance == 0 }.count
        if inside >= k {
            broken.append("the device is inside at least \(k) fences, more than the \(k - 1) fence slots")
        }
        var fences = found.prefix(k - 1).map(\.slot)
        var clusters: [Region] = []
        var coverage = found.count >= k ? found[k - 1].distance : .infinity
        if coverage - settings.exitDistance < settings.minRadius, settings.clusters, k >= 3, inside < k - 1 {
            // Too dense for a refresh region of the OS minimum: monitor the k-2 nearest, and one
            // circle covering every other fence within reach, provided the device is outside it.
            let reach = settings.minRadius + settings.exitDistance
            let near = index.within(reach, ofLat: lat, lon: lon)
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
        if coverage.isFinite {
            var r = coverage - settings.exitDistance
            if r < settings.minRadius {
                broken.append(settings.exitDistance > 0
                    ? "the nearest unmonitored fence is \(Self.metres(coverage)) away; less the OS exit distance \(Int(settings.exitDistance)) m that is under the OS minimum radius \(Int(settings.minRadius)) m"
                    : "the nearest unmonitored fence is \(Self.metres(coverage)) away, under the OS minimum radius \(Int(settings.minRadius)) m")
                r = settings.minRadius
            }
            r = min(r, settings.maxRadius)
            refresh = Region(kind: .refresh, lat: lat, lon: lon, radius: r)
        }
        broken += tooLarge(fences)
        return Plan(lat: lat, lon: lon, fences: fences, clusters: clusters, refresh: refresh, coverage: coverage, broken: broken)
    }

    func planCentre(lat: Double, lon: Double, accuracy: Double) -> Plan {
        // Candidates: fences whose OS circle centre is within 10 km, ranked by centre distance.
        let candidates = index.within(10_000 + maxCircleRadius, ofLat: lat, lon: lon)
        var ranked: [(Int32, Double)] = []
        for s in candidates {
            let d = geodesic(lat, lon, circles[Int(s)])
            if d <= 10_000 { ranked.append((s, d)) }
        }
        ranked.sort { $0.1 != $1.1 ? $0.1 < $1.1 : index.identifier(of: $0.0).utf8.lexicographicallyPrecedes(index.identifier(of: $1.0).utf8) }
        let fences = ranked.prefix(settings.slots - 1).map(\.0)
        let r = min(2500, accuracy + 2000)
        let coverage = index.nearest(settings.slots, lat: lat, lon: lon).first { !fences.contains($0.slot) }?.distance ?? .infinity
        var broken: [String] = []
        if coverage < r { broken.append("an unmonitored fence is \(Self.metres(coverage)) away, inside the \(Int(r)) m refresh region") }
        broken += tooLarge(fences)
        return Plan(lat: lat, lon: lon, fences: fences, clusters: [],
                    refresh: Region(kind: .refresh, lat: lat, lon: lon, radius: min(max(r, 100), 5000)), coverage: coverage, broken: broken)
    }

    func planTrigger(lat: Double, lon: Double) -> Plan {
        let found = index.nearest(settings.slots, lat: lat, lon: lon)
        let fences = found.prefix(settings.slots - 1).map(\.slot)
        let coverage = found.count >= settings.slots ? found[settings.slots - 1].distance : .infinity
        let r = min(max(1000, 100), 5000)
        var broken: [String] = []
        if coverage < Double(r) { broken.append("an unmonitored fence is \(Self.metres(coverage)) away, inside the \(r) m movement trigger") }
        broken += tooLarge(fences)
        return Plan(lat: lat, lon: lon, fences: fences, clusters: [],
                    refresh: Region(kind: .refresh, lat: lat, lon: lon, radius: Double(r)), coverage: coverage, broken: broken)
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

    static func metres(_ m: Double) -> String { m < 10 ? String(Int((m * 10).rounded()) / 10) + " m" : "\(Int(m.rounded())) m" }
}
