import Foundation
import XCTest
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceFences
import GeofenceKit

/// Circle files streamed into the compact index (`FenceLoader.compactCircles`) against the
/// general path (every fence parsed into a `Fence` array, checked by `FenceSet`, then
/// indexed): whenever the stream gives an index, it is the same slot for slot (identifier,
/// shape, options) and answers queries the same; every file it declines is one the general
/// path reads differently (a polygon, a problem, a repeated identifier, properties kept).
final class CompactLoadTests: XCTestCase {
    func compact(_ paths: [String], keepProperties: Bool = false, blockSize: Int = 16 << 20) throws -> (index: FenceIndex, options: FenceOptionTable)? {
        var loader = FenceLoader()
        loader.keepProperties = keepProperties
        return try loader.compactCircles(paths: paths, blockSize: blockSize)
    }

    /// Asserts the stream's index equals the general path's over the same files.
    func assertSameAsGeneralPath(_ paths: [String], _ got: (index: FenceIndex, options: FenceOptionTable),
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let set = try FenceSet.load(paths: paths, crs: nil, keepProperties: false)
        XCTAssertEqual(set.problems, [], file: file, line: line)
        let fences = set.fences
        let index = try FenceIndex(fences)
        XCTAssertEqual(got.index.slotCount, fences.count, file: file, line: line)
        XCTAssertEqual(got.options.count, fences.count, file: file, line: line)
        for (k, f) in fences.enumerated() {
            let s = Int32(k)
            guard got.index.identifier(of: s) == f.id, got.index.shape(at: s) == f.shape, got.options.options(of: k) == f.options else {
                XCTFail("slot \(k): \(got.index.identifier(of: s)) \(String(describing: got.index.shape(at: s))) \(got.options.options(of: k)) "
                        + "differs from \(f.id) \(f.shape) \(f.options)", file: file, line: line)
                return
            }
        }
        // The same answers at points near and between the fences.
        var rng = SeededGenerator(seed: 7)
        for k in 0..<400 {
            let f = fences[rng.int(fences.count)]
            guard case .circle(let lat, let lon, let r) = f.shape else { continue }
            let d = r / 111_000 * (k % 2 == 0 ? 0.9 : 3)
            let plat = max(-90, min(90, lat + d * (rng.unit() - 0.5) * 2)), plon = max(-180, min(180, lon + d * (rng.unit() - 0.5) * 2))
            let a = got.index.classify(lat: plat, lon: plon, accuracy: 30).map { "\(got.index.identifier(of: $0.slot)) \($0.state)" }.sorted()
            let b = index.classify(lat: plat, lon: plon, accuracy: 30).map { "\(index.identifier(of: $0.slot)) \($0.state)" }.sorted()
            XCTAssertEqual(a, b, "at \(plat),\(plon)", file: file, line: line)
        }
    }

    func testBundledCircleSetsStreamAsTheGeneralPathReadsThem() throws {
        for name in ["ports.csv", "airports.csv", "cities_istria.csv"] {
            let path = CLI.data(name)
            let got = try XCTUnwrap(try compact([path]), "\(name) is a clean circle file")
            try assertSameAsGeneralPath([path], got)
        }
        // Several files into one index, in order.
        let two = [CLI.data("ports.csv"), CLI.data("airports.csv")]
        try assertSameAsGeneralPath(two, try XCTUnwrap(try compact(two)))
    }

    /// CSV files read in small blocks: every block is the header and whole records (a quoted
    /// line feed never ends one), the blocks hold every record once, and the index is the
    /// general path's, whatever the block size.
    func testCSVReadInBlocksCutsAtRecordEnds() throws {
        let dir = CLI.tempPath("compact-blocks")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var text = "\u{FEFF}id,lat,lon,radius,note\r\n"
        var rng = SeededGenerator(seed: 11)
        for k in 0..<300 {
            let note = k % 7 == 0 ? "\"line one\nline \"\"two\"\"\"" : k % 5 == 0 ? "\"a,b\"" : "n\(k)"
            text += "f\(k),\(rng.uniform(-80, 80)),\(rng.uniform(-179, 179)),\(Int(rng.uniform(10, 5000))),\(note)" + (k % 3 == 0 ? "\r\n" : "\n")
            if k % 50 == 0 { text += "\n" }
        }
        let path = dir + "/blocks.csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let general = try FenceSet.load(paths: [path], crs: nil, keepProperties: false)
        XCTAssertEqual(general.problems, [])
        XCTAssertEqual(general.fences.count, 300)
        let header = Array("\u{FEFF}id,lat,lon,radius,note\r\n".utf8)
        for size in [1, 7, 64, 1000, 1 << 20] {
            var records: [UInt8] = []
            let done = FenceLoader.csvBlocks(path, blockSize: size) { block, _ in
                XCTAssertEqual(Array(block.prefix(header.count)), header, "size \(size)")
                let body = Array(block.dropFirst(header.count))
                // Whole records: the block reads alone as the general reader reads it.
                let file = try? FenceLoader().loadCSV(bytes: block, name: "b")
                XCTAssertEqual(file?.problems, [], "size \(size)")
                records += body
                return true
            }
            XCTAssertEqual(done, true)
            XCTAssertEqual(records, Array(Array(text.utf8).dropFirst(header.count)), "size \(size): the blocks hold the file once")
            try assertSameAsGeneralPath([path], try XCTUnwrap(try compact([path], blockSize: size)))
        }
        // An unterminated quote: no block ends after it, and the file is declined.
        try (text + "z,1,2,3,\"open\n").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNil(try compact([path], blockSize: 64))
    }

