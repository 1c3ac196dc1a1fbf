import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceEvaluation
@testable import GeofenceLogs

/// A batch evaluated with its devices given (each once, in any order: what a reader hands out,
/// docs/logs.md#the-devices-of-a-batch) makes the events `ReferenceEvaluator` makes, and the
/// run counts the devices it has seen as when it looks at every fix.
final class BatchDevicesTests: XCTestCase {
    func testGivenDevicesGiveTheReferenceEvents() throws {
        let fences = try EvaluatorReferenceTests.realFences()
        let fixes = try EvaluatorReferenceTests.realFixes(accuracySeed: 7)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 15, dwell: 600).run(fixes)
        XCTAssertGreaterThan(reference.count, 100)
        let settings = EvaluationSettings(exitMargin: 15, dwell: 600)
        let compiled = try CompiledFences(fences, defaultDwell: settings.dwell)
        var rng = SeededGenerator(seed: 41)
        for (threads, batch, slice) in [(1, 1000, 4096), (1, 7, 4096), (2, 3000, 64), (3, fixes.count, 500)] {
            let given = EvaluationRun(compiled: compiled, settings: settings, threads: threads)
            let looked = EvaluationRun(compiled: compiled, settings: settings, threads: threads)
            given.minimumSlice = slice
            looked.minimumSlice = slice
            var k = 0
            while k < fixes.count {
                let b = Array(fixes[k..<min(fixes.count, k + batch)])
                // The batch's devices, each once, shuffled.
                var devices = Array(Set(b.map(\.device)))
                for i in stride(from: devices.count - 1, to: 0, by: -1) { devices.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
                given.process(b, onOneThread: false, devices: devices)
                looked.process(b)
                XCTAssertEqual(given.devicesWithFixes, looked.devicesWithFixes, "batch at \(k)")
                XCTAssertEqual(given.takeEvents(), looked.takeEvents(), "batch at \(k)")
                k += batch
            }
            XCTAssertEqual(given.devicesWithFixes, Set(fixes.map(\.device)).count)
        }
        // Against the reference: one run given each batch's devices, events taken at the end.
        let run = EvaluationRun(compiled: compiled, settings: settings, threads: 2)
        run.minimumSlice = 64
        var k = 0
        while k < fixes.count {
            let b = Array(fixes[k..<min(fixes.count, k + 2500)])
            run.process(b, onOneThread: false, devices: Array(Set(b.map(\.device))))
            k += 2500
        }
        let events = run.events.map {
            ReferenceEvaluator.Event(device: $0.device, fence: fences[Int($0.fence)].id, type: $0.type.name, time: $0.time, initial: $0.initial)
        }
        EvaluatorReferenceTests.compare(events, reference)
    }
}
