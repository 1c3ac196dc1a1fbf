import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceEvaluation
@testable import GeofenceLogs

/// Evaluation that continues from a saved state (docs/state.md): a log cut anywhere and
/// evaluated in two runs gives the events of one run; changed fence sets against the
/// independent reference; corrupt state files refused.
final class StateTests: XCTestCase {
    typealias data = EvaluatorReferenceTests
    let settings = EvaluationSettings(exitMargin: 20, dwell: 900)

    func fences() throws -> [Fence] { try data.optionedFences() }

    /// The log's fixes with device names (the reader's table), accuracies seeded.
    func fixes() throws -> (fixes: [Fix], names: [String]) {
        let reader = try LogReader(path: EvaluatorReferenceTests.root + "/data/virginia_beach_ais.csv")
        var fixes = try reader.readAll()
        var rng = SeededGenerator(seed: 31)
        for k in fixes.indices { fixes[k].accuracy = Double(rng.int(0..<120)) }
        return (fixes, reader.devices.names)
    }

    /// Runs `fixes` (devices by name) in a run continuing from `state` (nil: a fresh run);
    /// returns the events as (device name, fence, type, time, initial) and the new state.
    func evaluate(_ compiled: CompiledFences, _ fixes: ArraySlice<Fix>, names: [String], state: EvaluationState?,
                  changes: FenceChanges? = nil, threads: Int, batch: Int = 700) throws -> ([String], EvaluationState) {
        let run = EvaluationRun(compiled: compiled, settings: settings, threads: threads)
        run.minimumSlice = 64
        let table = DeviceTable()
        if let state {
            // Through the bytes, as a file would carry it.
            let decoded = try EvaluationState(decoding: state.encoded(), path: "state")
            XCTAssertEqual(decoded, state)
            run.restore(decoded, changes: changes ?? FenceChanges(from: decoded.fences, to: EvaluationState.records(compiled.fences)),
                        devices: table)
        }
        var batchFixes: [Fix] = []
        for f in fixes {
            var g = f
            g.device = table.intern(names[Int(f.device)])
            batchFixes.append(g)
            if batchFixes.count == batch { run.process(batchFixes); batchFixes.removeAll() }
        }
        if !batchFixes.isEmpty { run.process(batchFixes) }
        // Last fixes for the time-order check travel in the state too.
        for f in fixes {
            let d = table.index(of: names[Int(f.device)])!
            table.state.last[Int(d)] = DeviceState.LastFix(time: f.time, lat: f.lat, lon: f.lon, line: 1, file: 0)
        }
        let events = run.events.map { e in
            "\(table.name(e.device)) \(compiled.fences[Int(e.fence)].id) \(e.type.name) \(e.time)\(e.initial ? " initial" : "")"
        }
        return (events, run.snapshot(devices: table))
    }