    func testCircleGeoJSONWithOptionsAndGzipStream() throws {
        let dir = CLI.tempPath("compact-geojson")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let doc = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"id":"paris","radius":500,"dwell":60,"note":"x"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[179.999,-16.5]},"properties":{"id":"fiji","radius":2000,"notifyOnEntry":false,"repeats":false}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[-0.1,51.5]},"properties":{"id":"london","radius":150}}
        ]}
        """
        let path = dir + "/c.geojson"
        try doc.write(toFile: path, atomically: true, encoding: .utf8)
        try assertSameAsGeneralPath([path], try XCTUnwrap(try compact([path])))
        let gz = Process()
        gz.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gz.arguments = ["-k", path]
        try gz.run(); gz.waitUntilExit()
        try assertSameAsGeneralPath([path + ".gz"], try XCTUnwrap(try compact([path + ".gz"])))
    }

    func testFilesTheStreamLeavesToTheGeneralPath() throws {
        let dir = CLI.tempPath("compact-declined")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func write(_ name: String, _ text: String) throws -> String {
            try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
            return dir + "/" + name
        }
        let a = try write("a.csv", "id,lat,lon,radius\na,1,2,100\nb,1.5,2.5,100\n")
        XCTAssertNotNil(try compact([a]))
        // Properties asked for: the stream keeps none.
        XCTAssertNil(try compact([a], keepProperties: true))
        // An identifier twice, within a file and across files.
        XCTAssertNil(try compact([try write("dup.csv", "id,lat,lon,radius\na,1,2,100\na,1.5,2.5,100\n")]))
        XCTAssertNil(try compact([a, try write("b.csv", "id,lat,lon,radius\nz,1,2,100\nb,3,3,10\n")]))
        // A problem (radius 0) and a polygon.
        XCTAssertNil(try compact([try write("bad.csv", "id,lat,lon,radius\na,1,2,0\n")]))
        XCTAssertNil(try compact([CLI.data("us_counties_va_nc.geojson")]))
        // Standard input and compiled files are not streamed.
        XCTAssertNil(try compact(["-"]))
        // A file that cannot be read: the same error as the general path.
        XCTAssertThrowsError(try compact([dir + "/missing.csv"]))

        // Through Geofencer: a duplicate across files is still reported where it is, and
        // skipped (counted) with skipInvalid.
        let b = try write("b2.csv", "id,lat,lon,radius\nz,1,2,100\nb,3,3,10\n")
        XCTAssertThrowsError(try Geofencer(contentsOf: [a, b])) { e in
            XCTAssertTrue("\(e)".contains("b2.csv") && "\(e)".contains("duplicate"), "\(e)")
        }
        let lenient = try Geofencer(contentsOf: [a, b], skipInvalid: true)
        XCTAssertEqual(lenient.compiled.index.count, 3)
        XCTAssertEqual(lenient.skippedProblems.values.reduce(0, +), 1)
    }

    /// A compiled file written from the streamed index and side sections gathered fence by
    /// fence is byte for byte the file written from the fences held whole.
    func testCompiledFileFromStreamedSidesIsTheSameBytes() throws {
        let paths = [CLI.data("ports.csv"), CLI.data("airports.csv")]
        let g = try Geofencer(contentsOf: paths)
        let fences = try FenceSet.load(paths: paths, crs: nil).fences
        var sides = CompiledFenceFile.SideSections()
        XCTAssertTrue(try FenceLoader().forEachFastFence(paths: paths) { sides.add($0); return true })
        let a = CLI.tempPath("whole.gfc"), b = CLI.tempPath("streamed.gfc")
        defer { for p in [a, b] { try? FileManager.default.removeItem(atPath: p) } }
        try CompiledFenceFile.write(index: g.compiled.index, fences: fences, to: a)
        try CompiledFenceFile.write(index: g.compiled.index, options: g.compiled.optionTable, sides: sides, to: b)
        let whole = try Data(contentsOf: URL(fileURLWithPath: a)), streamed = try Data(contentsOf: URL(fileURLWithPath: b))
        XCTAssertGreaterThan(whole.count, 100_000)
        XCTAssertEqual(whole, streamed)
        XCTAssertEqual(try CompiledFenceFile.open(path: b).fences(), fences)
        // Counts that do not match the index are refused, not written.
        var short = CompiledFenceFile.SideSections()
        short.add(fences[0])
        XCTAssertThrowsError(try CompiledFenceFile.write(index: g.compiled.index, options: g.compiled.optionTable, sides: short, to: b))
    }

    /// Geofencer's answers from the streamed index are those of the general path, and
    /// the fences (with properties) are read again for commands that write them back.
    func testGeofencerStreamsAndReloadsProperties() throws {
        let path = CLI.data("airports.csv")
        let g = try Geofencer(contentsOf: [path])
        let set = try FenceSet.load(paths: [path], crs: nil)
        XCTAssertEqual(try g.compiled.loadFences(), set.fences)
        XCTAssertFalse(set.fences.allSatisfy { $0.properties.isEmpty })
    }
}
