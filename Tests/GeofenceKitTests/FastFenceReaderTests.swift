import Foundation
import XCTest
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceFences

/// The fast CSV and GeoJSON readers against the general ones (an independent parse through
/// `CSVReader` / `JSONParser` and `JSONValue`): whenever a fast reader gives an answer, the
/// general reader gives the same fences (properties and sources included) and no problem;
/// files it declines go to the general reader, so problems and messages are unchanged.
final class FastFenceReaderTests: XCTestCase {
    /// Both readers on `bytes`: nil when the fast one declines; else asserts agreement.
    @discardableResult
    func compare(_ bytes: [UInt8], format: FenceLoader.Format, keepProperties: Bool = true, _ what: String,
                 file: StaticString = #filePath, line: UInt = #line) -> FenceFile? {
        var loader = FenceLoader()
        loader.keepProperties = keepProperties
        let fast = format == .csv ? loader.fastCSV(bytes, name: "f") : loader.fastGeoJSON(bytes, name: "f")
        guard let fast else { return nil }
        do {
            let slow = format == .csv ? try loader.loadCSV(bytes: bytes, name: "f") : try loader.loadGeoJSON(bytes: bytes, name: "f")
            XCTAssertEqual(slow.problems, [], "\(what): the fast reader accepted a file with problems", file: file, line: line)
            XCTAssertEqual(fast.fences.count, slow.fences.count, what, file: file, line: line)
            for (a, b) in zip(fast.fences, slow.fences) where a != b {
                XCTFail("\(what): \(a) differs from \(b)", file: file, line: line)
                break
            }
        } catch {
            XCTFail("\(what): the fast reader accepted what the general one refuses: \(error)", file: file, line: line)
        }
        return fast
    }

    func files(_ dir: String, _ ext: [String]) -> [String] {
        let e = FileManager.default.enumerator(atPath: dir)
        var out: [String] = []
        while let p = e?.nextObject() as? String {
            if ext.contains((p as NSString).pathExtension) { out.append(dir + "/" + p) }
        }
        return out.sorted()
    }

