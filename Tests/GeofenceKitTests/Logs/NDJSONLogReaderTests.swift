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

final class NDJSONLogReaderTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func testSmallFixture() throws {
        let (fixes, reader) = try readLog(logFixture("small.ndjson"))
        XCTAssertEqual(reader.format, .ndjson)
        XCTAssertEqual(reader.devices.names, ["alpha", "bravo", "366880470", "chéz \"q\""])
        XCTAssertEqual(fixes, [
            Fix(device: 0, time: 1591279897, lat: 36.88474, lon: -76.35246, accuracy: 5),
            Fix(device: 1, time: 1591279900.5, lat: 36.9, lon: -76.3, accuracy: 0),
            Fix(device: 0, time: 1591279898, lat: 36.88476, lon: -76.35247, accuracy: 12.5),
            Fix(device: 2, time: 1591280000, lat: -33.5, lon: 151.25, accuracy: 0),
            Fix(device: 3, time: 1591280400.25, lat: 0, lon: 180, accuracy: 0),
            Fix(device: 0, time: 1591279899.25, lat: 36.88475, lon: -76.35248, accuracy: 10),
        ])
        XCTAssertEqual(reader.line, 7)
    }

    func testConfiguredKeys() throws {
        let p = writeFile(tmp, "k.jsonl", "{\"mmsi\":1,\"ts\":\"2020-06-04T14:11:37Z\",\"y\":1.5,\"x\":2.5,\"hacc\":7}\n")
        let columns = try LogColumns.parse("device=mmsi,time=ts,lat=y,lon=x,accuracy=hacc")
        let (fixes, _) = try readLog(p, LogReaderOptions(columns: columns))
        XCTAssertEqual(fixes, [Fix(device: 0, time: 1591279897, lat: 1.5, lon: 2.5, accuracy: 7)])
    }

    /// The real AIS sample written as NDJSON (device as a number, time as a string) reads like the CSV.
    func testSameAsCSV() throws {
        let csvPath = packageRoot + "/data/virginia_beach_ais.csv"
        let (expected, csvReader) = try readLog(csvPath)
        var out = ""
        for line in try String(contentsOfFile: csvPath, encoding: .utf8).split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",")
            out += "{\"device\":\(f[0]),\"time\":\"\(f[1])\",\"lat\":\(f[2]),\"lon\":\(f[3]),\"extra\":{\"x\":[1,\"]\"]}}\n"
        }
        let p = writeFile(tmp, "vb.ndjson", out)
        for chunk in [3, 1000, 1 << 20] {
            let (fixes, reader) = try readLog(p, buffered(LogReaderOptions(chunkSize: chunk)))
            XCTAssertEqual(fixes, expected)
            XCTAssertEqual(reader.devices.names, csvReader.devices.names)
        }
    }

    func testChunkBoundaries() throws {
        let (expected, _) = try readLog(logFixture("small.ndjson"))
        for chunk in [1, 2, 3, 5, 8, 13, 100] {
            let (fixes, _) = try readLog(logFixture("small.ndjson"), buffered(LogReaderOptions(chunkSize: chunk)))
            XCTAssertEqual(fixes, expected, "chunk \(chunk)")
        }
    }
}
