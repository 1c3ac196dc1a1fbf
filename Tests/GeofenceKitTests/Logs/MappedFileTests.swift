import Foundation
import XCTest
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceLogs

/// A large plain log is mapped instead of read: the same fixes, devices, skips, messages and
/// errors as a read, at any thread count, whatever the file's last bytes; gzip is never
/// mapped as text (a small one is inflated from its mapping: `GzipWholeHandOverTests`); and a
/// file that shrinks while it is mapped is reported, never a crash.
final class MappedFileTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    typealias Outcome = ParallelReadTests.Outcome

    /// The outcome of reading `path` with every file read, then with every file mapped.
    func readAndMapped(_ path: String, _ options: LogReaderOptions, batch: Int) -> (read: Outcome, mapped: Outcome) {
        var o = options
        o.mapThreshold = Int.max
        let read = ParallelReadTests.outcome(path, o, batch: batch)
        o.mapThreshold = 0
        return (read, ParallelReadTests.outcome(path, o, batch: batch))
    }

    func assertMappedReadsTheSame(_ path: String, _ base: LogReaderOptions, file: StaticString = #filePath, line: UInt = #line) {
        var all = base
        all.mapThreshold = 0
        let mapped = (try? LogReader(path: path, options: all))?.isMapped
        XCTAssertEqual(mapped, true, "\(path) is mapped", file: file, line: line)
        for batch in [3, 8192] {
            for threads in [1, 2, 8] {
                for chunk in threads == 1 ? [1 << 20] : [5, 64, 1000, 1 << 20] {
                    var o = base
                    o.threads = threads
                    o.parallelChunkSize = chunk
                    let (read, mapped) = readAndMapped(path, o, batch: batch)
                    if read != mapped {
                        XCTFail("\(path): threads \(threads), chunk \(chunk), batch \(batch): mapped differs from read:\n"
                                + "read: \(read.error.map { "\($0)" } ?? "ok") \(read.skipped) \(read.batches.joined().count) fixes\n"
                                + "mapped: \(mapped.error.map { "\($0)" } ?? "ok") \(mapped.skipped) \(mapped.batches.joined().count) fixes",
                                file: file, line: line)
                        return
                    }
                }
            }
        }
    }

    func testGeneratedCSVMappedReadsTheSame() {
        for seed in 1...8 as ClosedRange<UInt64> {
            let path = writeFile(dir, "messy\(seed).csv", ParallelReadTests.messyCSV(seed: seed, rows: 300, bad: seed % 2 == 0, millis: seed % 3 == 0))
            assertMappedReadsTheSame(path, LogReaderOptions(skipInvalid: seed % 4 < 2))
        }
    }

    func testNDJSONAndFixturesMappedReadTheSame() {
        for name in ["small.csv", "quoted.csv", "columns.csv", "small.ndjson"] {
            var o = LogReaderOptions(skipInvalid: true)
            if name == "columns.csv" { o.columns = LogColumns(device: "vehicle", time: "ts", lat: "y", lon: "x") }
            assertMappedReadsTheSame(logFixture(name), o)
        }
        assertMappedReadsTheSame(packageRoot + "/data/virginia_beach_ais.csv", LogReaderOptions())
    }

    /// Files that end exactly on a page boundary (a load past the last byte must stay in the
    /// mapping), with and without a newline at the end, a number or a name last.
    func testFilesEndingOnAPageBoundary() {
        for (k, ending) in ["\n", "", "\r\n"].enumerated() {
            for lastIsNumber in [true, false] {
                let header = lastIsNumber ? "device,time,lat,lon\n" : "time,lat,lon,device\n"
                var text = header
                var i = 0
                func row(_ i: Int) -> String {
                    lastIsNumber ? "d\(i % 7),\(1_700_000_000 + i),\(Double(i % 90) + 0.125),\(Double(i % 180) - 0.5)"
                                 : "\(1_700_000_000 + i),\(Double(i % 90) + 0.125),\(Double(i % 180) - 0.5),d\(i % 7)"
                }
                while 3 * 4096 - text.utf8.count > 120 {                     // rows are under 60 bytes
                    text += row(i) + "\n"
                    i += 1
                }
                // Pad the last row's last field to end the file exactly at 3 pages.
                var last = row(i)
                let missing = 3 * 4096 - text.utf8.count - last.utf8.count - ending.utf8.count
                // Trailing zeros of the longitude (it has a decimal point), or letters of the name.
                last += String(repeating: lastIsNumber ? "0" : "x", count: missing)
                text += last + ending
                XCTAssertEqual(text.utf8.count, 3 * 4096)
                let path = writeFile(dir, "page\(k)\(lastIsNumber).csv", text)
                assertMappedReadsTheSame(path, LogReaderOptions())
                assertMappedReadsTheSame(path, LogReaderOptions(skipInvalid: true))
            }
        }
    }

    func testGzipIsNotMapped() throws {
        let csv = packageRoot + "/data/virginia_beach_ais.csv"
        let gz = dir + "/ais.csv.gz"
        XCTAssertEqual(runTool("/bin/gzip", ["-c", csv], stdout: gz), 0)
        var all = LogReaderOptions()
        all.mapThreshold = 0
        let reader = try LogReader(path: gz, options: all)
        XCTAssertFalse(reader.isMapped)
        XCTAssertTrue(reader.isCompressed)
        let fixes = try reader.readAll()
        XCTAssertEqual(fixes, try readLog(csv).fixes)
    }

    /// `bytes` written to a file in the test's directory, mapped (the mapping outlives the
    /// descriptor, closed here).
    func mapFile(_ name: String, _ bytes: [UInt8]) -> MappedFile? {
        let path = dir + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        return MappedFile(fd: fd, size: bytes.count)
    }

    /// Pages dropped from the process (by the reader's step, or by a parse worker from any
    /// thread) read the file's bytes again; the mark only rises, whole pages only, never past
    /// the file, whatever order two threads drop in.
    func testDroppedPagesReadTheSameFromAnyThread() {
        var bytes = [UInt8](repeating: 0, count: 300_001)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13) }
        guard let mapped = mapFile("dropped.txt", bytes) else { return XCTFail("not mapped") }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        func same() -> Bool { Array(UnsafeBufferPointer(start: UnsafePointer(mapped.base), count: bytes.count)) == bytes }
        XCTAssertTrue(same())
        mapped.drop(below: mapped.base + 3 * page + 17)
        XCTAssertEqual(mapped.released, 3 * page)
        mapped.drop(below: mapped.base + page)                       // below the mark: nothing
        XCTAssertEqual(mapped.released, 3 * page)
        XCTAssertTrue(same())
        // Two threads dropping at once, up to marks in any order: the highest stands.
        let marks = (1...64).map { $0 * 4_000 }
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            for m in k == 0 ? marks : marks.reversed() { mapped.drop(below: mapped.base + m) }
        }
        XCTAssertEqual(mapped.released, 256_000 / page * page)
        XCTAssertTrue(same())
        mapped.drop(below: mapped.base + bytes.count + 5 * page)    // past the file: its last whole page
        XCTAssertEqual(mapped.released, bytes.count / page * page)
        XCTAssertTrue(same())
        // The reader's step drops nothing until a step's bytes are passed.
        mapped.release(below: mapped.base + bytes.count)
        XCTAssertEqual(mapped.released, bytes.count / page * page)
    }

    /// A worker's drop with a step leaves the pages until that many bytes are passed since the
    /// last drop, then drops them all.
    func testDropWaitsForItsStep() {
        let bytes = [UInt8](repeating: 0x41, count: 200_000)
        guard let mapped = mapFile("step.txt", bytes) else { return XCTFail("not mapped") }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        mapped.drop(below: mapped.base + 20 * page, step: 25 * page)
        XCTAssertEqual(mapped.released, 0)
        mapped.drop(below: mapped.base + 25 * page, step: 25 * page)
        XCTAssertEqual(mapped.released, 25 * page)
        mapped.drop(below: mapped.base + 40 * page, step: 25 * page)
        XCTAssertEqual(mapped.released, 25 * page)
        mapped.drop(below: mapped.base + 48 * page + 1, step: 20 * page)
        XCTAssertEqual(mapped.released, 48 * page)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: UnsafePointer(mapped.base), count: bytes.count)), bytes)
    }

    /// By default every plain regular file is mapped, small or large; an empty one is read.
    func testFilesAreMappedByDefault() throws {
        let small = writeFile(dir, "small.csv", "device,time,lat,lon\na,1700000000,1,2\n")
        XCTAssertTrue(try LogReader(path: small).isMapped)
        XCTAssertEqual(try LogReader(path: small).readAll().count, 1)
        let large = writeLargeLog(dir, rows: 80_000)
        XCTAssertTrue(try LogReader(path: large).isMapped)
        let empty = writeFile(dir, "empty.csv", "")
        XCTAssertFalse(try LogReader(path: empty).isMapped)
        var reads = LogReaderOptions()
        reads.mapThreshold = Int.max
        XCTAssertFalse(try LogReader(path: large, options: reads).isMapped)
    }

    /// The file is cut short after the first batch: the pages it lost read as zeros inside
    /// the reader, which stops with an I/O error naming the file (exit code 74 in the CLI),
    /// at 1 and 2 threads, strict or lenient; the process lives on.
    func testFileShrinkingWhileMappedIsReported() throws {
        for threads in [1, 2] {
            for lenient in [false, true] {
                let path = writeLargeLog(dir, rows: 200_000)
                var o = LogReaderOptions(skipInvalid: lenient)
                o.threads = threads
                let reader = try LogReader(path: path, options: o)
                XCTAssertTrue(reader.isMapped)
                var batch: [Fix] = []
                XCTAssertTrue(try reader.next(into: &batch, max: 100))
                XCTAssertEqual(truncate(path, 4096), 0)
                var error: GeofenceError? = nil
                var fixes = batch.count
                do {
                    while try reader.next(into: &batch, max: 8192) { fixes += batch.count }
                } catch let e {
                    error = e
                }
                guard case .input(let input)? = error else {
                    XCTFail("threads \(threads), lenient \(lenient): no error after \(fixes) fixes (\(error.map { "\($0)" } ?? "none"))")
                    continue
                }
                XCTAssertEqual(input.kind, .readFailed(errno: EIO))
                XCTAssertEqual(input.location.file, path)
                XCTAssertTrue(input.message.contains("shrank"), input.message)
                XCTAssertEqual(error?.category, .ioFailure)
                XCTAssertLessThan(fixes, 200_000)
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }
}