    func testRealDataAndFixturesReadTheSame() throws {
        var fastCount = 0
        let paths = files(CLI.data(""), ["csv", "geojson"]) + files(fixture(""), ["csv", "geojson", "json"])
        for path in paths {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let format = FenceLoader.format(path: path, bytes: bytes)
            for keep in [true, false] where compare(bytes, format: format, keepProperties: keep, path) != nil { fastCount += 1 }
        }
        // The bundled real sets are clean enough for the fast readers.
        for name in ["ports.csv", "airports.csv", "us_counties_va_nc.geojson", "cities_istria.csv"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLI.data(name))))
            let format = FenceLoader.format(path: name, bytes: bytes)
            XCTAssertNotNil(compare(bytes, format: format, name), name)
        }
        XCTAssertGreaterThan(fastCount, 8)
    }

    /// Random edits of small valid files: every edited file the fast reader accepts, the
    /// general reader accepts too, with the same fences.
    /// Recognised names, other delimiters and radius units are read by the fast CSV reader
    /// itself, as the general one reads them; random edits of such a file never make them disagree.
    func testRecognisedHeadersAndDelimitersReadTheSame() {
        let base = Array("Store_ID;Latitude;LNG;radius_km;DWELL;Name\nA;45.5;-73.25;0.1;;x\nB;-0.5;179.999;1e-1;5;\"y;z\"\n".utf8)
        let fast = compare(base, format: .csv, "semicolons")
        XCTAssertEqual(fast?.fences.map(\.id), ["A", "B"])
        if case .circle(_, _, let r)? = fast?.fences.first?.shape { XCTAssertEqual(r, 100) } else { XCTFail("not a circle") }
        XCTAssertEqual(fast?.fences.last?.options.dwell, 5)
        var rng = SeededGenerator(seed: 13)
        let alphabet = Array(";,\t|\"\n -+e0123456789".utf8)
        var accepted = 0
        for trial in 0..<2000 {
            var b = base
            let k = rng.int(b.count)
            switch rng.int(3) {
            case 0: b.remove(at: k)
            case 1: b.insert(alphabet[rng.int(alphabet.count)], at: k)
            default: b[k] = alphabet[rng.int(alphabet.count)]
            }
            if compare(b, format: .csv, keepProperties: trial % 2 == 0, "edit \(trial): \(String(decoding: b, as: UTF8.self))") != nil { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 100)
    }

    func testRandomEditsNeverMakeTheReadersDisagree() {
        let csv = Array("""
        id,lat,lon,radius,note,dwell,name
        a,45.5,-73.25,100,hello,30,x
        b,-0.5,179.999,1e3,,5,"y,""z""\"
        c,+12,.5,250.,n,0,caf\u{e9}

        """.utf8)
        let geojson = Array("""
        {"type":"FeatureCollection","name":"t","features":[
        {"type":"Feature","id":"a","properties":{"radius":100,"note":"hi","dwell":30,"x":[1,{"y":null}]},"geometry":{"type":"Point","coordinates":[-73.25,45.5]}},
        {"type":"Feature","properties":{"id":7,"radius":1.5e2,"repeats":false},"geometry":{"coordinates":[179.999,-0.5,12],"type":"Point"}},
        {"type":"Feature","id":"p\\u00e9","properties":null,"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}},
        {"type":"Feature","id":"m","properties":{"notifyOnEntry":"no"},"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[2,2],[3,2],[3,3],[2,2]]]]}}
        ]}
        """.utf8)
        XCTAssertNotNil(compare(csv, format: .csv, "csv"))
        XCTAssertEqual(compare(geojson, format: .geojson, "geojson")?.fences.count, 4)
        var rng = SeededGenerator(seed: 14)
        let alphabet = Array(",.\"\n\r -+e0123456789:[]{}\\u".utf8) + [0xC3, 0xA9, 0xFF]
        for (base, format) in [(csv, FenceLoader.Format.csv), (geojson, .geojson)] {
            var accepted = 0
            for trial in 0..<4000 {
                var b = base
                for _ in 0..<(1 + rng.int(3)) {
                    let k = rng.int(b.count)
                    switch rng.int(3) {
                    case 0: b.remove(at: k)
                    case 1: b.insert(alphabet[rng.int(alphabet.count)], at: k)
                    default: b[k] = alphabet[rng.int(alphabet.count)]
                    }
                }
                if compare(b, format: format, keepProperties: trial % 2 == 0, "\(format) edit \(trial): \(String(decoding: b, as: UTF8.self))") != nil { accepted += 1 }
            }
            XCTAssertGreaterThan(accepted, 100, "\(format): the edits should leave many files clean")
        }
    }

    /// Coordinates and radii written in many decimal forms read as `Double(text)` does.
    func testNumbersReadAsDoubleParsesThem() {
        var rng = SeededGenerator(seed: 7)
        var text = "id,lat,lon,radius\n"
        var expected: [(Double, Double, Double)] = []
        func form(_ v: Double) -> String {
            switch rng.int(4) {
            case 0: return "\(v)"
            case 1: return String(format: "%.\(rng.int(17))f", v)
            case 2: return String(format: "%.\(rng.int(20))e", v)
            default: return String(format: "%.17g", v)
            }
        }
        for k in 0..<3000 {
            let lat = form(rng.uniform(-90, 90)), lon = form(rng.uniform(-180, 180)), r = form(rng.logUniform(1e-3, 1e7))
            guard let a = Double(lat), let o = Double(lon), let rv = Double(r), abs(a) <= 90, abs(o) <= 180, rv > 0 else { continue }
            text += "f\(k),\(lat),\(lon),\(r)\n"
            expected.append((a, o, rv))
        }
        guard let f = compare(Array(text.utf8), format: .csv, "numbers") else { return XCTFail("declined") }
        XCTAssertEqual(f.fences.count, expected.count)
        for (fence, e) in zip(f.fences, expected) {
            guard case .circle(let lat, let lon, let r) = fence.shape else { return XCTFail() }
            XCTAssertTrue(lat == e.0 && lon == e.1 && r == e.2, "\(fence.id)")
        }
    }
}
