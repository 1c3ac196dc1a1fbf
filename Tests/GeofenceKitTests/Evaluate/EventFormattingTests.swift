import XCTest
import GeofenceBase
import GeofenceIndex
import GeofenceLogs
@testable import GeofenceEvaluation

/// The events held to the end are formatted by the workers in blocks of whole devices: a
/// few thousand events still make a block for every worker (all of them in one block kept one
/// thread busy while the others waited), and the text is the same bytes as one thread writes.
final class EventFormattingTests: XCTestCase {
    struct StringSink: TextSink {
        var text = ""
        mutating func write(_ s: String) throws(GeofenceError) { text += s }
    }

    /// `devices` devices, each entering and leaving a circle `crossings` times.
    func written(threads: Int, devices: Int, crossings: Int) throws -> (text: String, blocks: Int, events: Int) {
        let compiled = try CompiledFences([.circle(id: "c", lat: 10, lon: 20, radius: 500)])
        let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: threads)
        run.minimumSlice = 64
        var batch: [Fix] = []
        for step in 0..<(2 * crossings) {
            for d in 0..<devices {
                // Inside at even steps, 5 km north at odd ones.
                let lat = 10 + (step % 2 == 0 ? 0.0 : 0.045) + Double(d) * 1e-7
                batch.append(Fix(device: Int32(d), time: Double(1_700_000_000 + step * 60), lat: lat, lon: 20, accuracy: 5))
            }
        }
        run.process(batch)
        var sink = StringSink()
        let counts = try run.write(to: &sink, format: .csv, deviceName: { "device-\($0)" })
        return (sink.text, run.formattedBlocks, counts.values.reduce(0, +))
    }

    func testFewEventsAreFormattedByEveryWorker() throws {
        for (devices, crossings) in [(300, 5), (40, 30), (2_000, 1)] {
            let one = try written(threads: 1, devices: devices, crossings: crossings)
            let two = try written(threads: 2, devices: devices, crossings: crossings)
            XCTAssertGreaterThanOrEqual(one.events, devices * (2 * crossings - 1))
            XCTAssertEqual(two.events, one.events)
            XCTAssertEqual(two.text, one.text, "\(devices) devices")
            // Under 16,384 events: blocks of events / 8 (512 at least), a block for every worker.
            XCTAssertGreaterThanOrEqual(two.blocks, 2, "\(devices) devices, \(two.events) events")
            XCTAssertGreaterThanOrEqual(two.blocks, min(8, two.events / 600), "\(devices) devices, \(two.events) events")
        }
    }
}
