import Foundation
import Glibc
import XCTest
import GeofenceKit
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceIndex

/// A compiled file's polygon vertices used where the file is mapped (docs/compiled-fences.md#memory):
/// the same answers as when they are read into memory, the same error for a damaged section,
/// a change copies them first, and a file cut short while in use is reported, never a crash.
final class MappedSectionTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = makeTemporaryDirectory() }
    override func tearDown() {
        SectionReader.mapThreshold = 1 << 20
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Real polygons (US counties, countries with antimeridian cases) and ports, compiled to a file.
    func compiledFile() throws -> (path: String, built: CompiledFences) {
        let root = CLI.packageRoot.path + "/data/"
        let set = try FenceSet.load(paths: [root + "ports.csv", root + "us_counties_va_nc.geojson", root + "countries.geojson"], crs: nil)
        let fences = try set.usable(skipInvalid: true).fences
        let built = try CompiledFences(fences)
        let path = dir + "/fences.gfc"
        try CompiledFenceFile.write(index: built.index, fences: fences, to: path)
        return (path, built)
    }

    /// Opens `path` with sections of `threshold` bytes and more mapped.
    func open(_ path: String, threshold: Int, threads: Int = 1) throws -> CompiledFences {
        SectionReader.mapThreshold = threshold
        defer { SectionReader.mapThreshold = 1 << 20 }
        return CompiledFences(file: try CompiledFenceFile.open(path: path, threads: threads))
    }

    /// Containment and nearest answers at sample points, as text.
    func answers(_ c: CompiledFences) -> [String] {
        var g = SeededGenerator(seed: 31)
        var out: [String] = []
        var points: [(Double, Double, Double)] = [(36.85, -76.30, 50), (35.9, -78.6, 0), (-17.0, 179.9, 5000), (65.5, -179.99, 0)]
        for _ in 0..<300 { points.append((g.uniform(-60, 75), g.uniform(-180, 180), g.uniform(0, 20_000))) }
        for (lat, lon, acc) in points {
            out.append(c.index.classify(lat: lat, lon: lon, accuracy: acc).map { "\(c.index.identifier(of: $0.slot)) \($0.state)" }.sorted().joined(separator: ","))
            out.append(c.index.nearest(5, lat: lat, lon: lon).map { "\(c.index.identifier(of: $0.slot)) \($0.distance)" }.joined(separator: ","))
        }
        return out
    }

    func testMappedVerticesGiveTheAnswersOfReadOnes() throws {
        let (path, built) = try compiledFile()
        let read = try open(path, threshold: Int.max)
        XCTAssertFalse(read.index.table.polygons.coords.isMapped)
        XCTAssertFalse(read.index.table.polygons.bandEdges.isMapped)
        for threads in [1, 3] {
            let mapped = try open(path, threshold: 0, threads: threads)
            XCTAssertTrue(mapped.index.table.polygons.coords.isMapped)
            XCTAssertGreaterThan(mapped.index.table.polygons.coords.count, 1000)
            XCTAssertTrue(mapped.index.table.polygons.coords.elementsEqual(built.index.table.polygons.coords))
            // The band edges (indices into the vertices, checked where they are read) too.
            XCTAssertTrue(mapped.index.table.polygons.bandEdges.isMapped)
            XCTAssertGreaterThan(mapped.index.table.polygons.bandEdges.count, 1000)
            XCTAssertTrue(mapped.index.table.polygons.bandEdges.elementsEqual(built.index.table.polygons.bandEdges))
            XCTAssertEqual(answers(mapped), answers(read))
        }
        XCTAssertEqual(answers(read), answers(built))
    }

    func testADamagedMappedSectionGetsTheErrorOfARead() throws {
        let (path, _) = try compiledFile()
        // The vertices section (id 12): one byte flipped in its middle.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u(_ o: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[o + $1]) << (8 * $1) } }
        let sections = (0..<Int(bytes[16])).map { 64 + 32 * $0 }
        let entry = try XCTUnwrap(sections.first { bytes[$0] == 12 })
        bytes[u(entry + 8) + u(entry + 16) / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var messages: [String] = []
        for threshold in [Int.max, 0] {
            XCTAssertThrowsError(try open(path, threshold: threshold)) { messages.append("\($0)") }
        }
        XCTAssertEqual(messages.count, 2)
        XCTAssertEqual(messages.first, messages.last)
        XCTAssertTrue(messages[0].contains("checksum mismatch in section coords"), messages[0])
    }

    /// A file cut short after a section is mapped and before open reads it: the lost pages read
    /// as zeros, and open refuses the file as one that shrank (an I/O failure, exit code 74), never a crash nor a
    /// file taken (zeros may even hash right: here the cut is past the coordinates' first
    /// half, whatever their values).
    func testAFileCutShortWhileOpenReadsAMappedSection() throws {
        let (path, _) = try compiledFile()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        SectionReader.beforeMappedRead = { section in
            guard section == .coords else { return }
            XCTAssertEqual(truncate(path, off_t(size / 2)), 0)
        }
        defer { SectionReader.beforeMappedRead = nil }
        XCTAssertThrowsError(try open(path, threshold: 0)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("shrank while it was read"), text)
            XCTAssertEqual((error as? GeofenceError)?.category, .ioFailure, text)
        }
    }

    /// A vertex or band edge out of range behind valid checksums: a mapped section is checked
    /// as it is read in place, never read again at open, and refused with the message a
    /// section read into memory gets.
    func testBadValuesInAMappedSectionAreRefusedAsInARead() throws {
        let (path, _) = try compiledFile()
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u(_ b: [UInt8], _ o: Int) -> Int { (0..<8).reduce(0) { $0 | Int(b[o + $1]) << (8 * $1) } }
        func section(_ id: UInt8) throws -> (offset: Int, length: Int) {
            let entry = try XCTUnwrap((0..<Int(good[16])).map { 64 + 32 * $0 }.first { good[$0] == id })
            return (u(good, entry + 8), u(good, entry + 16))
        }
        let coords = try section(12), edges = try section(20)
        let lastVertexLat = coords.offset + coords.length - 8
        let cases: [(at: Int, bytes: [UInt8], message: String)] = [
            // The last vertex's latitude: NaN, then 91 (both in the last block read).
            (lastVertexLat, withUnsafeBytes(of: Double.nan.bitPattern.littleEndian, Array.init), "out of range"),
            (lastVertexLat, withUnsafeBytes(of: (91.0).bitPattern.littleEndian, Array.init), "out of range"),
            // A longitude in the first block past 540°.
            (coords.offset, withUnsafeBytes(of: (541.0).bitPattern.littleEndian, Array.init), "vertex 0 out of range"),
            // A band edge past the vertices, and a negative one.
            (edges.offset + edges.length / 2 / 4 * 4, withUnsafeBytes(of: Int32(coords.length / 16).littleEndian, Array.init), "band edge"),
            (edges.offset + edges.length - 4, withUnsafeBytes(of: Int32(-1).littleEndian, Array.init), "band edge -1 out of range"),
        ]
        for c in cases {
            var b = good
            b.replaceSubrange(c.at..<(c.at + c.bytes.count), with: c.bytes)
            CompiledFenceFile.resealChecksums(&b)
            try Data(b).write(to: URL(fileURLWithPath: path))
            var messages: [String] = []
            for (threshold, threads) in [(Int.max, 1), (0, 1), (0, 2)] {
                XCTAssertThrowsError(try open(path, threshold: threshold, threads: threads)) { messages.append("\($0)") }
            }
            XCTAssertEqual(messages.count, 3)
            XCTAssertEqual(Set(messages).count, 1, "\(messages)")
            XCTAssertTrue(messages[0].contains(c.message), messages[0])
        }
        try Data(good).write(to: URL(fileURLWithPath: path))
        XCTAssertNoThrow(try open(path, threshold: 0, threads: 2))
    }

    /// The resident bytes of the mapping that starts at `address` (`/proc/self/smaps`).
    func residentKB(_ address: UnsafeRawPointer) throws -> Int {
        // Read to its end (the file reports no size).
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let start = String(UInt(bitPattern: address) / 4096 * 4096, radix: 16)
        var inside = false
        for line in text.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), !line.hasPrefix(" "), line.first?.isHexDigit == true {
                inside = line[..<dash] == start
            } else if inside && line.hasPrefix("Rss:") {
                return Int(line.split(separator: " ")[1])!
            }
        }
        XCTFail("no mapping at \(start)")
        return -1
    }

    /// A mapped section's pages dropped as open reads them (``MappedRegion/drop(below:)``): only
    /// pages wholly before the offset go, each once; the bytes read afterwards are the file's.
    func testDroppedPagesLeaveTheProcessAndReadBack() throws {
        let path = dir + "/pages.bin"
        let bytes = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let fd = Glibc.open(path, O_RDONLY)
        defer { close(fd) }
        // From a page boundary plus 100 bytes: the first page holds bytes before the range.
        let region = try XCTUnwrap(MappedRegion(fd: fd, offset: 100, count: (4 << 20) - 100, path: path, populate: true))
        XCTAssertEqual(try residentKB(region.base), 4096)
        // 1 MiB + 10 bytes into the file: the first MiB goes (the kernel may take the rest of a
        // huge page that holds it with it), the last 2 MiB stay.
        region.drop(below: (1 << 20) - 100 + 10)
        let partly = try residentKB(region.base)
        XCTAssertLessThanOrEqual(partly, 3072)
        XCTAssertGreaterThanOrEqual(partly, 2048)
        region.drop(below: 100)                                   // nothing new
        XCTAssertEqual(try residentKB(region.base), partly)
        region.drop(below: region.count)
        XCTAssertEqual(try residentKB(region.base), 0)
        XCTAssertEqual(Array(UnsafeRawBufferPointer(start: region.base, count: 1000)), Array(bytes[100..<1100]))
        XCTAssertEqual(region.base.load(fromByteOffset: region.count - 1, as: UInt8.self), bytes.last)
        XCTAssertFalse(region.shrank)
    }

    /// How many of the pages wholly inside `count` bytes at `address` are set up in this
    /// process (`/proc/self/pagemap`, bit 63 of each page's entry: present).
    func presentPages(_ address: UnsafeRawPointer, _ count: Int) throws -> (present: Int, pages: Int) {
        let first = (UInt(bitPattern: address) + 4095) / 4096, end = (UInt(bitPattern: address) + UInt(count)) / 4096
        guard end > first else { return (0, 0) }
        let fd = Glibc.open("/proc/self/pagemap", O_RDONLY)
        guard fd >= 0 else { throw XCTSkip("no /proc/self/pagemap") }
        defer { close(fd) }
        var entries = [UInt64](repeating: 0, count: Int(end - first))
        let want = entries.count * 8
        let got = entries.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(first * 8)) }
        XCTAssertEqual(got, want)
        return (entries.filter { $0 >> 63 != 0 }.count, entries.count)
    }

    /// Open checks a mapped section in place and leaves none of its pages set up (the checks
    /// read every vertex); a query then sets up only the pages it reads.
    func testOpenLeavesNoMappedPageSetUp() throws {
        let (path, _) = try compiledFile()
        let mapped = try open(path, threshold: 0, threads: 2)
        let coords = mapped.index.table.polygons.coords
        XCTAssertTrue(coords.isMapped)
        let base = try XCTUnwrap(coords.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) })
        let bytes = coords.count * MemoryLayout<Double>.stride
        let opened = try presentPages(base, bytes)
        XCTAssertGreaterThan(opened.pages, 100)
        XCTAssertEqual(opened.present, 0, "pages set up by open")
        _ = mapped.index.classify(lat: 36.85, lon: -76.30, accuracy: 50)
        let queried = try presentPages(base, bytes)
        XCTAssertGreaterThan(queried.present, 0)
        XCTAssertLessThan(queried.present, queried.pages / 2, "a query sets up the pages it reads, not all")
    }

    /// The checksum of bytes handed over in pieces is that of all of them at once, wherever
    /// the pieces end (the mapped sections are checksummed a block at a time).
    func testAChecksumInPiecesEqualsTheWholeOne() {
        var g = SeededGenerator(seed: 77)
        for length in Array(0...100) + [255, 256, 257, 4096 + 17, 1 << 18, (1 << 18) + 31] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            let whole = Hash64.hash(bytes, seed: 9)
            for _ in 0..<4 {
                var stream = Hash64.Stream(seed: 9)
                var at = 0
                bytes.withUnsafeBytes { b in
                    while at < length {
                        let n = min(length - at, Int(g.next() % 70))
                        stream.add(b.baseAddress! + at, count: n)
                        at += n
                    }
                }
                XCTAssertEqual(stream.finish(), whole, "length \(length)")
            }
        }
        XCTAssertEqual(Hash64.Stream().finish(), Hash64.hash([]))
    }

    func testAChangeCopiesTheMappedValuesAndLeavesTheFileAlone() throws {
        let (path, _) = try compiledFile()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let mapped = try open(path, threshold: 0)
        let original = mapped.index.table.polygons.coords
        XCTAssertTrue(original.isMapped)
        var changed = original
        let first = changed[0]
        changed[0] = first + 1
        changed.append(contentsOf: [1, 2])
        XCTAssertFalse(changed.isMapped)
        XCTAssertEqual(changed[0], first + 1)
        XCTAssertEqual(changed.count, original.count + 2)
        XCTAssertEqual(original[0], first)
        XCTAssertTrue(original.isMapped)
        XCTAssertTrue(changed.dropFirst().prefix(original.count - 1).elementsEqual(original.dropFirst()))
        let edges = mapped.index.table.polygons.bandEdges
        XCTAssertTrue(edges.isMapped)
        var grown = edges
        grown.append(contentsOf: [0])
        XCTAssertFalse(grown.isMapped)
        XCTAssertTrue(edges.isMapped)
        XCTAssertTrue(grown.prefix(edges.count).elementsEqual(edges))
        // An opened index takes a new polygon: its vertices are appended to a copy.
        var index = mapped.index
        _ = try index.insert(.polygon(id: "new-square", polygons: [[[Coordinate(lon: 1, lat: 1), Coordinate(lon: 2, lat: 1),
                                                                      Coordinate(lon: 2, lat: 2), Coordinate(lon: 1, lat: 1)]]]))
        XCTAssertFalse(index.table.polygons.coords.isMapped)
        XCTAssertTrue(mapped.index.table.polygons.bandEdges.isMapped)
        XCTAssertEqual(index.classify(lat: 1.4, lon: 1.6, accuracy: 0).map { index.identifier(of: $0.slot) }, ["new-square"])
        XCTAssertEqual(mapped.index.classify(lat: 1.4, lon: 1.6, accuracy: 0).count, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    func testAFileCutShortWhileMappedIsReportedNeverACrash() throws {
        let (path, _) = try compiledFile()
        let tmp = dir + "/out.tmp", out = dir + "/out.csv"
        do {
            let mapped = try open(path, threshold: 0)
            let coords = mapped.index.table.polygons.coords
            XCTAssertTrue(coords.isMapped)
            XCTAssertNoThrow(try MappedRegion.checkAll())
            XCTAssertEqual(truncate(path, 64), 0)
            // Every vertex read again: the lost pages read as zeros, no SIGBUS.
            var zeros = 0
            for v in coords where v == 0 { zeros += 1 }
            XCTAssertGreaterThan(zeros, coords.count / 2)
            _ = answers(mapped)
            XCTAssertThrowsError(try MappedRegion.checkAll()) { e in
                XCTAssertTrue("\(e)".contains(path) && "\(e)".contains("shrank while it was in use"), "\(e)")
                XCTAssertEqual((e as? GeofenceError)?.category, .ioFailure)
            }
            // No output computed from them is committed.
            XCTAssertTrue(FileManager.default.createFile(atPath: tmp, contents: Data("x\n".utf8)))
            XCTAssertThrowsError(try AtomicFile.commit(tmp, to: out))
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
            XCTAssertFalse(FileManager.default.fileExists(atPath: tmp))
        }
        // Once the fences are released, nothing is left to report.
        XCTAssertNoThrow(try MappedRegion.checkAll())
    }
}
