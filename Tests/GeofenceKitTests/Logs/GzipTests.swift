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

final class GzipTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    let csv = packageRoot + "/data/virginia_beach_ais.csv"

    func gzip(_ source: String, _ target: String, level: String = "-6") {
        XCTAssertEqual(runTool("/bin/gzip", ["-c", level, source], stdout: target), 0)
    }

    func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path)!) }
    func write(_ path: String, _ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: path, contents: Data(bytes)) }

    func testRoundTrip() throws {
        let gz = tmp + "/vb.csv.gz"
        gzip(csv, gz)
        let (expected, plain) = try readLog(csv)
        for chunk in [5, 4096, 1 << 20] {
            let (fixes, reader) = try readLog(gz, LogReaderOptions(chunkSize: chunk))
            XCTAssertTrue(reader.isCompressed)
            XCTAssertEqual(reader.format, .csv)
            XCTAssertEqual(fixes, expected, "chunk \(chunk)")
            XCTAssertEqual(reader.devices.names, plain.devices.names)
            XCTAssertEqual(reader.bytesRead, reader.totalBytes)
            XCTAssertEqual(reader.totalBytes, Int64(bytes(gz).count))
        }
        // Detected by content, not by name.
        let disguised = tmp + "/vb.csv"
        write(disguised, bytes(gz))
        XCTAssertEqual(try readLog(disguised).fixes, expected)
    }

    func testOtherFormats() throws {
        for name in ["small.ndjson", "small.gpx"] {
            let gz = tmp + "/" + name + ".gz"
            gzip(logFixture(name), gz)
            let (expected, _) = try readLog(logFixture(name))
            let (fixes, reader) = try readLog(gz)
            XCTAssertEqual(fixes, expected, name)
            XCTAssertEqual(reader.devices.names.count, name == "small.gpx" ? 1 : 4)
        }
        XCTAssertEqual(try LogReader(path: tmp + "/small.gpx.gz").devices.count, 0)
        XCTAssertEqual(LogReader.defaultDeviceName(tmp + "/small.gpx.gz"), "small")
    }

    /// `cat a.gz b.gz` (pigz, log rotation) is one stream of both members.
    func testConcatenatedMembers() throws {
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let cut = lines.count / 3
        let a = writeFile(tmp, "a.csv", lines[..<cut].joined(separator: "\n") + "\n")
        let b = writeFile(tmp, "b.csv", lines[cut...].joined(separator: "\n"))
        gzip(a, a + ".gz", level: "-1")
        gzip(b, b + ".gz", level: "-9")
        let both = tmp + "/both.csv.gz"
        write(both, bytes(a + ".gz") + bytes(b + ".gz"))
        let (expected, _) = try readLog(csv)
        for chunk in [7, 1 << 20] {
            XCTAssertEqual(try readLog(both, LogReaderOptions(chunkSize: chunk)).fixes, expected)
        }
    }

    func gzipError(_ path: String, skipInvalid: Bool = false) -> GeofenceError? {
        strictError(path, LogReaderOptions(skipInvalid: skipInvalid, chunkSize: 4096))
    }

    func testCorruptStreams() {
        let gz = tmp + "/vb.csv.gz"
        gzip(csv, gz)
        let good = bytes(gz)
        // Wrong CRC in the trailer: every byte decodes, the check at the end fails.
        var crc = good
        crc[crc.count - 8] ^= 0xFF
        let crcPath = tmp + "/crc.csv.gz"
        write(crcPath, crc)
        for skip in [false, true] {
            let e = gzipError(crcPath, skipInvalid: skip)
            XCTAssertEqual(e?.category, .badData)
            XCTAssertTrue(e?.description.hasPrefix(crcPath + ":") ?? false, "\(String(describing: e))")
            XCTAssertTrue(e?.description.hasSuffix(": bad gzip stream: incorrect data check") ?? false, "\(String(describing: e))")
        }
        // Truncated: half the file.
        let half = tmp + "/half.csv.gz"
        write(half, Array(good[..<(good.count / 2)]))
        let e = gzipError(half, skipInvalid: true)
        XCTAssertEqual(e?.category, .badData)
        XCTAssertTrue(e?.description.hasSuffix(": bad gzip stream: unexpected end of file") ?? false, "\(String(describing: e))")
        // The fixes before the break were delivered, and the line in the message is where it broke.
        let reader = try! LogReader(path: half, options: LogReaderOptions(chunkSize: 4096))
        var batch: [Fix] = []
        var delivered = 0
        do {
            while try reader.next(into: &batch, max: 100) { delivered += batch.count }
            XCTFail("expected an error")
        } catch {
            XCTAssertGreaterThan(delivered, 1000)
            XCTAssertEqual(error.description, "\(half):\(reader.line + 1): bad gzip stream: unexpected end of file")
            XCTAssertGreaterThanOrEqual(reader.line, delivered)
        }
        XCTAssertFalse(try! reader.next(into: &batch), "finished after an error")
        // Only the header: "unexpected end of file" at line 1.
        let header = tmp + "/header.csv.gz"
        write(header, Array(good[..<10]))
        XCTAssertEqual(gzipError(header)?.description, "\(header):1: bad gzip stream: unexpected end of file")
        // Garbage in the deflate data.
        var garbled = good
        for i in stride(from: 2000, to: 2400, by: 1) { garbled[i] = UInt8(truncatingIfNeeded: i &* 37) }
        let garbledPath = tmp + "/garbled.csv.gz"
        write(garbledPath, garbled)
        let g = gzipError(garbledPath)
        XCTAssertEqual(g?.category, .badData)
        XCTAssertTrue(g?.description.contains(": bad gzip stream: ") ?? false, "\(String(describing: g))")
        // Trailing garbage after the member.
        let trailing = tmp + "/trailing.csv.gz"
        write(trailing, good + Array("not gzip".utf8))
        let t = gzipError(trailing)
        XCTAssertEqual(t?.description, "\(trailing):6134: bad gzip stream: incorrect header check")
    }

    /// A member's header with the optional fields FLG names: `body` is deflate data and trailer
    /// (a `gzip -n` file without its 10-byte header).
    func member(_ body: [UInt8], extra: [UInt8]? = nil, name: String? = nil, comment: String? = nil, headerCRC: Bool = false,
                mtime: UInt32 = 0x6B16_9A0D) -> [UInt8] {
        var flags: UInt8 = 0
        if extra != nil { flags |= 4 }
        if name != nil { flags |= 8 }
        if comment != nil { flags |= 16 }
        if headerCRC { flags |= 2 }
        var h: [UInt8] = [0x1F, 0x8B, 8, flags] + withUnsafeBytes(of: mtime.littleEndian, Array.init) + [0, 3]
        if let extra { h += [UInt8(extra.count & 0xFF), UInt8(extra.count >> 8)] + extra }
        if let name { h += Array(name.utf8) + [0] }
        if let comment { h += Array(comment.utf8) + [0] }
        if headerCRC {
            let c = crc32(h)
            h += [UInt8(c & 0xFF), UInt8((c >> 8) & 0xFF)]
        }
        return h + body
    }

    /// CRC-32 (gzip's), bit by bit: the test's own, independent of the library the reader uses.
    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        }
        return ~c
    }

    /// Members whose headers carry every optional field (an extra field, a file name, a
    /// comment, a header CRC), concatenated, and read with chunks so small that each header is
    /// split at every offset in turn: the header's flags hold whatever the split, and each
    /// header field is skipped, not read as data.
    func testMemberHeadersSplitAnywhere() throws {
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let cut = 40
        let a = writeFile(tmp, "a.csv", lines[..<cut].joined(separator: "\n") + "\n")
        let b = writeFile(tmp, "b.csv", lines[cut..<90].joined(separator: "\n") + "\n")
        XCTAssertEqual(runTool("/bin/gzip", ["-c", "-n", a], stdout: a + ".gz"), 0)
        XCTAssertEqual(runTool("/bin/gzip", ["-c", "-n", b], stdout: b + ".gz"), 0)
        let bodyA = Array(bytes(a + ".gz")[10...]), bodyB = Array(bytes(b + ".gz")[10...])
        let expected = try readLog(writeFile(tmp, "ab.csv", lines[..<90].joined(separator: "\n") + "\n")).fixes
        let variants: [(String, [UInt8])] = [
            ("all fields", member(bodyA, extra: [1, 2, 3, 0, 5], name: "a.csv", comment: "first", headerCRC: true)
                           + member(bodyB, extra: [], name: "b.csv", comment: "", headerCRC: true, mtime: 0x1010_1010)),
            ("name only", member(bodyA, name: "a.csv") + member(bodyB, name: "b.csv", mtime: 0xFFFF_FFFF)),
            ("comment and CRC", member(bodyA, comment: "x", headerCRC: true) + member(bodyB, headerCRC: true)),
            ("none", member(bodyA) + member(bodyB)),
        ]
        for (label, file) in variants {
            let path = tmp + "/split.csv.gz"
            write(path, file)
            for chunk in 1...24 {
                XCTAssertEqual(try readLog(path, LogReaderOptions(chunkSize: chunk)).fixes, expected, "\(label), chunks of \(chunk)")
            }
            XCTAssertEqual(try readLog(path).fixes, expected, label)
        }
        // Header faults, in zlib's words, whatever the chunks.
        let good = member(bodyA, name: "a.csv", headerCRC: true)
        var badCRC = good
        badCRC[16] ^= 1                                   // the CRC-16's low byte
        var reserved = good
        reserved[3] |= 0x20
        var method = good
        method[2] = 7
        for (bad, message) in [(badCRC, "header crc mismatch"), (reserved, "unknown header flags set"),
                               (method, "unknown compression method")] {
            let path = tmp + "/bad.csv.gz"
            write(path, bad)
            for chunk in [3, 4096] {
                XCTAssertEqual(strictError(path, LogReaderOptions(chunkSize: chunk))?.description,
                               "\(path):1: bad gzip stream: \(message)", "chunks of \(chunk)")
            }
        }
    }

    func testBadHeaderMagicOnlyIsNotGzip() throws {
        // One magic byte only: read as plain text (and then fails as CSV).
        let p = tmp + "/one.csv"
        write(p, [0x1F] + Array("device,time,lat,lon\n".utf8))
        XCTAssertEqual(strictError(p)?.description.contains("no device column in the header"), true)
    }
}
