import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceEvaluation
@testable import GeofenceLogs

/// Fixes that meet no fence, of devices inside none, take the short way through the state
/// phase (`Evaluator.passQuietly`): they still start the device, so its first enter later is
/// not initial. Against `ReferenceEvaluator`, at one and several threads, batches cut anywhere.
final class QuietFixTests: XCTestCase {
    func testAFirstFixFarFromEveryFenceMakesLaterEntersNotInitial() throws {
        let fences = try EvaluatorReferenceTests.realFences()
        let trace = try EvaluatorReferenceTests.realFixes(accuracySeed: 5)
        // Every device's first fix far from every fence (the Indian Ocean), then its trace;
        // some devices also get far fixes after they left everything.
        var fixes: [Fix] = []
        var seen = Set<Int32>()
        var rng = SeededGenerator(seed: 96)
        for f in trace {
            if seen.insert(f.device).inserted {
                fixes.append(Fix(device: f.device, time: f.time - 60, lat: -40 + rng.uniform(-1, 1), lon: 90 + rng.uniform(-1, 1), accuracy: 20))
            }
            fixes.append(f)
        }
        let settings = EvaluationSettings(exitMargin: 15, dwell: 600)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 15, dwell: 600).run(fixes)
        XCTAssertGreaterThan(reference.filter { $0.type == "enter" }.count, 100)
        XCTAssertFalse(reference.contains { $0.initial }, "every device started far from the fences")
        let compiled = try CompiledFences(fences, defaultDwell: settings.dwell)
        for (threads, batch, slice) in [(1, 1000, 4096), (1, 7, 4096), (2, 3000, 64), (3, fixes.count, 500)] {
            let run = EvaluationRun(compiled: compiled, settings: settings, threads: threads)
            run.minimumSlice = slice
            var k = 0
            while k < fixes.count {
                run.process(Array(fixes[k..<min(fixes.count, k + batch)]))
                k += batch
            }
            let events = run.events.map {
                ReferenceEvaluator.Event(device: $0.device, fence: fences[Int($0.fence)].id, type: $0.type.name, time: $0.time, initial: $0.initial)
            }
            EvaluatorReferenceTests.compare(events, reference)
        }
    }
}
