import Foundation
import Geodesy
import GeofencePlanning
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceLogs
@testable import GeofenceFences
@testable import GeofenceEvaluation
@testable import GeofencePlanning
@testable import GeofenceSimulation
@testable import GeofenceSubsets

final class SimulatorTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    func circle(_ id: String, _ lat: Double, _ lon: Double, _ r: Double) -> Fence {
        Fence(id: id, shape: .circle(lat: lat, lon: lon, radius: r), source: SourceLocation(file: "test"))
    }

    /// A straight walk from a point on an azimuth, one fix every `step` metres, 10 s apart.
    func walk(device: Int32 = 0, from lat: Double, _ lon: Double, azimuth: Double, metres: Double, step: Double = 25) -> [Fix] {
        var out: [Fix] = []
        var d = 0.0
        while d <= metres {
            let p = Geodesic.wgs84.direct(lat: lat, lon: lon, azimuth: azimuth, distance: d)
            out.append(Fix(device: device, time: 1_600_000_000 + d / step * 10, lat: p.lat, lon: p.lon))
            d += step
        }
        return out
    }

    func simulate(_ fences: [Fence], _ fixes: [Fix], os: OSModel, strategies: [Planner.Strategy] = Planner.Strategy.allCases,
                  clusters: Bool = true) throws -> SimulationReport {
        let compiled = try CompiledFences(fences)
        let devices = Set(fixes.map(\.device)).count
        return Simulator.simulate(compiled: compiled, circles: try Simulator.osCircles(fences), os: os, strategies: strategies,
                                  clusters: clusters, fixes: fixes, deviceNames: (0..<devices).map { "d\($0)" }, threads: 2)
    }

    func testIdealOSMissesNothingOnRealData() throws {
        let set = try FenceSet.load(paths: ["ports.csv", "airports.csv", "us_counties_va_nc.geojson"].map { Self.root + "/data/" + $0 }, crs: nil)
        let fixes = try LogReader(path: Self.root + "/data/virginia_beach_ais.csv").readAll()
        let report = try simulate(set.fences, fixes, os: .ideal, strategies: [.guaranteed])
        let g = report.strategies[0].overall
        XCTAssertGreaterThan(g.truthEnter, 200)
        XCTAssertGreaterThan(g.truthExit, 200)
        XCTAssertEqual(g.matchedEnter, g.truthEnter, "every ground-truth enter is caught")
        XCTAssertEqual(g.matchedExit, g.truthExit, "every ground-truth exit is caught")
        XCTAssertEqual(g.detectedEnter, g.truthEnter)
        XCTAssertEqual(g.detectedExit, g.truthExit)
        XCTAssertEqual(g.brokenSeconds, 0)
        XCTAssertEqual(g.percentile(0.95), 0)
    }

    func testCentreBaselineMissesTheExitOfTheLargeFence() throws {
        // The device starts inside a 5 km fence whose centre is 4 km east, with 19 small fences
        // whose centres are nearer; it walks 6 km west, out of the large fence.
        var fences = [circle("big", 0, 0, 5000)]
        let start = Geodesic.wgs84.direct(lat: 0, lon: 0, azimuth: 270, distance: 4000)
        for k in 0..<19 {
            let p = Geodesic.wgs84.direct(lat: start.lat, lon: start.lon, azimuth: Double(k) * 19, distance: 1500 + Double(k) * 40)
            fences.append(circle("small\(k)", p.lat, p.lon, 30))
        }
        let fixes = walk(from: start.lat, start.lon, azimuth: 270, metres: 3000)
        let report = try simulate(fences, fixes, os: .ideal)
        func exits(_ name: String) -> [ReportedEvent] { report.detected[name]!.filter { $0.type == .exit && $0.fence == 0 } }
        XCTAssertEqual(exits("guaranteed").count, 1)
        XCTAssertEqual(exits("centre").count, 0, "the centre-distance strategy evicted the fence it stood in")
        let c = report.strategies.first { $0.name == "centre" }!.overall
        XCTAssertEqual(c.truthExit, 1)
        XCTAssertEqual(c.matchedExit, 0)
    }

    func testTriggerBaselineMissesFencesInsideItsFixedRadius() throws {
        // 30 small fences 300–700 m away in a ring: 19 are monitored, the rest lie inside the
        // 1000 m trigger, so walking into one of them is missed. Ours re-plans before reaching it.
        var fences: [Fence] = []
        for k in 0..<30 {
            let p = Geodesic.wgs84.direct(lat: 10, lon: 10, azimuth: Double(k) * 12, distance: 300 + Double(k % 10) * 40)
            fences.append(circle("ring\(k)", p.lat, p.lon, 20))
        }
        let target = fences.count - 1        // azimuth 348°, 660 m: far in the ranking
        let fixes = walk(from: 10, 10, azimuth: 348, metres: 700, step: 5)
        let report = try simulate(fences, fixes, os: .ideal)
        func enters(_ name: String) -> Int { report.detected[name]!.filter { $0.type == .enter && $0.fence == Int32(target) }.count }
        XCTAssertEqual(enters("guaranteed"), 1)
        XCTAssertEqual(enters("trigger"), 0)
        XCTAssertEqual(report.strategies.first { $0.name == "guaranteed" }!.overall.matchedEnter,
                       report.strategies.first { $0.name == "guaranteed" }!.overall.truthEnter)
    }

    func testBrokenGuaranteeIsReportedWithItsDuration() throws {
        // A device standing inside a tight ring of 30 tiny fences 40–60 m away: the refresh radius
        // would be under the 100 m OS minimum, and the device is inside any covering circle.
        var fences: [Fence] = []
        for k in 0..<30 {
            let p = Geodesic.wgs84.direct(lat: -33.9, lon: 151.2, azimuth: Double(k) * 12, distance: 40 + Double(k % 3) * 10)
            fences.append(circle("t\(k)", p.lat, p.lon, 3))
        }
        let fixes = (0..<61).map { Fix(device: 0, time: 1_600_000_000 + Double($0) * 10, lat: -33.9, lon: 151.2) }
        let report = try simulate(fences, fixes, os: OSModel(), strategies: [.guaranteed])
        let g = report.strategies[0].overall
        XCTAssertEqual(g.brokenSeconds, 600, "broken from the first plan to the end of the trace")
        XCTAssertEqual(g.replans, 0, "a device standing still does not re-plan")
        if case .object(let o) = report.json, case .array(let s)? = o.first(where: { $0.0 == "strategies" })?.1 {
            XCTAssertEqual(s[0]["guarantee_broken_s"], .number("600"))
        } else { XCTFail("no strategies in the report") }
    }
}
