import Foundation
import XCTest
import GeofenceKit
import GeofenceTestSupport

/// Compiled fence files (docs/compiled-fences.md): a round trip gives back every fence as
/// loaded and the same answers; damaged files are refused as malformed, never a crash or
/// a wrong answer.
final class CompiledFenceFileTests: XCTestCase {
    /// Real circles and polygons (antimeridian cases from Natural Earth included) and fences
    /// with every option set.
    func sourceFences() throws -> [Fence] {
        let root = CLI.packageRoot.path + "/data/"
        let set = try FenceSet.load(paths: [root + "ports.csv", root + "us_counties_va_nc.geojson", root + "countries.geojson"], crs: nil)
        var fences = try set.usable(skipInvalid: true).fences
        var o = FenceOptions()
        o.notifyOnEntry = false; o.dwell = 300; o.repeats = false; o.note = "Lyon \"Bellecour\" ✓"
        fences.append(Fence(id: "opt-1", shape: .circle(lat: 45.764, lon: 4.8357, radius: 120.5), options: o,
                            properties: [("radius", .number("120.50")), ("brand", .string("Acme")), ("tags", .array([.null, .bool(true)]))],
                            source: SourceLocation(file: "x.geojson", feature: 3)))
        fences.append(Fence(id: "é-2", shape: .circle(lat: -16.9, lon: 179.99, radius: 30_000)))
        // Dwell times and notes on scattered slots (their side tables are searched by slot).
        for k in 0..<7 {
            var o = FenceOptions()
            if k % 2 == 0 { o.note = "note \(k)" }
            if k % 3 == 0 { o.dwell = Double(10 * k) }
            o.notifyOnExit = k % 4 != 1
            fences.append(Fence(id: "mixed-\(k)", shape: .circle(lat: Double(k), lon: -Double(k), radius: 500), options: o))
        }
        return fences
    }

    func compile(_ fences: [Fence], to path: String) throws -> CompiledFences {
        let compiled = try CompiledFences(fences)
        try CompiledFenceFile.write(index: compiled.index, fences: fences, to: path)
        return compiled
    }

    /// Sample points: near fences, around the antimeridian, at the poles, far from all.
    func probes() -> [(Double, Double, Double)] {
        var g = SeededGenerator(seed: 14)
        var out: [(Double, Double, Double)] = [(36.85, -76.30, 50), (-17.0, 179.9, 5000), (65.5, -179.99, 0), (-16.9, -179.99, 100),
                                               (89.9, 0, 0), (-89.9, 10, 1000), (45.764, 4.8357, 10), (0, 0, 0)]
        for _ in 0..<40 { out.append((g.uniform(-80, 80), g.uniform(-180, 180), g.uniform(0, 20_000))) }
        return out
    }

    func answers(_ c: CompiledFences) -> [String] {
        var out: [String] = []
        for (lat, lon, acc) in probes() {
            let near = c.index.nearest(12, lat: lat, lon: lon)
            out.append(near.map { "\(c.index.identifier(of: $0.slot)) \($0.distance)" }.joined(separator: ","))
            let hits = c.index.classify(lat: lat, lon: lon, accuracy: acc)
            out.append(hits.map { "\(c.index.identifier(of: $0.slot)) \($0.state)" }.sorted().joined(separator: ","))
        }
        return out
    }

