import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceEvaluation

/// The library's entry point against the independent `ReferenceEvaluator` (exact
/// geodesics + GEOS): streamed events, host-fed sessions, typed queries.
final class GeofencerTests: XCTestCase {
    typealias data = EvaluatorReferenceTests

    /// Events grouped by device in order of first appearance, each device's in stream
    /// order: the order `geofence evaluate` writes and the reference produces.
    func grouped(_ events: [Event], devices: DeviceTable) -> [ReferenceEvaluator.Event] {
        let byDevice = Dictionary(grouping: events.enumerated(), by: { devices.index(of: $0.element.device)! })
        return byDevice.keys.sorted().flatMap { d in
            byDevice[d]!.sorted { $0.offset < $1.offset }.map { e in
                ReferenceEvaluator.Event(device: d, fence: e.element.fence, type: e.element.type.name, time: e.element.time,
                                         initial: e.element.initial)
            }
        }
    }

    func optionedFences() throws -> [Fence] { try data.optionedFences() }

    func testStreamedEventsMatchReference() throws {
        let fences = try optionedFences()
        let settings = EvaluationSettings(exitMargin: 20, dwell: 900)
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 20, dwell: 900).run(try data.realFixes(accuracySeed: Optional<UInt64>.none))
        XCTAssertGreaterThan(reference.count, 300)
        let engine = try Geofencer(fences: fences)
        for (threads, batch) in [(1, 65_536), (1, 97), (2, 1000)] {
            let stream = try engine.evaluate(logs: [EvaluatorReferenceTests.root + "/data/virginia_beach_ais.csv"],
                                             settings: settings, threads: threads, batchSize: batch)
            let events = try stream.collect()
            XCTAssertNil(stream.error)
            data.compare(grouped(events, devices: stream.devices), reference)
            XCTAssertEqual(stream.summary.fixes, 6132)
            XCTAssertEqual(stream.summary.events.values.reduce(0, +), reference.count)
            if batch == 65_536 {
                // One batch: the stream order is the reference's (and the CLI's) order itself.
                XCTAssertEqual(events.map { $0.time }, reference.map { $0.time })
            }
        }
    }

    func testSessionFedFixByFixMatchesReference() throws {
        let fences = try optionedFences()
        let reader = try LogReader(path: EvaluatorReferenceTests.root + "/data/virginia_beach_ais.csv")
        let fixes = try reader.readAll()
        let reference = ReferenceEvaluator(fences: fences, exitMargin: 20, dwell: 900).run(fixes)
        let session = try Geofencer(fences: fences).session(settings: EvaluationSettings(exitMargin: 20, dwell: 900))
        var events: [Event] = []
        for f in fixes {
            events += try session.apply(DeviceFix(device: reader.devices.name(f.device), time: f.time, lat: f.lat, lon: f.lon,
                                                  accuracy: f.accuracy))
        }
        XCTAssertEqual(session.fixCount, fixes.count)
        data.compare(grouped(events, devices: session.devices), reference)
    }

    func testSessionSnapshotContinuesInANewSession() throws {
        let fences = try optionedFences()
        let engine = try Geofencer(fences: fences)
        let reader = try LogReader(path: EvaluatorReferenceTests.root + "/data/virginia_beach_ais.csv")
        let fixes = try reader.readAll().map {
            DeviceFix(device: reader.devices.name($0.device), time: $0.time, lat: $0.lat, lon: $0.lon, accuracy: $0.accuracy)
        }
        let settings = EvaluationSettings(exitMargin: 20, dwell: 900)
        let one = engine.session(settings: settings)
        let whole = try one.apply(fixes)
        let cut = fixes.count / 3
        let first = engine.session(settings: settings)
        var events = try first.apply(Array(fixes[..<cut]))
        let state = try EvaluationState(decoding: first.snapshot().encoded(), path: "snapshot")
        let (second, changes) = try engine.session(restoring: state, settings: settings, threads: 2)
        XCTAssertTrue(changes.isIdentity)
        events += try second.apply(Array(fixes[cut...]))
        XCTAssertEqual(grouped(events, devices: second.devices), grouped(whole, devices: one.devices))
        // The time order holds across the snapshot.
        XCTAssertThrowsError(try second.apply(DeviceFix(device: fixes[0].device, time: fixes[0].time - 1, lat: 36.9, lon: -76.3)))
        // Another fence set is refused unless accepted.
        let other = try Geofencer(fences: Array(fences.dropFirst()))
        XCTAssertThrowsError(try other.session(restoring: state, settings: settings))
        XCTAssertEqual(try other.session(restoring: state, fences: .changed, settings: settings).1.removed, [fences[0].id])
    }

    func testSessionRefusesBadFixesWithoutApplyingAnything() throws {
        let session = try Geofencer(fences: [.circle(id: "c", lat: 10, lon: 10, radius: 1000)]).session()
        XCTAssertEqual(try session.apply(DeviceFix(device: "a", time: 100, lat: 10, lon: 10)).map(\.type), [.enter])
        func reason(_ fixes: [DeviceFix]) -> String? {
            do { _ = try session.apply(fixes); return nil } catch {
                guard case .input(let e) = error, case .invalidRecord(let r) = e.kind else { return "wrong error \(error)" }
                return r
            }
        }
        let outside = DeviceFix(device: "a", time: 200, lat: 11, lon: 10)
        XCTAssertEqual(reason([outside, DeviceFix(device: "a", time: 150, lat: 10, lon: 10)]), "time_backwards")
        XCTAssertEqual(reason([outside, DeviceFix(device: "b", time: 1, lat: 91, lon: 0)]), "latitude_out_of_range")
        XCTAssertEqual(reason([DeviceFix(device: "a", time: 100, lat: 10, lon: 10)]), "duplicate_fix")
        XCTAssertEqual(reason([DeviceFix(device: "a", time: .nan, lat: 10, lon: 10)]), "not_finite")
        XCTAssertEqual(reason([DeviceFix(device: "a", time: 300, lat: 10, lon: 10, accuracy: -1)]), "negative_accuracy")
        // Nothing of the refused calls was applied: no device "b", and "a" is still inside.
        XCTAssertNil(session.devices.index(of: "b"))
        XCTAssertEqual(session.fixCount, 1)
        XCTAssertEqual(try session.apply(outside).map(\.type), [.exit])
    }

    func testStreamStopsAtABadRowWithItsLocation() throws {
        let path = CLI.tempPath("bad.csv")
        try "device,time,lat,lon\na,2020-01-01T00:00:00Z,10,10\na,2020-01-01T00:01:00Z,95,10\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stream = try Geofencer(fences: [.circle(id: "c", lat: 10, lon: 10, radius: 1000)]).evaluate(log: path)
        var seen = 0
        for _ in stream { seen += 1 }
        XCTAssertEqual(seen, 0, "the batch with the bad row yields nothing in strict mode")
        guard case .input(let e)? = stream.error else { return XCTFail("expected an input error, got \(String(describing: stream.error))") }
        XCTAssertEqual(e.location, SourceLocation(file: path, line: 3))
        XCTAssertEqual(e.kind, .invalidRecord(reason: "latitude_out_of_range"))
        XCTAssertThrowsError(try stream.nextEvent())
    }

    /// Typed answers against a brute force over every fence (exact geodesic for circles).
    func testContainsAndNearestMatchBruteForce() throws {
        var rng = SeededGenerator(seed: 5)
        var fences: [Fence] = []
        for k in 0..<400 {
            fences.append(.circle(id: "f\(k)", lat: rng.uniform(36, 38), lon: rng.uniform(-77, -75), radius: rng.uniform(100, 20_000)))
        }
        let engine = try Geofencer(fences: fences)
        for _ in 0..<200 {
            let lat = rng.uniform(36, 38), lon = rng.uniform(-77, -75)
            var dist: [(String, Double)] = []
            for f in fences {
                guard case .circle(let clat, let clon, let r) = f.shape else { continue }
                dist.append((f.id, Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: clat, lon2: clon) - r))
            }
            let inside = dist.filter { $0.1 <= 0 }.map(\.0).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            XCTAssertEqual(engine.contains(lat: lat, lon: lon).inside.map(\.id), inside)
            let ranked = dist.map { ($0.0, max(0, $0.1)) }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            let answer = engine.nearest(lat: lat, lon: lon, slots: 20)
            XCTAssertEqual(answer.monitor.map(\.id), ranked.prefix(19).map(\.0))
            XCTAssertEqual(answer.next, ranked[19].0)
            XCTAssertEqual(answer.refreshRadius!, ranked[19].1, accuracy: 1e-6)
        }
    }

    /// The library page's moving-device example, checked against a brute force: the refresh
    /// radius is the safe radius of the distance to the nearest unmonitored fence.
    func testMovingDevicePlanOfTheLibraryPage() throws {
        var rng = SeededGenerator(seed: 8)
        var fences: [Fence] = []
        for k in 0..<400 {
            fences.append(.circle(id: "f\(k)", lat: rng.uniform(36, 38), lon: rng.uniform(-77.5, -75), radius: rng.uniform(100, 3_000)))
        }
        let engine = try Geofencer(fences: fences)
        var settings = Planner.Settings(exitDistance: 100)
        settings.delay = 20
        settings.acceleration = 0.2
        settings.adaptiveHorizon = true
        let moving = try engine.planner(settings: settings)
        let fast = moving.plan(lat: 36.85, lon: -76.30, motion: .init(speed: 250, interval: 10, heading: 90))
        var dist: [(String, Double)] = []
        for f in fences {
            guard case .circle(let clat, let clon, let r) = f.shape else { continue }
            dist.append((f.id, max(0, Geodesic.wgs84.distance(lat1: 36.85, lon1: -76.30, lat2: clat, lon2: clon) - r)))
        }
        let monitored = Set(fast.fences.map { moving.index.identifier(of: $0) })
        let coverage = dist.filter { !monitored.contains($0.0) }.map(\.1).min()!
        XCTAssertEqual(fast.coverage, coverage, accuracy: 1e-6)
        if fast.guaranteeBroken {
            XCTAssertEqual(fast.refresh!.radius, 100)
        } else {
            XCTAssertEqual(fast.refresh!.radius, min(100_000, moving.safeRadius(coverage: coverage, motion: .init(speed: 250, interval: 10))), accuracy: 1e-6)
            // At 250 m/s for 30 s the device covers at least 7.5 km beyond the region's edge.
            XCTAssertGreaterThanOrEqual(fast.reach, 100 + 250 * 30 - 1e-6)
        }
    }
}
