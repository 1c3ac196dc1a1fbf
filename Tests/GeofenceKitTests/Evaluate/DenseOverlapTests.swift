import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceEvaluation

/// A device inside thousands of fences at once (shared centres, nested radii): the evaluator
/// sorts and bisects instead of scanning, and its events stay those of the reference.
final class DenseOverlapTests: XCTestCase {
    func testThousandsOfOverlappingFencesMatchTheReference() throws {
        var rng = SeededGenerator(seed: 17)
        var fences: [Fence] = []
        for k in 0..<1500 {
            // Three shared centres; radii from 10 m to 3 km.
            let centre = [(48.8566, 2.3522), (48.8600, 2.3400), (48.8500, 2.3700)][k % 3]
            var f = Fence.circle(id: "f\(rng.int(0..<1_000_000))-\(k)", lat: centre.0, lon: centre.1, radius: rng.logUniform(10, 3000))
            if k % 7 == 0 { f.options.repeats = false }
            if k % 5 == 0 { f.options.dwell = 120 }
            if k % 11 == 0 { f.options.notifyOnExit = false }
            fences.append(f)
        }
        // Two devices walking through and around the centres.
        var fixes: [Fix] = []
        var t = 1_700_000_000.0
        for step in 0..<240 {
            for d in 0..<2 {
                let a = Double(step) / 240 * 4 * Double.pi + Double(d)
                let r = 0.03 * abs(sin(a * 0.5 + Double(d)))
                fixes.append(Fix(device: Int32(d), time: t, lat: 48.8566 + r * cos(a), lon: 2.3522 + 1.4 * r * sin(a),
                                 accuracy: Double(rng.int(0..<40))))
            }
            t += 30
        }
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 15, dwell: nil).run(fixes)
        XCTAssertGreaterThan(reference.count, 3000, "the walk must cross many fences at once")
        for threads in [1, 2] {
            let run = EvaluationRun(compiled: try CompiledFences(fences), settings: EvaluationSettings(exitMargin: 15), threads: threads)
            run.minimumSlice = 32
            run.process(fixes)
            let events = run.events.map {
                ReferenceEvaluator.Event(device: $0.device, fence: fences[Int($0.fence)].id, type: $0.type.name, time: $0.time, initial: $0.initial)
            }
            EvaluatorReferenceTests.compare(events, reference)
        }
    }
}
