import Foundation
import XCTest
@testable import GeofenceLogs
import GeofenceBase

/// A small gzip log read by its first read is inflated whole (libdeflate) when it is one
/// member, and only then: several members, a truncated file and damaged bytes are left to
/// zlib's streaming reader, which reports what is wrong as before.
final class GzipWholeTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path)!) }

    func whole(_ b: [UInt8]) -> [UInt8]? {
        var b = b
        return b.withUnsafeMutableBufferPointer { p -> [UInt8]? in
            guard let w = ByteSource.inflateWhole(p.baseAddress!, p.count, room: 16) else { return nil }
            defer { w.bytes.deallocate() }
            return Array(UnsafeBufferPointer(start: w.bytes, count: w.count))
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
        FileManager.default.createFile(atPath: two, contents: Data(member + member))
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
        FileManager.default.createFile(atPath: cut, contents: Data(member.dropLast(9)))
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
        FileManager.default.createFile(atPath: two, contents: Data(member + bytes(empty)))     // a second, empty member
        FileManager.default.createFile(atPath: cut, contents: Data(member.dropLast(9)))
        var flipped = member
        flipped[member.count / 2] ^= 0x5A
        FileManager.default.createFile(atPath: damaged, contents: Data(flipped))
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
