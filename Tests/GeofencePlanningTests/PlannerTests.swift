import GeofenceIndex
import Geodesy
import XCTest
import GeofenceTestSupport
@testable import GeofencePlanning

/// Planner behaviour on constructed cases, checked against brute force over all fences.
final class PlannerTests: XCTestCase {
    /// A point `d` metres from (lat, lon) at `azimuth`.
    func at(_ lat: Double, _ lon: Double, _ azimuth: Double, _ d: Double) -> (Double, Double) {
        let r = Geodesic.wgs84.direct(lat: lat, lon: lon, azimuth: azimuth, distance: d)
        return (r.lat, r.lon)
    }

    func make(_ circles: [(String, Double, Double, Double)]) throws -> (FenceIndex, [OSCircle]) {
        let index = try FenceIndex(circles.map { .circle(CircleRecord(id: $0.0, lat: $0.1, lon: $0.2, radius: $0.3)) })
        return (index, circles.map { OSCircle(lat: $0.1, lon: $0.2, radius: $0.3) })
    }

    func boundaryDistance(_ c: OSCircle, _ lat: Double, _ lon: Double) -> Double {
        max(0, Geodesic.wgs84.distance(lat1: c.lat, lon1: c.lon, lat2: lat, lon2: lon) - c.radius)
    }

