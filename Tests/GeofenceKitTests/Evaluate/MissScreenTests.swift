import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceEvaluation
import GeofenceIndex
@testable import GeofenceLogs

/// The miss screen of the query phase changes no event: the same run with it and without it,
/// at one and two threads, on fixes that are mostly far from every fence and some inside
/// (docs/evaluation.md, "Fixes that meet no fence").
final class MissScreenTests: XCTestCase {
    func testSameEventsWithAndWithoutTheScreen() throws {
        let fences = try EvaluatorReferenceTests.optionedFences()
        let compiled = try CompiledFences(fences)
        var rng = SeededGenerator(seed: 95)
        // The real trace's fixes near the fences, interleaved with scattered ones by device.
        let trace = try LogReader(path: EvaluatorReferenceTests.root + "/data/virginia_beach_ais.csv").readAll()
        var fixes: [Fix] = []
        var time = 1.7e9
        for (k, f) in trace.enumerated() {
            time += 1
            fixes.append(Fix(device: f.device, time: time, lat: f.lat, lon: f.lon, accuracy: Double(rng.int(0..<80))))
            for _ in 0..<(k % 3) {
                time += 1
                let lat = asin(rng.uniform(-1, 1)) * 180 / Double.pi
                fixes.append(Fix(device: Int32(20 + rng.int(0..<300)), time: time, lat: lat, lon: rng.uniform(-180, 180),
                                 accuracy: Double(rng.int(0..<2_000))))
            }
        }
        for threads in [1, 2] {
            func run(screen: Bool) -> EvaluationRun {
                let r = EvaluationRun(compiled: compiled, settings: EvaluationSettings(exitMargin: 30, dwell: 600), threads: threads)
                r.minimumSlice = 64
                r.screensMisses = screen
                var k = 0
                while k < fixes.count {
                    r.process(Array(fixes[k..<min(fixes.count, k + 1_500)]))
                    k += 1_500
                }
                return r
            }
            let with = run(screen: true), without = run(screen: false)
            XCTAssertNotNil(with.missFilter, "the screen was used")
            XCTAssertNil(without.missFilter)
            XCTAssertGreaterThan(with.events.count, 50)
            XCTAssertEqual(with.events, without.events, "\(threads) threads")
        }
    }

    /// The screen's loop (geofence_screen, in C) lets through exactly the fixes the filter
    /// itself cannot rule out: a fix `MissFilter.certainlyMisses` answers gets the worker's empty
    /// answer and is not queried, every other one is queried and its answer left alone. Fixes
    /// near fences, scattered over the sphere, at the poles and along the antimeridian, with
    /// windows below and past the one-bit limit; without and with boxes too large for the grid.
    func testScreenPassesExactlyWhatTheFilterCannotRuleOut() throws {
        var rng = SeededGenerator(seed: 97)
        var fences: [Fence] = (0..<3_000).map { k in
            Fence.circle(id: "u\(k)", lat: asin(rng.uniform(-1, 1)) * 180 / Double.pi, lon: rng.uniform(-180, 180),
                         radius: rng.logUniform(20, 20_000))
        }
        for k in 0..<20 {
            fences.append(.circle(id: "edge\(k)", lat: k % 2 == 0 ? 85 + rng.uniform(0, 4.9) : -85 - rng.uniform(0, 4.9),
                                  lon: k % 3 == 0 ? 179.99 : rng.uniform(-180, 180), radius: rng.logUniform(50, 5_000)))
        }
        let centres = fences.compactMap { f -> (Double, Double)? in
            if case .circle(let c) = f.record { return (c.lat, c.lon) } else { return nil }
        }
        for large in [false, true] {
            if large {
                for (k, lon) in [0.0, 100, 179].enumerated() {
                    fences.append(.circle(id: "big\(k)", lat: 20 * Double(k) - 20, lon: lon, radius: 4_500_000))
                }
            }
            let filter = try FenceIndex(fences).missFilter()
            XCTAssertTrue(filter.isUsable)
            var fixes: [Fix] = []
            for i in 0..<6_000 {
                var lat: Double, lon: Double
                switch i % 6 {
                case 0, 1:                                           // near a fence centre, within a few cells
                    let c = centres[rng.int(0..<centres.count)]
                    lat = max(-90, min(90, c.0 + rng.uniform(-0.5, 0.5)))
                    lon = c.1 + rng.uniform(-0.5, 0.5)
                    lon = lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon)
                case 2: (lat, lon) = (rng.uniform(-90, 90) > 0 ? rng.uniform(79, 90) : rng.uniform(-90, -79), rng.uniform(-180, 180))
                case 3: (lat, lon) = (rng.uniform(-80, 80), rng.chance(0.5) ? rng.uniform(179, 180) : rng.uniform(-180, -179))
                default: (lat, lon) = (asin(rng.uniform(-1, 1)) * 180 / Double.pi, rng.uniform(-180, 180))
                }
                let accuracy = rng.chance(0.85) ? rng.uniform(0, max(0, filter.fastMetres - 50)) : rng.logUniform(filter.fastMetres, 4 * filter.fastMetres)
                fixes.append(Fix(device: Int32(i % 50), time: Double(i), lat: lat, lon: lon, accuracy: accuracy))
            }
            let margin = 30.0, n = fixes.count
            var order = SpatialOrder()
            var answers = [FixAnswer](repeating: FixAnswer(start: 7, count: 7, worker: 7), count: n)
            let m = fixes.withUnsafeBufferPointer { b in
                answers.withUnsafeMutableBufferPointer { a in
                    order.screenAndSort(b.baseAddress!, n, filter: filter, margin: margin, worker: 3, answers: a.baseAddress!)
                }
            }
            let passed = Set(order.order[0..<m])
            XCTAssertEqual(passed.count, m, "each position once")
            var misses = 0, slowMisses = 0
            for (j, f) in fixes.enumerated() {
                let expected = filter.certainlyMisses(lat: f.lat, lon: f.lon, metres: f.accuracy + margin)
                XCTAssertEqual(!passed.contains(Int32(j)), expected, "large \(large), fix \(j) at (\(f.lat), \(f.lon)) ± \(f.accuracy) m")
                let a = answers[j]
                if expected {
                    misses += 1
                    if abs(f.lat) > 80 || f.accuracy + margin > filter.fastMetres { slowMisses += 1 }
                    XCTAssertTrue(a.start == 0 && a.count == 0 && a.worker == 3, "fix \(j): the empty answer")
                } else {
                    XCTAssertTrue(a.start == 7 && a.count == 7 && a.worker == 7, "fix \(j): not answered by the screen")
                }
            }
            // Both ways of deciding were taken: the one bit, and the filter's own tests.
            XCTAssertGreaterThan(misses, n / 3, "large \(large)")
            XCTAssertGreaterThan(slowMisses, 100, "large \(large)")
            XCTAssertGreaterThan(n - misses, 300, "large \(large)")
        }
    }
}
