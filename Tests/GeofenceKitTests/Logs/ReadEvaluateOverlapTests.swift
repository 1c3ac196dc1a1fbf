import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceLogs
@testable import GeofenceEvaluation

/// Reading overlapped with evaluation (``LogReaderOptions/readAhead``): the next round of a
/// parallel read is parsed while the caller evaluates the batch it was given. The command's loop (read, evaluate, spill past a
/// budget, write, save the state) gives the same bytes at 1, 2 and 8 threads with chunks
/// forced small, batches of any size, lenient or strict.
final class ReadEvaluateOverlapTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Text output kept in memory.
    struct StringSink: TextSink {
        var text = ""
        mutating func write(_ s: String) throws(GeofenceError) { text += s }
    }

    /// The bundled AIS log as 8 fleets (each device copied with a small offset, rows
    /// interleaved), with device ids quoted over a newline, and bad rows and rows out of order
    /// after row `badAfter`.
    func fleetLog(badAfter: Int = 0) throws -> String {
        let text = try String(contentsOfFile: packageRoot + "/data/virginia_beach_ais.csv", encoding: .utf8)
        var s = "device,time,lat,lon,accuracy\n"
        var n = 0
        for row in text.split(separator: "\n").dropFirst() {
            let f = row.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 4, let lat = Double(f[2]), let lon = Double(f[3]) else { continue }
            for k in 0..<8 {
                n += 1
                let device = k == 3 ? "\"\(f[0])\nfleet \(k)\"" : "\(f[0])-\(k)"
                let la = String(format: "%.6f", lat + Double(k) * 2e-4), lo = String(format: "%.6f", lon - Double(k) * 1e-4)
                switch n > badAfter ? n % 1009 : 0 {
                case 7: s += "\(device),\(f[1]),north,\(lo),5\n"                 // bad latitude
                case 13: s += "\(device),2001-01-01T00:00:00Z,\(la),\(lo),5\n"   // time goes backwards
                case 19: s += "\n"                                               // blank line
                default: s += "\(device),\(f[1]),\(la),\(lo),\(n % 40)\n"
                }
            }
        }
        return s
    }

    /// What the command's loop makes of a log: the event bytes, the saved state, the skips
    /// and their first messages, or the error.
    struct Outcome: Equatable {
        var events = ""
        var state: [UInt8] = []
        var skipped: [SkipReason: Int] = [:]
        var messages: [SkipReason: String] = [:]
        var spilled = false
        var error: String? = nil
        /// Batches evaluated with the devices the reader handed out with them.
        var batchesWithDevices = 0
    }

    func run(_ path: String, _ compiled: CompiledFences, threads: Int, chunk: Int, batch: Int, lenient: Bool, budget: Int,
             readAhead: Bool = true, switching: Bool = false, quickStart: Bool = false, withDevices: Bool = false) -> Outcome {
        var o = Outcome()
        let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(exitMargin: 10, dwell: 600), threads: threads)
        run.minimumSlice = 64
        let devices = DeviceTable()
        let spill = EventSpill(prefix: dir + "/spill-\(threads)-\(chunk)-\(batch)-")
        defer { spill.removeAll() }
        var options = LogReaderOptions(skipInvalid: lenient)
        options.threads = threads
        options.parallelChunkSize = chunk
        options.readAhead = readAhead
        options.quickStart = quickStart
        do {
            let reader = try LogReader(path: path, options: options, devices: devices)
            var fixes: [Fix] = []
            var number = 0
            while try reader.next(into: &fixes, max: batch) {
                // Switching: as `CoreSharing` may, batch by batch (reading ahead with the batch
                // evaluated on this thread alone, or neither), in an irregular pattern.
                let pipelined = switching && number % 3 != 1
                let batchDevices = withDevices ? reader.batchDevices : nil
                if batchDevices != nil { o.batchesWithDevices += 1 }
                run.process(fixes, onOneThread: pipelined, devices: batchDevices)
                if switching { reader.readAhead = number % 5 < 3 }
                number += 1
                if 2 * run.heldEvents * EventSpill.eventBytes > budget { try run.spill(into: spill) }
            }
            o.skipped = reader.skipped
            o.messages = reader.firstSkipMessages
            var sink = StringSink()
            try run.write(to: &sink, format: .ndjson, deviceName: { devices.name($0) }, spill: spill)
            o.events = sink.text
            o.state = run.snapshot(devices: devices).encoded()
            o.spilled = !spill.paths.isEmpty
        } catch {
            o.error = "\(error)"
        }
        return o
    }

    /// The fleet log read leniently (with two bad rows skipped) and strictly (a late row
    /// failing), each read serially first: `body` gets the log, the fences, the mode and the
    /// serial outcome to compare with.
    func forEachFleetLog(_ body: (String, CompiledFences, Bool, Outcome) throws -> Void) throws {
        let lenientPath = writeFile(dir, "fleet.csv", try fleetLog())
        let strictPath = writeFile(dir, "late.csv", try fleetLog(badAfter: 40_000))
        let compiled = try CompiledFences(try EvaluatorReferenceTests.realFences(), defaultDwell: 600)
        for lenient in [true, false] {
            let path = lenient ? lenientPath : strictPath
            try body(path, compiled, lenient, run(path, compiled, threads: 1, chunk: 1 << 20, batch: 65_536, lenient: lenient, budget: 4096))
        }
    }

    func testSameBytesAtAnyThreadCountChunkAndBatch() throws {
        try forEachFleetLog { path, compiled, lenient, serial in
            if lenient {
                XCTAssertNil(serial.error)
                XCTAssertTrue(serial.spilled, "the budget makes the run spill")
                XCTAssertGreaterThan(serial.events.count, 10_000)
                XCTAssertEqual(serial.skipped.count, 2, "\(serial.skipped)")
            } else {
                XCTAssertTrue(serial.error?.contains("late.csv:4") ?? false, "\(String(describing: serial.error))")
            }
            for threads in [2, 8] {
                for chunk in [97, 4096, 1 << 20] {
                    for batch in [1000, 65_536] {
                        let parallel = run(path, compiled, threads: threads, chunk: chunk, batch: batch, lenient: lenient, budget: 4096)
                        XCTAssertEqual(parallel.error, serial.error, "threads \(threads), chunk \(chunk), batch \(batch)")
                        XCTAssertEqual(parallel.skipped, serial.skipped, "threads \(threads), chunk \(chunk), batch \(batch)")
                        XCTAssertEqual(parallel.messages, serial.messages, "threads \(threads), chunk \(chunk), batch \(batch)")
                        XCTAssertEqual(parallel.state, serial.state, "threads \(threads), chunk \(chunk), batch \(batch)")
                        XCTAssertTrue(parallel.events == serial.events, "threads \(threads), chunk \(chunk), batch \(batch): events differ")
                    }
                }
            }
        }
    }

    /// Reading ahead switched on and off between batches and batches evaluated on one thread or
    /// in slices (``CoreSharing``'s two modes, mixed): the serial read's events, state, skips
    /// and errors.
    func testSharingSwitchedBatchByBatchSameBytes() throws {
        try forEachFleetLog { path, compiled, lenient, serial in
            for threads in [2, 8] {
                for chunk in [97, 1 << 20] {
                    let mixed = run(path, compiled, threads: threads, chunk: chunk, batch: 1000, lenient: lenient, budget: 4096,
                                    readAhead: false, switching: true)
                    XCTAssertEqual(mixed.error, serial.error, "threads \(threads), chunk \(chunk)")
                    XCTAssertEqual(mixed.skipped, serial.skipped, "threads \(threads), chunk \(chunk)")
                    XCTAssertEqual(mixed.state, serial.state, "threads \(threads), chunk \(chunk)")
                    XCTAssertTrue(mixed.events == serial.events, "threads \(threads), chunk \(chunk): events differ")
                }
            }
        }
    }

    /// Batches evaluated with the devices the reader hands out with them (rather than a pass
    /// over their fixes, docs/logs.md#the-devices-of-a-batch), reading rounds of every size as
    /// `evaluate` reads (quick start): the serial read's events, state, skips and errors; most
    /// batches come with their devices.
    func testBatchDevicesGiveTheSameBytes() throws {
        try forEachFleetLog { path, compiled, lenient, serial in
            for threads in [2, 8] {
                for chunk in [97, 4096] {
                    for readAhead in [false, true] {
                        let given = run(path, compiled, threads: threads, chunk: chunk, batch: 65_536, lenient: lenient, budget: 4096,
                                        readAhead: readAhead, quickStart: true, withDevices: true)
                        let label = "threads \(threads), chunk \(chunk), read ahead \(readAhead)"
                        XCTAssertEqual(given.error, serial.error, label)
                        XCTAssertEqual(given.skipped, serial.skipped, label)
                        XCTAssertEqual(given.messages, serial.messages, label)
                        XCTAssertEqual(given.state, serial.state, label)
                        XCTAssertTrue(given.events == serial.events, "\(label): events differ")
                        XCTAssertGreaterThan(given.batchesWithDevices, 0, label)
                    }
                }
            }
        }
    }

    /// After a batch is handed out, the next round is already being parsed; a reader dropped
    /// then waits for it (ThreadSanitizer and the allocator see no use after free).
    func testNextRoundParsedAheadAndDroppedSafely() throws {
        let path = writeFile(dir, "fleet.csv", try fleetLog())
        var options = LogReaderOptions(skipInvalid: true)
        options.threads = 2
        options.parallelChunkSize = 4096
        options.readAhead = true
        let reader = try LogReader(path: path, options: options)
        var fixes: [Fix] = []
        XCTAssertTrue(try reader.next(into: &fixes, max: 10))
        XCTAssertTrue(reader.roundPending, "a round is parsed while the caller works")
        options.readAhead = false
        let plain = try LogReader(path: path, options: options)
        XCTAssertTrue(try plain.next(into: &fixes, max: 10))
        XCTAssertFalse(plain.roundPending, "no read-ahead unless asked")
        options.readAhead = true
        for _ in 0..<20 {
            let r = try LogReader(path: path, options: options)
            XCTAssertTrue(try r.next(into: &fixes, max: 5))
        }
    }

    /// With reading ahead, the next round is begun as soon as the chunks of the one being
    /// joined are all taken (the workers go on with it meanwhile), and the fixes are the serial
    /// read's; without, no round is begun ahead. A mapped file (rounds begun ahead) and a file
    /// read through the buffer, lenient and strict (the round after a bad row or a quoted
    /// newline across a chunk is dropped, and the read goes on, or stops, as a serial one does).
    func testRoundsBegunAheadGiveTheSerialFixes() throws {
        let lenientPath = writeFile(dir, "fleet.csv", try fleetLog())
        let strictPath = writeFile(dir, "late.csv", try fleetLog(badAfter: 40_000))
        func read(_ path: String, threads: Int, readAhead: Bool, mapped: Bool, lenient: Bool) -> ([Fix], String?, Int) {
            var options = LogReaderOptions(skipInvalid: lenient)
            options.threads = threads
            options.parallelChunkSize = 4096
            options.readAhead = readAhead
            if !mapped { options.mapThreshold = Int.max }
            var all: [Fix] = [], batch: [Fix] = []
            do {
                let reader = try LogReader(path: path, options: options)
                do {
                    while try reader.next(into: &batch, max: 1000) { all += batch }
                } catch {
                    return (all, "\(error)", reader.roundsBegunAhead)
                }
                return (all, nil, reader.roundsBegunAhead)
            } catch {
                return (all, "\(error)", 0)
            }
        }
        for (path, lenient) in [(lenientPath, true), (strictPath, false)] {
            let serial = read(path, threads: 1, readAhead: false, mapped: true, lenient: lenient)
            XCTAssertEqual(serial.1 != nil, !lenient, "\(String(describing: serial.1))")
            for mapped in [true, false] {
                for threads in [2, 8] {
                    let ahead = read(path, threads: threads, readAhead: true, mapped: mapped, lenient: lenient)
                    XCTAssertTrue(ahead.0 == serial.0, "threads \(threads), mapped \(mapped), lenient \(lenient)")
                    XCTAssertEqual(ahead.1, serial.1, "threads \(threads), mapped \(mapped)")
                    // A mapped file always holds the next round; a read buffer only when it is
                    // at the end of input.
                    if mapped { XCTAssertGreaterThan(ahead.2, 0, "threads \(threads), lenient \(lenient)") }
                    let plain = read(path, threads: threads, readAhead: false, mapped: mapped, lenient: lenient)
                    XCTAssertTrue(plain.0 == serial.0, "threads \(threads), mapped \(mapped), lenient \(lenient)")
                    XCTAssertEqual(plain.2, 0)
                }
            }
        }
    }
}
