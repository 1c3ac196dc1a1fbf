import Foundation
import XCTest
@testable import GeofenceLogs
import GeofenceBase

/// A small gzip log of one member is inflated into one buffer (``GzipWhole``), and only such a
/// log: one with a second member to the eye is left to the streaming readers. A truncated or
/// damaged file, or one whose trailer gives the wrong length, never comes out as finished.
final class GzipWholeTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path)!) }

    func whole(_ b: [UInt8]) -> [UInt8]? {
        var b = b
        return b.withUnsafeMutableBufferPointer { p -> [UInt8]? in
            guard let w = ByteSource.whole(p.baseAddress!, p.count, owned: false, room: 16, threaded: false) else { return nil }
            // Without a thread, asking for everything inflates it all, step by step.
            let (count, progress) = w.published(beyond: Int.max)
            guard case .finished = progress else { return nil }
            return Array(UnsafeBufferPointer(start: w.bytes, count: count))
        }
    }

    func testOneMemberOnlyAndTheSameFixes() throws {
        let csv = packageRoot + "/data/virginia_beach_ais.csv"
        let gz = tmp + "/one.csv.gz"
        XCTAssertEqual(runTool("/bin/gzip", ["-c", "-9", csv], stdout: gz), 0)
        let member = bytes(gz)
        XCTAssertEqual(whole(member), bytes(csv))
        // Two members (cat a.gz b.gz): declined, and the streaming reader reads both.
        let two = tmp + "/two.csv.gz"
        XCTAssertTrue(FileManager.default.createFile(atPath: two, contents: Data(member + member)))
        XCTAssertNil(whole(member + member))
        // Truncated, or a byte of the data or of the trailer changed: declined.
        XCTAssertNil(whole(Array(member.dropLast(9))))
        var damaged = member
        damaged[member.count / 2] ^= 0x5A
        XCTAssertNil(whole(damaged))
        var badSize = member
        badSize[member.count - 2] ^= 1
        XCTAssertNil(whole(badSize))
        // Read through the log reader: the same fixes as the plain file, and the errors of a stream.
        let (plain, _) = try readLog(csv)
        let (fixes, reader) = try readLog(gz)
        XCTAssertTrue(reader.isCompressed)
        XCTAssertEqual(fixes, plain)
        let cut = tmp + "/cut.csv.gz"
        XCTAssertTrue(FileManager.default.createFile(atPath: cut, contents: Data(member.dropLast(9))))
        XCTAssertTrue("\(strictError(cut).map { "\($0)" } ?? "")".contains("unexpected end of file"))
    }

    /// A file of one member larger than the first read (up to ``ByteSource/wholeGzipBytes``) is
    /// read and inflated whole too, at any thread count, with the plain file's fixes; two
    /// members, a truncated file and damaged bytes are left to the streaming readers, whose
    /// errors are those of a read that never tries the whole file, and of a serial read. (A
    /// parallel read of the damaged file used to read a buffer its failed refill had freed:
    /// wrong lines, or a crash.)
    func testALargerFileOfOneMemberIsInflatedWholeWithTheStreamsErrors() throws {
        let csv = packageRoot + "/data/virginia_beach_ais.csv"
        let gz = tmp + "/one.csv.gz"
        XCTAssertEqual(runTool("/bin/gzip", ["-c", "-6", csv], stdout: gz), 0)
        let member = bytes(gz)
        XCTAssertGreaterThan(member.count, 8192)
        let two = tmp + "/two.csv.gz", cut = tmp + "/cut.csv.gz", damaged = tmp + "/damaged.csv.gz"
        let empty = tmp + "/empty.gz"
        XCTAssertEqual(runTool("/bin/gzip", ["-c", "/dev/null"], stdout: empty), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: two, contents: Data(member + bytes(empty))))     // a second, empty member
        XCTAssertTrue(FileManager.default.createFile(atPath: cut, contents: Data(member.dropLast(9))))
        var flipped = member
        flipped[member.count / 2] ^= 0x5A
        XCTAssertTrue(FileManager.default.createFile(atPath: damaged, contents: Data(flipped)))
        defer { ByteSource.wholeGzipBytes = 8 << 20 }
        var serialErrors: [String]? = nil
        for (threads, part) in [(1, 1 << 20), (2, 1 << 20), (2, 4096), (8, 4096)] {
            var o = LogReaderOptions(chunkSize: 4096)          // the first read takes 4 KiB of it
            o.threads = threads
            o.parallelChunkSize = part
            ByteSource.wholeGzipBytes = 8 << 20
            let (plain, _) = try readLog(csv, o)
            let (fixes, reader) = try readLog(gz, o)
            XCTAssertTrue(reader.isCompressed)
            XCTAssertTrue(reader.isInflatedWhole, "\(threads) threads")
            XCTAssertEqual(fixes, plain)
            let (twice, both) = try readLog(two, o)
            XCTAssertFalse(both.isInflatedWhole)
            XCTAssertEqual(twice, plain)
            let errors = [cut, damaged].map { p in strictError(p, o).map { "\($0)" } ?? "none" }
            // The same reads with whole files never tried: the same fixes, the same errors.
            ByteSource.wholeGzipBytes = 0
            let (streamed, streamReader) = try readLog(gz, o)
            XCTAssertFalse(streamReader.isInflatedWhole)
            XCTAssertEqual(streamed, plain)
            XCTAssertEqual([cut, damaged].map { p in strictError(p, o).map { "\($0)" } ?? "none" }, errors)
            // And those of a serial read: the damaged member inflates to text that turns into
            // garbage at a line of its middle, reported there, whatever the threads and chunks.
            if let serialErrors { XCTAssertEqual(errors, serialErrors, "\(threads) threads") } else { serialErrors = errors }
            XCTAssertTrue(errors[0].contains("unexpected end of file"), errors[0])
            XCTAssertNotEqual(errors[1], "none")
        }
    }
}