    /// Two outputs grouped by device (devices in order of first appearance in the logs),
    /// each device's events of the first run before those of the second.
    func grouped(_ first: [String], _ second: [String], deviceOrder: [String]) -> [String] {
        let rank = Dictionary(uniqueKeysWithValues: deviceOrder.enumerated().map { ($1, $0) })
        return (first + second).enumerated().sorted {
            let a = rank[String($0.element.split(separator: " ")[0])]!, b = rank[String($1.element.split(separator: " ")[0])]!
            return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
    }

    func testLogCutAnywhereGivesTheEventsOfOneRun() throws {
        let compiled = try CompiledFences(try fences(), defaultDwell: settings.dwell)
        let (fixes, names) = try fixes()
        let (whole, _) = try evaluate(compiled, fixes[...], names: names, state: nil, threads: 1)
        XCTAssertGreaterThan(whole.count, 300)
        // Cut points: random, mid-device, and between two fixes of the same device and second.
        var rng = SeededGenerator(seed: 20)
        var cuts = (0..<18).map { _ in rng.int(1..<fixes.count) }
        if let same = (1..<fixes.count).first(where: { fixes[$0].device == fixes[$0 - 1].device && fixes[$0].time == fixes[$0 - 1].time }) {
            cuts.append(same)
        } else {
            cuts.append(1)
        }
        if let mid = (1..<fixes.count).first(where: { fixes[$0].device == fixes[$0 - 1].device && $0 > fixes.count / 2 }) { cuts.append(mid) }
        XCTAssertGreaterThanOrEqual(cuts.count, 20)
        for (k, cut) in cuts.enumerated() {
            let threads = k % 2 == 0 ? 1 : 2
            let (a, state) = try evaluate(compiled, fixes[..<cut], names: names, state: nil, threads: threads)
            let (b, _) = try evaluate(compiled, fixes[cut...], names: names, state: state, threads: threads)
            XCTAssertEqual(grouped(a, b, deviceOrder: names), whole, "cut at fix \(cut), \(threads) thread(s)")
        }
    }

    func testChangedFencesMatchTheReference() throws {
        let before = try fences()
        // The next day: some fences removed, some moved (changed), some added.
        var after: [Fence] = []
        var changedIDs: Set<String> = [], removedIDs: Set<String> = []
        for (k, f) in before.enumerated() {
            if k % 11 == 0 { removedIDs.insert(f.id); continue }
            var g = f
            if k % 7 == 0, case .circle(let lat, let lon, let r) = f.shape {
                g.shape = .circle(lat: lat + 0.01, lon: lon, radius: r * 1.5)
                changedIDs.insert(f.id)
            }
            after.append(g)
        }
        for (k, f) in before.enumerated() where k % 13 == 0 && f.shape.isCircle {
            guard case .circle(let lat, let lon, let r) = f.shape else { continue }
            after.append(Fence(id: f.id + "-new", shape: .circle(lat: lat, lon: lon + 0.002, radius: r * 2)))
        }
        let (fixes, names) = try fixes()
        let cut = fixes.count / 2
        // New fences around where devices are right after the cut: their first determination
        // there is an initial enter.
        var placed: Set<Int32> = []
        for f in fixes[cut...] where placed.insert(f.device).inserted {
            after.append(Fence(id: "at-\(names[Int(f.device)])-new", shape: .circle(lat: f.lat, lon: f.lon, radius: 300 + f.accuracy)))
        }
        let compiledBefore = try CompiledFences(before, defaultDwell: settings.dwell)
        let compiledAfter = try CompiledFences(after, defaultDwell: settings.dwell)
        let changes = FenceChanges(from: EvaluationState.records(before), to: EvaluationState.records(after))
        XCTAssertEqual(Set(changes.removed), removedIDs)
        XCTAssertEqual(Set(changes.changed), changedIDs)
        XCTAssertEqual(changes.added.count, after.count - (before.count - removedIDs.count))

        // Reference: one memory, fences forgotten (removed or changed) at the cut.
        let refA = ReferenceEvaluator(fences: before, exitMargin: settings.exitMargin, dwell: settings.dwell)
        let refB = ReferenceEvaluator(fences: after, exitMargin: settings.exitMargin, dwell: settings.dwell)
        var memory = ReferenceEvaluator.Memory()
        let ra = refA.run(Array(fixes[..<cut]), memory: &memory)
        memory.forget(removedIDs.union(changedIDs))
        let rb = refB.run(Array(fixes[cut...]), memory: &memory)
        func text(_ e: ReferenceEvaluator.Event) -> String {
            "\(names[Int(e.device)]) \(e.fence) \(e.type) \(e.time)\(e.initial ? " initial" : "")"
        }
        XCTAssertTrue(rb.contains { $0.initial && $0.fence.hasSuffix("-new") }, "new fences start unknown: initial enters")
        for threads in [1, 2] {
            let (a, state) = try evaluate(compiledBefore, fixes[..<cut], names: names, state: nil, threads: threads)
            let (b, _) = try evaluate(compiledAfter, fixes[cut...], names: names, state: state, changes: changes, threads: threads)
            XCTAssertEqual(a, ra.map(text))
            XCTAssertEqual(b, rb.map(text))
        }
    }

    func testCorruptStatesAreRefusedWithAReason() throws {
        let compiled = try CompiledFences(try fences(), defaultDwell: settings.dwell)
        let (fixes, names) = try fixes()
        let (_, state) = try evaluate(compiled, fixes[..<2000], names: names, state: nil, threads: 1)
        let bytes = state.encoded()
        func reason(_ b: [UInt8]) -> String? {
            do { _ = try EvaluationState(decoding: b, path: "s"); return nil } catch {
                guard case .input(let e) = error, e.kind == .malformed, e.location.file == "s" else { return "wrong error \(error)" }
                return e.message
            }
        }
        XCTAssertNil(reason(bytes))
        XCTAssertEqual(reason(Array(bytes.prefix(5))), "not a geofence state file (no GFSTATE1 signature)")
        XCTAssertEqual(reason(Array("{\"json\": true}".utf8)), "not a geofence state file (no GFSTATE1 signature)")
        var version = bytes
        version[8] = 9
        XCTAssertEqual(reason(version), "state file version 9; this geofence reads version 1")
        var endian = bytes
        endian.replaceSubrange(12..<16, with: [1, 2, 3, 4])
        XCTAssertEqual(reason(endian), "state file written with another byte order")
        var rng = SeededGenerator(seed: 99)
        for _ in 0..<300 {
            var b = bytes
            if rng.chance(0.5) {
                b.removeLast(rng.int(1..<b.count - 16))                       // truncated
            } else {
                let at = rng.int(16..<b.count)
                b[at] ^= UInt8(1 + rng.int(0..<255))                          // a flipped byte
            }
            XCTAssertNotNil(reason(b), "a damaged state must be refused")
        }
    }
}
