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
        XCTAssertEqual(g.replans, 1, "a device standing still re-plans once: at its second fix, where it first has a speed")
        if case .object(let o) = report.json, case .array(let s)? = o.first(where: { $0.0 == "strategies" })?.1 {
            XCTAssertEqual(s[0]["guarantee_broken_s"], .number("600"))
        } else { XCTFail("no strategies in the report") }
    }

    /// A straight run east from (0, 0) at `speed` m/s, one fix every `every` seconds, `metres` long.
    func run(speed: Double, every: Double, metres: Double, device: Int32 = 0, start: Double = 1_600_000_000) -> [Fix] {
        var out: [Fix] = []
        var t = 0.0
        while speed * t <= metres {
            let p = Geodesic.wgs84.direct(lat: 0, lon: 0, azimuth: 90, distance: speed * t)
            out.append(Fix(device: device, time: start + t, lat: p.lat, lon: p.lon))
            t += every
        }
        return out
    }

    /// An aircraft at 250 m/s along a line of 1 km airport circles every 12 km, with small
    /// fences 3 km either side of the track every 3 km filling the slots.
    func fastTrack() -> ([Fence], [Fix]) {
        var fences: [Fence] = []
        for k in 0..<20 {
            let p = Geodesic.wgs84.direct(lat: 0, lon: 0, azimuth: 90, distance: 10_000 + Double(k) * 12_000)
            fences.append(circle("target\(k)", p.lat, p.lon, 1000))
        }
        for k in 0..<85 {
            let p = Geodesic.wgs84.direct(lat: 0, lon: 0, azimuth: 90, distance: Double(k) * 3_000)
            for side in [0.0, 180.0] {
                let q = Geodesic.wgs84.direct(lat: p.lat, lon: p.lon, azimuth: side, distance: 3_000)
                fences.append(circle("side\(k)-\(Int(side))", q.lat, q.lon, 200))
            }
        }
        return (fences, run(speed: 250, every: 2, metres: 250_000))
    }

    func testSpeedAwarePlanCatchesWhatTheInstantOSPlanMissesAtAircraftSpeed() throws {
        let (fences, fixes) = fastTrack()
        let compiled = try CompiledFences(fences)
        let circles = try Simulator.osCircles(fences)
        let prepared = Simulator.prepare(compiled: compiled, fixes: fixes, devices: 1, threads: 1)
        XCTAssertEqual(prepared.truth[0].filter { $0.type == .enter }.count, 20, "every airport on the track is entered")
        let aware = Simulator.simulate(compiled: compiled, circles: circles, os: OSModel(), strategies: [.guaranteed], clusters: true,
                                       prepared: prepared, deviceNames: ["jet"], threads: 1).strategies[0].overall
        XCTAssertEqual(aware.matchedEnter, 20)
        XCTAssertEqual(aware.matchedExit, 20)
        XCTAssertEqual(aware.brokenSeconds, 0)
        var instant = StrategyTuning()
        instant.speedCap = 0
        instant.acceleration = 0
        let old = Simulator.simulate(compiled: compiled, circles: circles, os: OSModel(), strategies: [.guaranteed], clusters: true,
                                     prepared: prepared, deviceNames: ["jet"], threads: 1, tuning: instant).strategies[0].overall
        XCTAssertLessThan(old.matchedEnter + old.matchedExit, 40, "the plan for an instant OS lets airports slip by during the delay")
        XCTAssertEqual(old.brokenSeconds, 0, "and does not know it")
        // All of it is in the air class.
        XCTAssertEqual(aware.classes[SpeedClass.air.rawValue].metres, aware.metres, accuracy: 1e-6)
        XCTAssertEqual(aware.classes[SpeedClass.air.rawValue].truthEnter, 20)
    }

    func testSpeedClassesSplitDistanceTimeAndEvents() throws {
        // 20 segments of 10 s at 2, 20, 60 and 200 m/s, one after the other; a fence at the start
        // (left while walking) and one in the air phase.
        var fixes: [Fix] = []
        var d = 0.0, t = 1_600_000_000.0
        for v in [2.0, 20, 60, 200] {
            for _ in 0..<20 {
                let p = Geodesic.wgs84.direct(lat: 10, lon: 10, azimuth: 45, distance: d)
                fixes.append(Fix(device: 0, time: t, lat: p.lat, lon: p.lon))
                d += v * 10; t += 10
            }
        }
        let airAt = Geodesic.wgs84.direct(lat: 10, lon: 10, azimuth: 45, distance: 2 * 200 + 20 * 200 + 60 * 200 + 200 * 100)
        let fences = [circle("start", 10, 10, 100), circle("air", airAt.lat, airAt.lon, 2500)]
        let report = try simulate(fences, fixes, os: .ideal, strategies: [.guaranteed, .trigger])
        for s in report.strategies {
            let c = s.overall
            XCTAssertEqual(c.classes.count, 4)
            XCTAssertEqual(c.classes.map(\.metres).reduce(0, +), c.metres, accuracy: 1e-6)
            XCTAssertEqual(c.classes.map(\.seconds).reduce(0, +), c.seconds, accuracy: 1e-6)
            // Each phase's last segment leads into the next phase at the old speed: 20 segments for
            // the first three, 19 in the air (the trace ends).
            for k in [SpeedClass.walking, .road, .rail] { XCTAssertEqual(c.classes[k.rawValue].seconds, 200, "\(k)") }
            XCTAssertEqual(c.classes[SpeedClass.air.rawValue].seconds, 190)
            XCTAssertEqual(c.classes[SpeedClass.rail.rawValue].metres, 20 * 600, accuracy: 1e-6)
            XCTAssertEqual(c.classes[SpeedClass.walking.rawValue].truthExit, 1)
            XCTAssertEqual(c.classes[SpeedClass.air.rawValue].truthEnter, 1)
            XCTAssertEqual(c.classes[SpeedClass.air.rawValue].truthExit, 1)
            XCTAssertEqual(c.classes.map(\.registrations).reduce(0, +), c.registrations)
            XCTAssertEqual(c.classes.map(\.replans).reduce(0, +), c.replans)
        }
        XCTAssertEqual(SpeedClass(metres: 29, seconds: 10), .walking)
        XCTAssertEqual(SpeedClass(metres: 30, seconds: 10), .road)
        XCTAssertEqual(SpeedClass(metres: 400, seconds: 10), .rail)
        XCTAssertEqual(SpeedClass(metres: 1000, seconds: 10), .air)
        XCTAssertEqual(SpeedClass(metres: 5, seconds: 0), .air)
        guard case .object(let o) = report.json, case .array(let s)? = o.first(where: { $0.0 == "strategies" })?.1,
              case .object(let g) = s[0], case .array(let classes)? = g.first(where: { $0.0 == "speed_classes" })?.1 else {
            return XCTFail("no speed_classes in the report")
        }
        XCTAssertEqual(classes.count, 4)
        XCTAssertTrue(report.table.contains("air: recall enter"), report.table)
    }

    func testMotionEstimate() {
        let fixes = run(speed: 30, every: 10, metres: 6000)
        let m = Simulator.motion(fixes, at: 10)
        XCTAssertEqual(m.speed, 30, accuracy: 0.01)
        XCTAssertEqual(m.interval, 10)
        XCTAssertEqual(m.heading ?? 0, 90, accuracy: 0.01)
        XCTAssertEqual(Simulator.motion(fixes, at: 0), .still)
        // The largest of the last five segments, the median interval.
        var jumpy = fixes
        jumpy[8].time -= 5                                            // a 5 s then a 15 s segment
        let j = Simulator.motion(jumpy, at: 10)
        XCTAssertEqual(j.speed, 60, accuracy: 0.01)
        XCTAssertEqual(j.interval, 10)
    }

    func testIdealOSMissesNothingOnTheFastTraces() throws {
        let flights = try FenceSet.load(paths: [Self.root + "/data/airports.csv"], crs: nil)
        let car = try FenceSet.load(paths: [Self.root + "/data/cities_istria.csv"], crs: nil)
        for (fences, log) in [(flights.fences, "flights_us.csv"), (car.fences, "gpx/around-visnjan-with-car.gpx")] {
            let fixes = try LogReader(path: Self.root + "/data/" + log).readAll()
            let g = try simulate(fences, fixes, os: .ideal, strategies: [.guaranteed]).strategies[0].overall
            XCTAssertGreaterThan(g.truthEnter, 0, log)
            XCTAssertEqual(g.matchedEnter, g.truthEnter, log)
            XCTAssertEqual(g.matchedExit, g.truthExit, log)
            XCTAssertEqual(g.detectedEnter, g.truthEnter, log)
            XCTAssertEqual(g.detectedExit, g.truthExit, log)
        }
    }

    func testGuaranteedBeatsTheBestBaselineOnRealFlightsUnderTheIOSLikeOS() throws {
        let set = try FenceSet.load(paths: [Self.root + "/data/airports.csv"], crs: nil)
        let fixes = try LogReader(path: Self.root + "/data/flights_us.csv").readAll()
        let report = try simulate(set.fences, fixes, os: OSModel())
        let g = report.strategies.first { $0.name == "guaranteed" }!.overall
        XCTAssertGreaterThan(g.truthEnter, 90)
        // Every baseline recalls less on one of enter or exit ...
        for b in report.strategies where b.name != "guaranteed" {
            XCTAssertGreaterThanOrEqual(g.recallEnter!, b.overall.recallEnter!, b.name)
            XCTAssertGreaterThanOrEqual(g.recallExit!, b.overall.recallExit!, b.name)
        }
        // ... and the best of them (trigger) registers more than twice as many regions per km.
        let trigger = report.strategies.first { $0.name == "trigger" }!.overall
        XCTAssertGreaterThan(trigger.recall!, report.strategies.first { $0.name == "centre" }!.overall.recall!)
        XCTAssertLessThan(g.registrationsPerKm! * 2, trigger.registrationsPerKm!)
        XCTAssertEqual(g.recallEnter, 1)
        XCTAssertEqual(g.recallExit, 1)
    }

    func testSweepRunsEveryConfigurationAndJudgesDominance() throws {
        let set = try FenceSet.load(paths: [Self.root + "/data/cities_istria.csv"], crs: nil)
        let devices = DeviceTable()
        let fixes = try LogReader(path: Self.root + "/data/gpx/around-visnjan-with-car.gpx", options: LogReaderOptions(), devices: devices).readAll()
        let compiled = try CompiledFences(set.fences)
        let prepared = Simulator.prepare(compiled: compiled, fixes: fixes, devices: devices.count, threads: 1)
        let sweep = Sweep.run(compiled: compiled, circles: try Simulator.osCircles(set.fences), os: OSModel(), clusters: true,
                              prepared: prepared, deviceNames: devices.names, threads: 1)
        XCTAssertEqual(sweep.points.count, Sweep.horizons.count + Sweep.instantHorizons.count + Sweep.triggerRadii.count + Sweep.centreRadii.count)
        XCTAssertEqual(sweep.points.filter { $0.strategy == "guaranteed" }.count, Sweep.horizons.count + Sweep.instantHorizons.count)
        XCTAssertTrue(sweep.baselinesBeatingOurs.isEmpty, sweep.table)
        let svg = sweep.svg(title: "car <Istria>")
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        XCTAssertTrue(svg.contains("car &lt;Istria&gt;"))
        XCTAssertEqual(svg.components(separatedBy: "<circle ").count - 1, Sweep.horizons.count + Sweep.instantHorizons.count)

        // The verdicts on constructed points.
        func p(_ s: String, _ matched: Int, _ regs: Int) -> Sweep.Point {
            var c = SimulationCounts()
            c.truthEnter = 10; c.matchedEnter = matched; c.registrations = regs; c.metres = 1000
            return Sweep.Point(strategy: s, parameter: "\(s) \(matched) \(regs)", tuning: StrategyTuning(), counts: c)
        }
        let beaten = Sweep(points: [p("guaranteed", 9, 5), p("guaranteed", 10, 8), p("trigger", 10, 4), p("centre", 5, 1)])
        XCTAssertEqual(beaten.baselinesBeatingOurs.map(\.baseline.parameter), ["trigger 10 4"])
        XCTAssertEqual(beaten.baselinesNotDominated.map(\.parameter), ["trigger 10 4", "centre 5 1"])
        let ours = Sweep(points: [p("guaranteed", 10, 3), p("guaranteed", 5, 1), p("trigger", 10, 4), p("centre", 5, 1)])
        XCTAssertTrue(ours.baselinesBeatingOurs.isEmpty)
        XCTAssertTrue(ours.baselinesNotDominated.isEmpty)
    }
}