    func testGuaranteedMatchesBruteForceRanking() throws {
        var circles: [(String, Double, Double, Double)] = []
        var seed: UInt64 = 7
        func rnd() -> Double { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 11) / Double(1 << 53) }
        for k in 0..<2000 {
            circles.append(("f\(k)", 48.8 + rnd() * 0.2, 2.2 + rnd() * 0.3, 20 + rnd() * 400))
        }
        let (index, os) = try make(circles)
        let planner = Planner(index: index, circles: os, settings: .init(slots: 20, minRadius: 0), strategy: .guaranteed)
        for _ in 0..<50 {
            let lat = 48.8 + rnd() * 0.2, lon = 2.2 + rnd() * 0.3
            let plan = planner.plan(lat: lat, lon: lon)
            let brute = os.indices.map { (circles[$0].0, boundaryDistance(os[$0], lat, lon)) }
                .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            XCTAssertEqual(plan.fences.map { index.identifier(of: $0) }, brute.prefix(19).map(\.0))
            XCTAssertEqual(plan.coverage, brute[19].1, accuracy: 0.001)
            XCTAssertEqual(plan.refresh?.radius ?? -1, brute[19].1, accuracy: 0.001)
            // The guarantee: every unmonitored fence lies at or beyond the refresh radius.
            let monitored = Set(plan.fences.map { index.identifier(of: $0) })
            for (id, d) in brute where !monitored.contains(id) { XCTAssertGreaterThanOrEqual(d + 1e-6, plan.refresh!.radius) }
        }
    }

    func testInsideFencesAreKeptAndTooManyBreakTheGuarantee() throws {
        // 25 concentric fences around the device: more than 19 slots contain it.
        let circles = (0..<25).map { ("c\($0)", 45.0, 5.0, 1000.0 + Double($0) * 10) }
        let (index, os) = try make(circles)
        let plan = Planner(index: index, circles: os, settings: .init(slots: 20), strategy: .guaranteed).plan(lat: 45.0, lon: 5.0)
        XCTAssertEqual(plan.fences.count, 19)
        XCTAssertTrue(plan.guaranteeBroken)
        XCTAssertEqual(plan.broken.first, "the device is inside at least 20 fences, more than the 19 fence slots")
    }

    func testEquidistantTiesAreDeterministic() throws {
        // 18 fences at distinct distances, then the 19th and 20th at bitwise-equal distances
        // (mirror images across the device's meridian): the tie goes to the smaller identifier,
        // and the refresh radius reaches the one left out, so the guarantee holds.
        var circles: [(String, Double, Double, Double)] = []
        for k in 0..<18 { circles.append(("near\(k)", 40.0 + Double(k + 1) * 0.001, 0.0, 10)) }
        circles.append(("tie-b", 40.0, 0.05, 10))
        circles.append(("tie-a", 40.0, -0.05, 10))
        let (index, _) = try make(circles)
        XCTAssertEqual(index.distance(to: 18, lat: 40, lon: 0), index.distance(to: 19, lat: 40, lon: 0))
        for order in [circles, circles.reversed()] {
            let (ix, oc) = try make(order)
            let p = Planner(index: ix, circles: oc, settings: .init(slots: 20), strategy: .guaranteed).plan(lat: 40, lon: 0)
            XCTAssertEqual(ix.identifier(of: p.fences.last!), "tie-a")
            XCTAssertFalse(p.fences.map { ix.identifier(of: $0) }.contains("tie-b"))
            XCTAssertEqual(p.refresh!.radius, ix.distance(to: ix.slot(of: "tie-b")!, lat: 40, lon: 0))
        }
    }

    func testDenseClusterIsCoveredInsteadOfBreakingTheGuarantee() throws {
        // 40 fences of 5 m packed within 40 m of a point C; the device stands 95 m from C, so
        // the 20th nearest fence is closer than the OS minimum radius (100 m).
        var circles: [(String, Double, Double, Double)] = []
        let (cla, clo) = (52.0, 13.0)
        for k in 0..<40 {
            let (la, lo) = at(cla, clo, Double(k) * 9, 10 + Double(k % 4) * 10)
            circles.append(("s\(k)", la, lo, 5))
        }
        circles.append(("far", 52.1, 13.0, 50))
        let (index, os) = try make(circles)
        let (pla, plo) = at(cla, clo, 200, 95)
        let off = Planner(index: index, circles: os, settings: .init(slots: 20, minRadius: 100, clusters: false), strategy: .guaranteed).plan(lat: pla, lon: plo)
        XCTAssertLessThan(off.coverage, 100)
        XCTAssertTrue(off.guaranteeBroken, "without clusters the clamp to 100 m breaks the guarantee")
        let on = Planner(index: index, circles: os, settings: .init(slots: 20, minRadius: 100, clusters: true), strategy: .guaranteed).plan(lat: pla, lon: plo)
        XCTAssertFalse(on.guaranteeBroken, on.broken.joined(separator: "; "))
        XCTAssertEqual(on.fences.count, 18)
        XCTAssertEqual(on.clusters.count, 1)
        // The cluster region covers every fence that is neither monitored nor beyond the refresh region,
        // and does not contain the device (entering it is what triggers the next plan).
        guard let cluster = on.clusters.first, case .cluster(let covered) = cluster.kind else { return XCTFail() }
        XCTAssertGreaterThan(Geodesic.wgs84.distance(lat1: cluster.lat, lon1: cluster.lon, lat2: pla, lon2: plo), cluster.radius)
        for s in covered {
            let c = os[Int(s)]
            XCTAssertLessThanOrEqual(Geodesic.wgs84.distance(lat1: cluster.lat, lon1: cluster.lon, lat2: c.lat, lon2: c.lon) + c.radius, cluster.radius + 1e-6)
        }
        let handled = Set(on.fences).union(covered)
        for s in 0..<Int32(circles.count) where !handled.contains(s) {
            XCTAssertGreaterThanOrEqual(boundaryDistance(os[Int(s)], pla, plo), on.refresh!.radius - 1e-6)
        }
    }

    func testCentreBaselineEvictsTheLargeFenceItStandsIn() throws {
        // A 5 km fence whose centre is 4 km away contains the device; 19 small fences have nearer centres.
        let (bla, blo) = at(35.0, 139.0, 90, 4000)
        var circles = [("big", bla, blo, 5000.0)]
        for k in 0..<19 {
            let (la, lo) = at(35.0, 139.0, Double(k) * 19, 1000 + Double(k) * 50)
            circles.append(("small\(k)", la, lo, 50))
        }
        let (index, os) = try make(circles)
        let centre = Planner(index: index, circles: os, settings: .init(slots: 20), strategy: .centre).plan(lat: 35.0, lon: 139.0)
        XCTAssertFalse(centre.fences.map { index.identifier(of: $0) }.contains("big"))
        let ours = Planner(index: index, circles: os, settings: .init(slots: 20), strategy: .guaranteed).plan(lat: 35.0, lon: 139.0)
        XCTAssertEqual(index.identifier(of: ours.fences[0]), "big")
    }

    /// Random circles near Paris and a brute-force ranking of them from a point.
    func parisFixture(count: Int = 1500, seed: UInt64 = 11) throws -> (FenceIndex, [OSCircle], [(String, Double, Double, Double)]) {
        var circles: [(String, Double, Double, Double)] = []
        var g = SeededGenerator(seed: seed)
        for k in 0..<count {
            circles.append(("f\(k)", 48.0 + Double.random(in: 0..<2, using: &g), 1.5 + Double.random(in: 0..<2, using: &g),
                            50 + Double.random(in: 0..<1500, using: &g)))
        }
        let (index, os) = try make(circles)
        return (index, os, circles)
    }

    func ranked(_ circles: [(String, Double, Double, Double)], _ os: [OSCircle], _ lat: Double, _ lon: Double) -> [(String, Double)] {
        os.indices.map { (circles[$0].0, boundaryDistance(os[$0], lat, lon)) }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
    }

    func testSpeedShrinksTheRefreshRegionByWhatTheDeviceCoversDuringTheDelay() throws {
        let (index, os, circles) = try parisFixture()
        var settings = Planner.Settings(slots: 20, minRadius: 100, exitDistance: 100)
        settings.delay = 20
        let planner = Planner(index: index, circles: os, settings: settings, strategy: .guaranteed)
        var g = SeededGenerator(seed: 5)
        var checked = 0
        for _ in 0..<40 {
            let lat = 48.5 + Double.random(in: 0..<1, using: &g), lon = 2.0 + Double.random(in: 0..<1, using: &g)
            let motion = Planner.Motion(speed: Double.random(in: 0..<120, using: &g), interval: Double.random(in: 1..<30, using: &g))
            let plan = planner.plan(lat: lat, lon: lon, motion: motion)
            let brute = ranked(circles, os, lat, lon)
            XCTAssertEqual(plan.fences.map { index.identifier(of: $0) }, brute.prefix(19).map(\.0))
            let reach = 100 + motion.speed * (20 + motion.interval)
            XCTAssertEqual(planner.reach(for: motion), reach, accuracy: 1e-9)
            guard brute[19].1 - reach >= 100, plan.clusters.isEmpty else { XCTAssertTrue(plan.guaranteeBroken || !plan.clusters.isEmpty); continue }
            checked += 1
            XCTAssertFalse(plan.guaranteeBroken, plan.broken.joined())
            XCTAssertEqual(plan.refresh!.radius, min(brute[19].1 - reach, 100_000), accuracy: 0.001)
            // The guarantee: leaving the refresh region (noticed e past its edge) and moving on at
            // the speed for delay + interval never reaches an unmonitored fence.
            let monitored = Set(plan.fences.map { index.identifier(of: $0) })
            for (id, d) in brute where !monitored.contains(id) {
                XCTAssertGreaterThanOrEqual(d + 1e-6, plan.refresh!.radius + reach)
            }
        }
        XCTAssertGreaterThan(checked, 20)
        // Standing still under the same OS: the instant-OS radius less the exit distance.
        let still = planner.plan(lat: 48.9, lon: 2.4)
        let brute = ranked(circles, os, 48.9, 2.4)
        if brute[19].1 - 100 >= 100 { XCTAssertEqual(still.refresh!.radius, brute[19].1 - 100, accuracy: 0.001) }
    }

    func testSafeRadiusIsTheLargestThatAnAcceleratingDeviceCannotOvershoot() throws {
        let (index, os) = try make([("a", 0, 0, 10)])
        var g = SeededGenerator(seed: 9)
        for _ in 0..<500 {
            var settings = Planner.Settings(slots: 20, minRadius: 100, exitDistance: Double.random(in: 0..<200, using: &g))
            settings.delay = Double.random(in: 1..<60, using: &g)
            settings.acceleration = [0, 0.05, 0.2, 1, 3][Int.random(in: 0..<5, using: &g)]
            settings.speedCap = [50, 300][Int.random(in: 0..<2, using: &g)]
            let planner = Planner(index: index, circles: os, settings: settings, strategy: .guaranteed)
            let motion = Planner.Motion(speed: Double.random(in: 0..<100, using: &g), interval: Double.random(in: 0..<120, using: &g))
            let coverage = Double.random(in: 0..<200_000, using: &g)
            let r = planner.safeRadius(coverage: coverage, motion: motion)
            // Independently: the distance from the plan position reached by the time the new plan is
            // in place, for a device noticed at x = r + e at the worst speed the model allows there,
            // kept for the reaction time.
            let a = settings.acceleration, t = settings.delay + motion.interval, v0 = min(motion.speed, settings.speedCap)
            func worst(_ x: Double) -> Double {
                let u = min(settings.speedCap, (v0 * v0 + 2 * a * max(x, 0)).squareRoot())
                return x + u * t
            }
            let x = r + settings.exitDistance
            if x >= 0 {
                XCTAssertLessThanOrEqual(worst(x), coverage + 1e-6 * max(1, coverage), "coverage \(coverage) motion \(motion) a \(a)")
            }
            if a == 0 { XCTAssertEqual(r, coverage - settings.exitDistance - v0 * t, accuracy: 1e-6) }
            // Tight when the cap is not reached: a little more would overshoot.
            if x > 1, (v0 * v0 + 2 * a * x).squareRoot() < settings.speedCap * 0.99 {
                XCTAssertGreaterThan(worst(x + 1), coverage - 1e-6 * max(1, coverage))
            }
        }
    }

    func testHorizonMonitorsTheFewestNearestFencesThatAllowIt() throws {
        let (index, os, circles) = try parisFixture()
        var settings = Planner.Settings(slots: 20, minRadius: 100, exitDistance: 100)
        settings.delay = 20
        settings.horizon = 2_000
        let planner = Planner(index: index, circles: os, settings: settings, strategy: .guaranteed)
        var g = SeededGenerator(seed: 6)
        for _ in 0..<40 {
            let lat = 48.5 + Double.random(in: 0..<1, using: &g), lon = 2.0 + Double.random(in: 0..<1, using: &g)
            let motion = Planner.Motion(speed: Double.random(in: 0..<40, using: &g), interval: 10)
            let plan = planner.plan(lat: lat, lon: lon, motion: motion)
            guard plan.clusters.isEmpty, !plan.guaranteeBroken else { continue }
            let brute = ranked(circles, os, lat, lon)
            let reach = 100 + motion.speed * 30
            let inside = brute.prefix { $0.1 == 0 }.count
            // Brute force: the smallest n >= inside whose (n+1)-th fence allows a 2 km refresh radius.
            var n = inside
            while n < 19, brute[n].1 - reach < 2_000 { n += 1 }
            XCTAssertEqual(plan.fences.map { index.identifier(of: $0) }, brute.prefix(n).map(\.0))
            XCTAssertEqual(plan.coverage, brute[n].1, accuracy: 0.001)
            if n < 19 { XCTAssertGreaterThanOrEqual(plan.refresh!.radius, 2_000 - 1e-6) }
        }
    }

    func testWhereTheSlotsCannotHoldTheGuaranteeFencesAheadComeFirst() throws {
        // 60 small fences on a ring 2-4 km around the device; at 250 m/s with a 20 s delay no
        // 19 of them leave room for a refresh region: the plan says so and keeps those ahead.
        var circles: [(String, Double, Double, Double)] = []
        for k in 0..<60 {
            let (la, lo) = at(30, -90, Double(k) * 6, 2000 + Double(k % 5) * 500)
            circles.append(("r\(k)", la, lo, 50))
        }
        let (index, os) = try make(circles)
        var settings = Planner.Settings(slots: 20, minRadius: 100, exitDistance: 100)
        settings.delay = 20
        let planner = Planner(index: index, circles: os, settings: settings, strategy: .guaranteed)
        let plan = planner.plan(lat: 30, lon: -90, motion: .init(speed: 250, interval: 5, heading: 90))
        XCTAssertTrue(plan.guaranteeBroken)
        XCTAssertTrue(plan.broken[0].hasPrefix("at 250.0 m/s the device covers up to"), plan.broken[0])
        XCTAssertEqual(plan.fences.count, 19)
        // Brute force of the documented rule, among the 57 nearest: time to reach = distance / max(cos θ, 1/4).
        let nearest = Set(ranked(circles, os, 30, -90).prefix(57).map(\.0))
        let scored = os.indices.filter { nearest.contains(circles[$0].0) }.map { i -> (String, Double) in
            // The bearing on the sphere, from the spherical triangle's formula.
            let p1 = 30.0 * .pi / 180, p2 = os[i].lat * .pi / 180, dl = (os[i].lon + 90) * .pi / 180
            let bearing = atan2(sin(dl) * cos(p2), cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)) * 180 / .pi
            return (circles[i].0, boundaryDistance(os[i], 30, -90) / max(cos((bearing - 90) * .pi / 180), 0.25))
        }.sorted { $0.1 < $1.1 }
        XCTAssertEqual(Set(plan.fences.map { index.identifier(of: $0) }), Set(scored.prefix(19).map(\.0)))
        for s in plan.fences {
            let inv = Geodesic.wgs84.inverse(lat1: 30, lon1: -90, lat2: os[Int(s)].lat, lon2: os[Int(s)].lon)
            XCTAssertLessThan(abs(inv.azimuth1 - 90), 90, "\(index.identifier(of: s)) is not ahead")
        }
        XCTAssertEqual(plan.refresh!.radius, 100, "clamped to the OS minimum, re-planned at once")
        // Without a heading: nearest first, as at rest.
        let noHeading = planner.plan(lat: 30, lon: -90, motion: .init(speed: 250, interval: 5))
        XCTAssertEqual(noHeading.fences, Array(index.nearest(19, lat: 30, lon: -90).map(\.slot)))
    }

    func testBaselinesAreJudgedByTheSameGuarantee() throws {
        // 20 fences 5 km away: the trigger's 1000 m region is safe at rest, not at 250 m/s.
        let circles = (0..<20).map { k -> (String, Double, Double, Double) in
            let (la, lo) = at(-20, 30, Double(k) * 18, 5100)
            return ("t\(k)", la, lo, 100)
        }
        let (index, os) = try make(circles)
        var settings = Planner.Settings(slots: 20, minRadius: 100, exitDistance: 100)
        settings.delay = 20
        for strategy in [Planner.Strategy.trigger, .centre] {
            let planner = Planner(index: index, circles: os, settings: settings, strategy: strategy)
            let rest = planner.plan(lat: -20, lon: 30, motion: .init(speed: 0, interval: 10))
            let fast = planner.plan(lat: -20, lon: 30, motion: .init(speed: 250, interval: 10))
            XCTAssertEqual(rest.fences, fast.fences, "the motion does not change what a baseline monitors")
            XCTAssertEqual(rest.refresh, fast.refresh)
            if strategy == .trigger { XCTAssertFalse(rest.guaranteeBroken, rest.broken.joined()) }
            XCTAssertTrue(fast.guaranteeBroken)
            XCTAssertTrue(fast.broken.contains { $0.contains("at 250.0 m/s it can be reached before a plan made on leaving the") }, fast.broken.joined())
        }
    }

    func testPlanDiff() {
        let a = Region(kind: .fence(1), lat: 0, lon: 0, radius: 10)
        let b = Region(kind: .fence(2), lat: 0, lon: 0, radius: 10)
        let r1 = Region(kind: .refresh, lat: 0, lon: 0, radius: 100)
        let r2 = Region(kind: .refresh, lat: 0.001, lon: 0, radius: 100)
        let d = PlanDiff(from: [a, r1], to: [a, b, r2])
        XCTAssertEqual(d.adds, [b, r2])
        XCTAssertEqual(d.removes, [r1])
    }
}