    func testRoundTripGivesTheFencesAndTheAnswersBack() throws {
        let fences = try sourceFences()
        let path = CLI.tempPath("roundtrip.gfc")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let built = try compile(fences, to: path)
        XCTAssertTrue(CompiledFenceFile.isCompiled(path: path))
        let opened = CompiledFences(file: try CompiledFenceFile.open(path: path))
        XCTAssertEqual(opened.index.count, fences.count)
        // Every fence back as loaded: identifier, shape, options, properties (number text), source.
        let back = try opened.loadFences()
        XCTAssertEqual(back.count, fences.count)
        for (a, b) in zip(back, fences) { XCTAssertEqual(a, b, a.id) }
        // Slots, identifier lookups, options and the answers of the rebuilt index.
        for (k, f) in fences.enumerated() { XCTAssertEqual(opened.index.slot(of: f.id), Int32(k)) }
        XCTAssertNil(opened.index.slot(of: "no such fence"))
        // Ranks against an independent sort of the identifiers (bytewise UTF-8).
        let byID = fences.indices.sorted { fences[$0].id.utf8.lexicographicallyPrecedes(fences[$1].id.utf8) }
        for (rank, k) in byID.enumerated() {
            XCTAssertEqual(opened.options.idRank(Int32(k)), Int32(rank))
            XCTAssertEqual(built.options.idRank(Int32(k)), Int32(rank))
        }
        for (k, f) in fences.enumerated() {
            let s = Int32(k)
            XCTAssertEqual(opened.options.dwell(s), f.options.dwell ?? -1)
            XCTAssertEqual(opened.options.repeats(s), f.options.repeats)
            XCTAssertEqual(opened.options.notifyOnEntry(s), f.options.notifyOnEntry)
            XCTAssertEqual(opened.options.notifyOnExit(s), f.options.notifyOnExit)
            XCTAssertEqual(opened.optionTable.note(of: k), f.options.note)
            XCTAssertEqual(opened.withDefaultDwell(60).options.dwell(s), f.options.dwell ?? 60)
        }
        XCTAssertEqual(opened.fenceRecords(), built.fenceRecords())
        XCTAssertEqual(answers(opened), answers(built))
        // An opened index still takes changes (the identifier map is built then).
        var index = opened.index
        try index.insert(.circle(id: "new", lat: 1, lon: 1, radius: 10))
        XCTAssertNotNil(index.remove(id: "ATL") ?? index.remove(id: fences[0].id))
        XCTAssertEqual(index.slot(of: "new"), Int32(fences.count))
    }

    /// Opens `path` with one thread, and again with 3 (sections read and checked side by
    /// side): the same fences and answers, or the same error, every time.
    func open(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> Result<([Fence], CompiledFences), GeofenceError> {
        func attempt(_ threads: Int) -> Result<([Fence], CompiledFences), GeofenceError> {
            Result { () throws(GeofenceError) in
                let opened = CompiledFences(file: try CompiledFenceFile.open(path: path, threads: threads))
                return (try opened.loadFences(), opened)
            }
        }
        let one = attempt(1)
        for threads in [3] {
            switch (one, attempt(threads)) {
            case (.success(let a), .success(let b)):
                XCTAssertEqual(b.0, a.0, "\(threads) threads: other fences", file: file, line: line)
                XCTAssertEqual(answers(b.1), answers(a.1), "\(threads) threads: other answers", file: file, line: line)
            case (.failure(let a), .failure(let b)):
                XCTAssertEqual("\(b)", "\(a)", "\(threads) threads: another error", file: file, line: line)
            case (_, let b):
                XCTFail("\(threads) threads: \(b) where one thread gave \(one)", file: file, line: line)
            }
        }
        return one
    }

    /// The section table of a compiled file: (offset, length) of every section.
    func sections(_ bytes: [UInt8]) -> [(Int, Int)] {
        func u(_ o: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 | Int(bytes[o + $1]) << (8 * $1) } }
        return (0..<u(16, 4)).map { k in (u(64 + 32 * k + 8, 8), u(64 + 32 * k + 16, 8)) }
    }

    /// Many damaged copies of one file: truncated at random offsets, bytes flipped in every
    /// section, the header and the section table, wrong magic, version and byte order.
    /// Each is refused as malformed or (a flip in alignment padding no section covers)
    /// opens with the same fences and answers.
    func testDamagedFilesAreRefusedNeverAnsweredWrongly() throws {
        let fences = try sourceFences()
        let path = CLI.tempPath("good.gfc"), bad = CLI.tempPath("bad.gfc")
        defer { for p in [path, bad] { try? FileManager.default.removeItem(atPath: p) } }
        let built = try compile(fences, to: path)
        let expected = answers(built)
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var g = SeededGenerator(seed: 65)
        var cases: [(String, [UInt8])] = []
        for _ in 0..<60 {
            let cut = Int(g.next() % UInt64(good.count))
            cases.append(("truncated at \(cut)", Array(good[0..<cut])))
        }
        var regions = sections(good).filter { $0.1 > 0 }
        regions.append((0, 64))                                   // the header
        regions.append((64, 32 * sections(good).count))           // the section table
        for (offset, length) in regions {
            for _ in 0..<6 {
                var b = good
                let at = offset + Int(g.next() % UInt64(length))
                b[at] ^= UInt8(1 << (g.next() % 8))
                cases.append(("bit flipped at \(at)", b))
            }
        }
        for _ in 0..<40 {  // anywhere, padding included
            var b = good
            let at = Int(g.next() % UInt64(good.count))
            b[at] ^= 0xFF
            cases.append(("byte flipped at \(at)", b))
        }
        var magic = good; magic[5] = 0x00; cases.append(("wrong magic", magic))
        var version = good; version[8] = 1; cases.append(("version 1", version))
        var endian = good; endian.replaceSubrange(12..<16, with: [1, 2, 3, 4]); cases.append(("big-endian mark", endian))
        cases.append(("appended byte", good + [0]))
        cases.append(("empty after magic", Array(good[0..<8])))

        var refused = 0, intact = 0
        for (what, bytes) in cases {
            try Data(bytes).write(to: URL(fileURLWithPath: bad))
            let outcome = open(bad)
            switch outcome {
            case .success(let opened):
                XCTAssertEqual(opened.0, fences, "\(what): opened with other fences")
                XCTAssertEqual(answers(opened.1), expected, "\(what): opened with other answers")
                intact += 1
            case .failure(let e):
                guard case .input(let i) = e, case .malformed = i.kind else { XCTFail("\(what): \(e)"); continue }
                XCTAssertEqual(i.location.file, bad)
                XCTAssertTrue(i.message.contains("compiled fence file"), "\(what): \(i.message)")
                refused += 1
            }
        }
        XCTAssertGreaterThan(cases.count, 300)
        XCTAssertGreaterThan(refused, 280)
        // Only flips in padding can go unnoticed.
        XCTAssertLessThan(intact, 20)
    }

