import Foundation
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

/// The engine's event stream against `ReferenceEvaluator` on real data: the Virginia
/// Beach AIS trace × World Port Index circles × Virginia/North Carolina county polygons.
final class EvaluatorReferenceTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static func realFences() throws -> [Fence] {
        let set = try FenceSet.load(paths: [Self.root + "/data/ports.csv", Self.root + "/data/us_counties_va_nc.geojson"], crs: nil)
        XCTAssertEqual(set.problems, [])
        return set.fences
    }

    /// The real fences with every option exercised: one-shots, muted exits, dwell.
    static func optionedFences() throws -> [Fence] {
        var fences = try realFences()
        for k in fences.indices {
            if k % 3 == 0 { fences[k].options.repeats = false }
            if k % 5 == 0 { fences[k].options.notifyOnExit = false }
            if !fences[k].shape.isCircle && k % 2 == 0 { fences[k].options.dwell = 1800 }
        }
        return fences
    }

    static func realFixes(accuracySeed: UInt64?) throws -> [Fix] {
        let reader = try LogReader(path: Self.root + "/data/virginia_beach_ais.csv")
        var fixes = try reader.readAll()
        if var s = accuracySeed {
            for k in fixes.indices {
                s = s &* 6364136223846793005 &+ 1442695040888963407
                fixes[k].accuracy = Double((s >> 33) % 150)
            }
        }
        return fixes
    }

    /// The engine's events, in batches of `batch` fixes; `slice`: the fewest
    /// fixes per slice with several threads (small: many slices per batch).
    func engineEvents(_ fences: [Fence], _ fixes: [Fix], settings: EvaluationSettings, threads: Int,
                      batch: Int = 1000, slice: Int = 4096, oneThread: (Int) -> Bool = { _ in false }) throws -> [ReferenceEvaluator.Event] {
        let compiled = try CompiledFences(fences, defaultDwell: settings.dwell)
        let run = EvaluationRun(compiled: compiled, settings: settings, threads: threads)
        run.minimumSlice = slice
        var k = 0, number = 0
        while k < fixes.count {
            run.process(Array(fixes[k..<min(fixes.count, k + batch)]), onOneThread: oneThread(number))
            k += batch
            number += 1
        }
        return run.events.map {
            ReferenceEvaluator.Event(device: $0.device, fence: fences[Int($0.fence)].id, type: $0.type.name, time: $0.time, initial: $0.initial)
        }
    }

    static func compare(_ a: [ReferenceEvaluator.Event], _ b: [ReferenceEvaluator.Event], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, "event counts", file: file, line: line)
        if let k = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            XCTFail("first difference at event \(k): engine \(a[k]) vs reference \(b[k])", file: file, line: line)
        }
    }

    func testPlainEventsMatchReference() throws {
        let fences = try Self.realFences()
        let fixes = try Self.realFixes(accuracySeed: nil)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 0, dwell: nil).run(fixes)
        XCTAssertGreaterThan(reference.count, 300, "the trace must actually cross fences")
        XCTAssertTrue(reference.contains { $0.type == "exit" })
        XCTAssertTrue(reference.contains { $0.fence.hasPrefix("WPI") }, "port fences are entered")
        for threads in [1, 2] {
            Self.compare(try engineEvents(fences, fixes, settings: EvaluationSettings(), threads: threads), reference)
        }
    }

    func testAccuracyMarginDwellAndOneShotMatchReference() throws {
        var fences = try Self.realFences()
        for k in fences.indices {
            if k % 3 == 0 { fences[k].options.repeats = false }
            if k % 5 == 0 { fences[k].options.notifyOnExit = false }
            if k % 7 == 0 { fences[k].options.notifyOnEntry = false }
            if !fences[k].shape.isCircle && k % 2 == 0 { fences[k].options.dwell = 1800 }
        }
        let fixes = try Self.realFixes(accuracySeed: 42)
        let settings = EvaluationSettings(exitMargin: 30, dwell: 600)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 30, dwell: 600).run(fixes)
        XCTAssertTrue(reference.contains { $0.type == "dwell" })
        XCTAssertTrue(reference.contains { $0.initial })
        for threads in [1, 2] {
            Self.compare(try engineEvents(fences, fixes, settings: settings, threads: threads), reference)
        }
    }

    /// With several threads a batch is cut into slices, each sorted, queried and
    /// grouped by whichever worker takes it: whatever the cut, the events are the reference's.
    func testSlicedBatchesMatchReference() throws {
        let fences = try Self.realFences()
        let fixes = try Self.realFixes(accuracySeed: 7)
        let settings = EvaluationSettings(exitMargin: 20, dwell: 900)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 20, dwell: 900).run(fixes)
        for (threads, batch, slice) in [(2, 6000, 100), (3, 2500, 64), (4, fixes.count, 1), (2, 777, 333)] {
            Self.compare(try engineEvents(fences, fixes, settings: settings, threads: threads, batch: batch, slice: slice), reference)
        }
    }

    /// Batches evaluated on the calling thread alone between sliced ones (``CoreSharing``'s
    /// pipelined mode, switched batch by batch): the reference's events.
    func testBatchesOnOneThreadBetweenSlicedOnesMatchReference() throws {
        let fences = try Self.realFences()
        let fixes = try Self.realFixes(accuracySeed: 11)
        let settings = EvaluationSettings(exitMargin: 25, dwell: 900)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 25, dwell: 900).run(fixes)
        let patterns: [(Int) -> Bool] = [{ $0 % 2 == 1 }, { $0 % 3 == 0 }, { $0 >= 4 }, { _ in true }]
        for pattern in patterns {
            Self.compare(try engineEvents(fences, fixes, settings: settings, threads: 3, batch: 1500, slice: 200, oneThread: pattern), reference)
        }
    }

    /// The trace is grouped by ship, so batches keep their log order (consecutive
    /// fixes share a cell); interleaved by time they are sorted spatially first.
    /// Either way the events are the reference's.
    func testTimeInterleavedLogMatchesReference() throws {
        let fences = try Self.realFences()
        let grouped = try Self.realFixes(accuracySeed: 11)
        var fixes = grouped.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        // Devices are numbered in order of first appearance, as a reader numbers them.
        var number: [Int32: Int32] = [:]
        for k in fixes.indices {
            let d = fixes[k].device
            if number[d] == nil { number[d] = Int32(number.count) }
            fixes[k].device = number[d]!
        }
        XCTAssertNotEqual(fixes.map(\.device), grouped.map(\.device), "interleaved")
        let settings = EvaluationSettings(exitMargin: 10, dwell: 600)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 10, dwell: 600).run(fixes)
        for (threads, slice) in [(1, 4096), (2, 500)] {
            Self.compare(try engineEvents(fences, fixes, settings: settings, threads: threads, batch: 3000, slice: slice), reference)
        }
    }
}