/// The rest of a whole gzip file handed over to the stream, and a whole file read from its
/// mapping that shrinks meanwhile.
final class GzipWholeHandOverTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func gzip(_ bytes: [UInt8], _ name: String) -> [UInt8] {
        let plain = tmp + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: plain, contents: Data(bytes)))
        XCTAssertEqual(runTool("/bin/gzip", ["-f", plain]), 0)
        return Array(FileManager.default.contents(atPath: plain + ".gz")!)
    }

    func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = tmp + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    /// The options of the reads below: `threads`, files mapped or read.
    func options(_ threads: Int, mapped: Bool) -> LogReaderOptions {
        var o = LogReaderOptions(chunkSize: 4096)
        o.threads = threads
        o.mapThreshold = mapped ? 0 : Int.max
        return o
    }

    /// A second member whose header the candidates do not take for one (an OS byte gzip never
    /// writes): the first fills the buffer, the stream then reads the second, and the fixes are
    /// the plain file's, at every thread count, mapped or read.
    func testAMemberNotSeenAheadIsReadByTheStream() throws {
        let csv = packageRoot + "/data/virginia_beach_ais.csv"
        let text = Array(FileManager.default.contents(atPath: csv)!)
        let cut = text[(text.count / 2)...].firstIndex(of: 0x0A)! + 1
        let first = gzip(Array(text[..<cut]), "a.csv"), second = gzip(Array(text[cut...]), "b.csv")
        var unseen = second
        unseen[9] = 100
        XCTAssertFalse(GzipMembers.looksLikeHeader(unseen))
        let path = write(first + unseen, "two.csv.gz")
        let (plain, _) = try readLog(csv)
        for threads in [1, 2, 8] {
            for mapped in [true, false] {
                let (fixes, reader) = try readLog(path, options(threads, mapped: mapped))
                XCTAssertTrue(reader.isInflatedWhole, "\(threads) threads, mapped \(mapped)")
                XCTAssertEqual(fixes, plain, "\(threads) threads, mapped \(mapped)")
            }
        }
    }

    /// A trailer whose length is short of the member's (the buffer fills before its end, and
    /// the stream goes on) or past it: the member's length check fails at its end, as in a
    /// read that never tries the whole file.
    func testAWrongLengthInTheTrailerIsADataCheckError() throws {
        let csv = packageRoot + "/data/virginia_beach_ais.csv"
        let member = gzip(Array(FileManager.default.contents(atPath: csv)!), "one.csv")
        let length = member[(member.count - 4)...].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        defer { ByteSource.wholeGzipBytes = 8 << 20 }
        for delta in [-100_000, -1, 1, 5000] {
            var wrong = member
            let n = UInt32(length + delta)
            for k in 0..<4 { wrong[member.count - 4 + k] = UInt8(truncatingIfNeeded: n >> (8 * UInt32(k))) }
            let path = write(wrong, "wrong\(delta).csv.gz")
            for threads in [1, 2] {
                for mapped in [true, false] {
                    ByteSource.wholeGzipBytes = 8 << 20
                    let o = options(threads, mapped: mapped)
                    XCTAssertTrue(try LogReader(path: path, options: o).isInflatedWhole)
                    let e = strictError(path, o)
                    XCTAssertTrue(e?.description.hasSuffix(": bad gzip stream: incorrect data check") ?? false,
                                  "length \(delta): \(String(describing: e))")
                    ByteSource.wholeGzipBytes = 0
                    XCTAssertFalse(try LogReader(path: path, options: o).isInflatedWhole)
                    XCTAssertEqual(strictError(path, o)?.category, e?.category)
                }
            }
        }
    }

    /// A gzip file inflated whole from its mapping, cut short after the first batch: read on
    /// demand (one thread), the inflation meets the lost pages and the reader reports the file
    /// as changed; with a thread of its own, the inflation may have read every page before the
    /// cut (then every fix comes), but never garbage or a crash.
    func testAMappedGzipFileThatShrinksIsReported() throws {
        let plain = writeLargeLog(tmp, rows: 200_000)
        XCTAssertEqual(runTool("/bin/gzip", ["-k", "-1", plain]), 0)
        let (all, _) = try readLog(plain)
        for threads in [1, 2] {
            let path = tmp + "/shrinking\(threads).csv.gz"
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: plain + ".gz", toPath: path)
            var o = LogReaderOptions()
            o.threads = threads
            let reader = try LogReader(path: path, options: o)
            XCTAssertTrue(reader.isInflatedWhole)
            var batch: [Fix] = []
            XCTAssertTrue(try reader.next(into: &batch, max: 100))
            var fixes = batch
            XCTAssertEqual(truncate(path, 4096), 0)
            var error: GeofenceError? = nil
            do {
                while try reader.next(into: &batch, max: 8192) { fixes += batch }
            } catch let e {
                error = e
            }
            if let error {
                guard case .input(let input) = error else { XCTFail("\(threads) threads: \(error)"); continue }
                XCTAssertEqual(input.kind, .readFailed(errno: EIO))
                XCTAssertTrue(input.message.contains("shrank"), input.message)
                XCTAssertEqual(Array(all.prefix(fixes.count)), fixes)
            } else {
                XCTAssertEqual(threads, 2, "read on demand, the lost pages are met")
                XCTAssertEqual(fixes, all)
            }
        }
    }
}