    /// Compiling with a reload function releases the fences before identifiers are sorted: a
    /// repeated identifier is still reported at its second definition, as without one.
    func testDuplicateIsLocatedWhenTheFencesWereReleased() {
        let fences = [Fence(id: "a", shape: .circle(lat: 1, lon: 1, radius: 5), source: SourceLocation(file: "f.csv", line: 2)),
                      Fence(id: "b", shape: .circle(lat: 2, lon: 2, radius: 5), source: SourceLocation(file: "f.csv", line: 3)),
                      Fence(id: "a", shape: .circle(lat: 3, lon: 3, radius: 5), source: SourceLocation(file: "f.csv", line: 4))]
        func check(_ e: Error) {
            guard case .input(let i) = e as? GeofenceError else { return XCTFail("\(e)") }
            XCTAssertEqual(i.location, SourceLocation(file: "f.csv", line: 4))
            XCTAssertEqual(i.recordID, "a")
        }
        XCTAssertThrowsError(try CompiledFences(fences)) { check($0) }
        XCTAssertThrowsError(try CompiledFences(fences, reload: { fences })) { check($0) }
    }

    func testForeignVersionAndByteOrderAreNamed() throws {
        let path = CLI.tempPath("v.gfc")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try compile([.circle(id: "a", lat: 1, lon: 2, radius: 3)], to: path)
        var b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        b[8] = 9
        try Data(b).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try CompiledFenceFile.open(path: path)) { e in
            XCTAssertTrue("\(e)".contains("version 9"), "\(e)")
        }
        b[8] = 2
        b.replaceSubrange(12..<16, with: [1, 2, 3, 4])
        try Data(b).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try CompiledFenceFile.open(path: path)) { e in
            XCTAssertTrue("\(e)".contains("big-endian"), "\(e)")
        }
    }
}

