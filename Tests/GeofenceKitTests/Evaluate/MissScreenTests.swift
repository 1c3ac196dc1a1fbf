import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceEvaluation
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
}
