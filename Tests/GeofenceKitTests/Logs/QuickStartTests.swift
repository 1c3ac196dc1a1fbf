import Foundation
import XCTest
@testable import GeofenceLogs
import GeofenceBase

/// `quickStart`: the first rounds of a parallel read are small and handed out at once; the
/// fixes, their order, the skips and the errors are those of a serial read.
final class QuickStartTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func batches(_ path: String, threads: Int, quick: Bool, skip: Bool = false, chunk: Int = 1 << 20) throws(GeofenceError) -> ([[Fix]], LogReader) {
        var options = LogReaderOptions(skipInvalid: skip)
        options.threads = threads
        options.quickStart = quick
        options.parallelChunkSize = chunk
        let reader = try LogReader(path: path, options: options)
        var out: [[Fix]] = []
        var batch: [Fix] = []
        while try reader.next(into: &batch, max: 65_536) { out.append(batch); batch.removeAll(keepingCapacity: true) }
        return (out, reader)
    }

    func testSameFixesAndErrorsWithSmallFirstBatches() throws {
        let ais = packageRoot + "/data/virginia_beach_ais.csv"
        var lines = try String(contentsOfFile: ais, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // A bad row late in the file (after the first small rounds) and a time going backwards.
        lines[5_000] = "369493712,not-a-time,36.9,-76.3"
        lines[5_500] = lines[10]
        let bad = tmp + "/bad.csv"
        try lines.joined(separator: "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        // A log of a few first rounds (the bundled ones are one round each).
        let large = writeLargeLog(tmp, rows: 3 * ParallelReader.firstRoundBytes / 40)
        for path in [ais, bad, packageRoot + "/data/flights_us.csv", large] {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let serial = try batches(path, threads: 1, quick: false, skip: true)
            for threads in [2, 8] {
                for chunk in [1 << 20, 4096] {
                    let quick = try batches(path, threads: threads, quick: true, skip: true, chunk: chunk)
                    XCTAssertEqual(quick.0.flatMap { $0 }, serial.0.flatMap { $0 }, "\(path) \(threads) threads")
                    XCTAssertEqual(quick.1.skipped, serial.1.skipped, path)
                    XCTAssertEqual(quick.1.devices.names, serial.1.devices.names, path)
                    // The first batch is one small round, not the whole log (where the log and a
                    // full round are larger than that).
                    if ParallelReader.firstRoundBytes < Swift.min(size, 2 * threads * chunk) {
                        XCTAssertGreaterThan(quick.0.count, 1, path)
                        XCTAssertLessThan(quick.0[0].count, serial.0[0].count, path)
                    }
                    // The header's first fix goes out with the first round, not alone.
                    XCTAssertGreaterThan(quick.0[0].count, 1, path)
                }
            }
        }
        // Logs of no row, one and a few: every fix, in one batch.
        for rows in [0, 1, 3] {
            let path = tmp + "/rows\(rows).csv"
            let text = "device,time,lat,lon\n" + (0..<rows).map { "d\($0 % 2),\(1_700_000_000 + $0),45.5,5.25\n" }.joined()
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let serial = try batches(path, threads: 1, quick: false)
            for threads in [2, 8] {
                let quick = try batches(path, threads: threads, quick: true)
                XCTAssertEqual(quick.0, serial.0, "\(rows) rows, \(threads) threads")
                XCTAssertEqual(quick.0.count, rows == 0 ? 0 : 1, "\(rows) rows, \(threads) threads")
            }
        }
        // Strict: the same error, at the same line.
        func error(_ threads: Int, _ quick: Bool) -> String {
            do { _ = try batches(bad, threads: threads, quick: quick); return "no error" } catch { return "\(error)" }
        }
        XCTAssertTrue(error(1, false).contains(":5001:"), error(1, false))
        XCTAssertEqual(error(2, true), error(1, false))
        XCTAssertEqual(error(8, true), error(1, false))
    }

    /// A parallel read into a reused batch writes the caller's array every time (the reader's
    /// own array and the caller's are not handed out in turn, which wrote twice the fresh
    /// pages) and gives it back on every way out: a batch, the end of the log, a batch smaller
    /// than a round (the rest kept for the next call), a strict error. The fixes are a serial
    /// read's.
    func testParallelReadWritesTheCallersArray() throws {
        let path = writeLargeLog(tmp, rows: 6 * ParallelReader.firstRoundBytes / 40)
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[lines.count - 20] = "dev1,not-a-time,1,2,3"
        let bad = tmp + "/bad-late.csv"
        try lines.joined(separator: "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let serial = try batches(path, threads: 1, quick: false).0.flatMap { $0 }
        let room = 4 * 65_536
        for threads in [2, 8] {
            for (max, quick) in [(room, true), (65_536, false), (1_000, true)] {
                let what = "\(threads) threads, max \(max), quick start \(quick)"
                var options = LogReaderOptions()
                options.threads = threads
                options.quickStart = quick
                var batch: [Fix] = []
                batch.reserveCapacity(room)
                let storage = batch.withUnsafeBufferPointer { $0.baseAddress }
                let reader = try LogReader(path: path, options: options)
                var all: [Fix] = [], batches = 0
                while try reader.next(into: &batch, max: max) {
                    batches += 1
                    XCTAssertEqual(batch.withUnsafeBufferPointer { $0.baseAddress }, storage, "\(what), batch \(batches)")
                    all += batch
                }
                XCTAssertGreaterThan(batches, 2, "\(what): several batches")
                XCTAssertEqual(all, serial, what)
                XCTAssertTrue(batch.isEmpty, what)
                XCTAssertGreaterThanOrEqual(batch.capacity, room, "\(what): the end gives the array back")
                XCTAssertEqual(batch.withUnsafeBufferPointer { $0.baseAddress }, storage, "\(what): the end")

                // Strict, a bad row near the end: the error, and the array back, empty.
                let failing = try LogReader(path: bad, options: options)
                var failed = false
                do { while try failing.next(into: &batch, max: max) {} } catch { failed = true }
                XCTAssertTrue(failed, what)
                XCTAssertTrue(batch.isEmpty, what)
                XCTAssertGreaterThanOrEqual(batch.capacity, room, "\(what): the error gives the array back")
            }
        }
    }
}
