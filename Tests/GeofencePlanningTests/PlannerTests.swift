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
        let (index, os) = try make(circles)
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
