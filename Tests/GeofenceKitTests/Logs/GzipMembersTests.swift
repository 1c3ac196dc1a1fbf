import Foundation
import XCTest
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceLogs

/// gzip files of several members (`cat a.gz b.gz`, `bgzip`) read with several threads: the
/// members are inflated ahead in parallel, the fixes equal the plain file's, and broken,
/// truncated or disguised members give the errors of a serial read.
final class GzipMembersTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    let csv = packageRoot + "/data/virginia_beach_ais.csv"

    func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path)!) }
    func write(_ path: String, _ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: path, contents: Data(bytes)) }

    /// The bundled log cut into `parts` pieces at line ends, each compressed by `gzip` (the
    /// file name stored in its header is `name(k)`), the members concatenated.
    /// `ends`: where the pieces end, as fractions of the lines (equal pieces by default).
    func members(_ parts: Int, ends: [Double]? = nil) -> (path: String, offsets: [Int]) {
        let text = bytes(csv)
        var lineEnds = [0]
        for (i, b) in text.enumerated() where b == 0x0A { lineEnds.append(i + 1) }
        if lineEnds.last != text.count { lineEnds.append(text.count) }
        var out: [UInt8] = []
        var offsets: [Int] = []
        for k in 0..<parts {
            let lines = lineEnds.count - 1
            func end(_ k: Int) -> Int { k == 0 ? 0 : ends.map { Int(Double(lines) * $0[k - 1]) } ?? lines * k / parts }
            let from = lineEnds[end(k)], to = lineEnds[end(k + 1)]
            let piece = dir + "/part\(k).csv"
            write(piece, Array(text[from..<to]))
            XCTAssertEqual(runTool("/bin/gzip", ["-f", k % 2 == 0 ? "-6" : "-1", piece]), 0)
            offsets.append(out.count)
            out += bytes(piece + ".gz")
        }
        let path = dir + "/members-\(parts).csv.gz"
        write(path, out)
        return (path, offsets)
    }

    func options(threads: Int, limit: Int = GzipMembers.defaultMemberLimit) -> LogReaderOptions {
        var o = LogReaderOptions(chunkSize: 4096)
        o.threads = threads
        o.parallelChunkSize = 4096
        o.gzipMemberLimit = limit
        return o
    }

    func testMembersInParallelEqualThePlainFile() throws {
        let (expected, plain) = try readLog(csv)
        for parts in [1, 2, 40] {
            let (path, _) = members(parts)
            for threads in [2, 8] {
                let (fixes, reader) = try readLog(path, options(threads: threads))
                XCTAssertEqual(fixes, expected, "\(parts) members, \(threads) threads")
                XCTAssertEqual(reader.devices.names, plain.devices.names)
                if parts == 1 {
                    // One member of a small file: read and inflated at once (GzipWholeTests).
                    XCTAssertNil(reader.gzipMembers)
                    XCTAssertTrue(reader.isInflatedWhole)
                } else {
                    XCTAssertEqual(reader.gzipMembers, GzipMemberCount(members: parts, inParallel: parts), "\(parts) members")
                }
                XCTAssertEqual(reader.bytesRead, reader.totalBytes)
            }
            // One thread: in file order, as before.
            let (fixes, reader) = try readLog(path, LogReaderOptions(chunkSize: 4096))
            XCTAssertEqual(fixes, expected)
            XCTAssertNil(reader.gzipMembers)
        }
    }

    /// Members above the limit are inflated in file order, between members inflated ahead.
    func testMembersOverTheLimitInFileOrder() throws {
        let (expected, _) = try readLog(csv)
        // Pieces of 2 %, 2 %, 2 %, 44 %, 2 % and 48 % of the lines; the limit a fifth of the log.
        let (path, _) = members(6, ends: [0.02, 0.04, 0.06, 0.5, 0.52, 1.0])
        for threads in [2, 8] {
            let (fixes, reader) = try readLog(path, options(threads: threads, limit: bytes(csv).count / 5))
            XCTAssertEqual(fixes, expected)
            XCTAssertEqual(reader.gzipMembers, GzipMemberCount(members: 6, inParallel: 4))
        }
    }

    /// A gzip header's bytes inside a member (here in the file name stored in the header of the
    /// second one) are a candidate that does not end a member: that member is read in file order.
    func testHeaderBytesInsideAMemberAreNotABoundary() throws {
        let (expected, _) = try readLog(csv)
        let text = bytes(csv)
        var cut1 = text.count / 3, cut2 = 2 * text.count / 3
        while text[cut1 - 1] != 0x0A { cut1 += 1 }
        while text[cut2 - 1] != 0x0A { cut2 += 1 }
        write(dir + "/p0.csv", Array(text[..<cut1]))
        write(dir + "/p1.csv", Array(text[cut1..<cut2]))
        write(dir + "/p2.csv", Array(text[cut2...]))
        // 1F 8B 08, flags 01, mtime "AAAA", XFL 2, OS 3: a header to the eye, in a file name.
        let script = """
            cd "$1" && name=$(printf 'aaaaaaaaaaaaaaaaaaaaaaaa\\037\\213\\010\\001AAAA\\002\\003.csv') && cp p1.csv "$name" \
            && { gzip -c p0.csv; gzip -c "$name"; gzip -c p2.csv; } > odd.csv.gz
            """
        XCTAssertEqual(runTool("/bin/sh", ["-c", script, "sh", dir]), 0)
        let path = dir + "/odd.csv.gz"
        let all = bytes(path)
        let candidates = (0..<(all.count - 10)).filter { all[$0] == 0x1F && GzipMembers.looksLikeHeader(Array(all[$0..<$0 + 10])) }
        XCTAssertGreaterThanOrEqual(candidates.count, 4, "three members and one in a file name")
        for threads in [2, 8] {
            let (fixes, reader) = try readLog(path, options(threads: threads))
            XCTAssertEqual(fixes, expected)
            XCTAssertEqual(reader.gzipMembers?.members, 3)
            XCTAssertEqual(reader.gzipMembers?.inParallel, 2, "the member holding the false candidate is read in order")
        }
    }

    /// Broken members: the errors of a serial read (exit 65 in the command), naming the file.
    func testTruncatedCorruptAndTrailingBytes() throws {
        let (path, offsets) = members(10)
        let good = bytes(path)
        func errors(_ p: String) -> (serial: GeofenceError?, parallel: [GeofenceError?]) {
            (strictError(p, LogReaderOptions(chunkSize: 4096)), [2, 8].map { strictError(p, options(threads: $0)) })
        }
        // Truncated in the last member, and just after a member's header.
        for cut in [good.count - 100, offsets[7] + 12] {
            let t = dir + "/truncated-\(cut).csv.gz"
            write(t, Array(good[..<cut]))
            let (serial, parallel) = errors(t)
            XCTAssertTrue(serial?.description.hasSuffix(": bad gzip stream: unexpected end of file") ?? false, "\(String(describing: serial))")
            for e in parallel {
                XCTAssertEqual(e?.category, .badData)
                XCTAssertEqual(e?.description, serial?.description)
            }
        }
        // Garbage inside member 5, and a wrong CRC in member 3's trailer.
        var garbled = good
        for i in (offsets[5] + 200)..<(offsets[5] + 400) { garbled[i] = UInt8(truncatingIfNeeded: i &* 37) }
        var crc = good
        crc[offsets[4] - 8] ^= 0xFF
        for (name, b) in [("garbled", garbled), ("crc", crc)] {
            let p = dir + "/\(name).csv.gz"
            write(p, b)
            let (serial, parallel) = errors(p)
            XCTAssertEqual(serial?.category, .badData)
            for e in parallel {
                XCTAssertEqual(e?.category, .badData, name)
                XCTAssertTrue(e?.description.hasPrefix(p + ":") ?? false, "\(String(describing: e))")
                XCTAssertTrue(e?.description.contains(": bad gzip stream: ") ?? false, "\(String(describing: e))")
            }
            if name == "crc" {
                XCTAssertTrue(parallel.allSatisfy { $0?.description.hasSuffix("incorrect data check") ?? false }, "\(parallel)")
            }
        }
        // Bytes after the last member that are not a member.
        let trailing = dir + "/trailing.csv.gz"
        write(trailing, good + Array("not gzip at all".utf8))
        let (serial, parallel) = errors(trailing)
        XCTAssertTrue(serial?.description.hasSuffix("incorrect header check") ?? false, "\(String(describing: serial))")
        for e in parallel { XCTAssertEqual(e?.description, serial?.description) }
    }

    /// `bgzip` (BGZF blocks of 64 KiB), when the machine has it.
    func testBgzip() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bgzip") else { throw XCTSkip("bgzip is not installed") }
        let (expected, _) = try readLog(csv)
        let path = dir + "/vb.csv.gz"
        XCTAssertEqual(runTool("/usr/bin/bgzip", ["-c", csv], stdout: path), 0)
        for threads in [2, 8] {
            let (fixes, reader) = try readLog(path, options(threads: threads))
            XCTAssertEqual(fixes, expected)
            let count = try XCTUnwrap(reader.gzipMembers)
            XCTAssertGreaterThan(count.members, 2, "BGZF blocks and the empty end-of-file block")
            XCTAssertEqual(count.inParallel, count.members)
        }
    }
}
