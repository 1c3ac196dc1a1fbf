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
}