extension CompiledFenceFileTests {
    /// Damage behind valid checksums (as a fuzzer or a buggy writer would make it): bytes of
    /// every section changed, the section table's offsets and lengths changed, then every
    /// checksum recomputed. The structural checks must refuse what the queries cannot follow;
    /// whatever opens is then queried and listed, which must not trap.
    func testDamageBehindValidChecksumsNeverTraps() throws {
        let path = CLI.tempPath("good.gfc"), bad = CLI.tempPath("resealed.gfc")
        defer { for p in [path, bad] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try compile(try sourceFences(), to: path)
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var resealedGood = good
        CompiledFenceFile.resealChecksums(&resealedGood)
        XCTAssertEqual(resealedGood, good, "resealing an intact file changes nothing")
        var g = SeededGenerator(seed: 1412)
        var refused = 0, opened = 0
        let regions = sections(good).filter { $0.1 > 0 }
        for (index, (offset, length)) in regions.enumerated() {
            for trial in 0..<6 {
                var b = good
                switch trial % 3 {
                case 0:   // a value in the section replaced by an extreme one
                    let at = offset + Int(g.next() % UInt64(length)) / 4 * 4
                    let v: UInt32 = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF][Int(g.next() % 5)]
                    for k in 0..<min(4, offset + length - at) { b[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
                case 1:   // a random byte
                    b[offset + Int(g.next() % UInt64(length))] = UInt8(truncatingIfNeeded: g.next())
                default:  // the section's length or offset in the table
                    let field = 64 + 32 * index + (g.next() % 2 == 0 ? 8 : 16)
                    b[field + Int(g.next() % 3)] ^= UInt8(1 << (g.next() % 8))
                }
                CompiledFenceFile.resealChecksums(&b)
                try Data(b).write(to: URL(fileURLWithPath: bad))
                switch open(bad) {
                case .success(let (_, compiled)):
                    _ = answers(compiled)
                    opened += 1
                case .failure(let e):
                    guard case .input(let i) = e, case .malformed = i.kind else { XCTFail("\(e)"); continue }
                    refused += 1
                }
            }
        }
        XCTAssertEqual(refused + opened, regions.count * 6)
        XCTAssertGreaterThan(refused, regions.count * 2)
    }
}

extension CompiledFenceFileTests {
    /// Inputs the fuzz target (Fuzz/compiled-fences) found trapping, resealed as it does:
    /// each is refused as malformed.
    func testFuzzerFindingsAreRefused() throws {
        let dir = CLI.fixture("compiled")
        let bad = CLI.tempPath("finding.gfc")
        defer { try? FileManager.default.removeItem(atPath: bad) }
        let findings = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".bin") }.sorted()
        XCTAssertFalse(findings.isEmpty)
        for name in findings {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
            CompiledFenceFile.resealChecksums(&bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: bad))
            guard case .failure(let e) = open(bad), case .input(let i) = e, case .malformed = i.kind else {
                XCTFail("\(name): not refused as malformed"); continue
            }
            // Refused by the open itself (the fuzz target queries right after it, before any
            // side section is read).
            do {
                _ = try CompiledFenceFile.open(path: bad)
                XCTFail("\(name): opened")
            } catch {
                guard case .input(let i) = error, case .malformed = i.kind else { XCTFail("\(name): \(error)"); continue }
            }
        }
    }
}

extension CompiledFenceFileTests {
    /// A tree whose search could step past its arrays is refused at open: an entry lane without
    /// a value, a box in a lane past the root's last child (checksums resealed, as a crafted
    /// file would have them).
    func testTreeLanesBeyondTheEntriesAreRefused() throws {
        let path = CLI.tempPath("tree.gfc"), bad = CLI.tempPath("tree-bad.gfc")
        defer { for p in [path, bad] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try compile(try sourceFences(), to: path)
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u(_ b: [UInt8], _ o: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 | Int(b[o + $1]) << (8 * $1) } }
        let table = sections(good)
        // Section kinds (the table's first field): 22 the tree's node blocks, 23 its level starts.
        let kinds = (0..<table.count).map { u(good, 64 + 32 * $0, 4) }
        guard let words = kinds.firstIndex(of: 22), let starts = kinds.firstIndex(of: 23) else { return XCTFail("no tree sections") }
        let wordsAt = table[words].0, startsAt = table[starts].0
        let levels = (0..<(table[starts].1 / 8)).map { u(good, startsAt + 8 * $0, 8) }
        XCTAssertGreaterThanOrEqual(levels.count, 3, "a tree of two levels or more")
        func refused(_ b: [UInt8], _ what: String) throws {
            var b = b
            CompiledFenceFile.resealChecksums(&b)
            try Data(b).write(to: URL(fileURLWithPath: bad))
            do {
                _ = try CompiledFenceFile.open(path: bad)
                XCTFail("\(what): opened")
            } catch {
                guard case .input(let i) = error, case .malformed = i.kind else { return XCTFail("\(what): \(error)") }
            }
        }
        func put(_ b: inout [UInt8], word: Int, _ v: UInt32) {
            for k in 0..<4 { b[wordsAt + 4 * word + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
        }
        // The first entry's value made "none".
        var noValue = good
        put(&noValue, word: 64, .max)
        try refused(noValue, "entry without a value")
        // A box in the root's last lane, past its children.
        let root = levels[levels.count - 1] - 1, children = levels[levels.count - 2] - levels[levels.count - 3]
        XCTAssertLessThan(children, 16)
        var box = good
        for (field, v) in [(0, Float(-10)), (16, -10), (32, 10), (48, 10)] { put(&box, word: 80 * root + field + 15, v.bitPattern) }
        try refused(box, "box past the root's children")
    }
}
