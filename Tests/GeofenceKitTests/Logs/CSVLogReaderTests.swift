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

final class CSVLogReaderTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func testSmallFixture() throws {
        let (fixes, reader) = try readLog(logFixture("small.csv"))
        XCTAssertEqual(reader.format, .csv)
        XCTAssertEqual(reader.devices.names, ["alpha", "bravo", "charlie"])
        XCTAssertEqual(fixes, [
            Fix(device: 0, time: 1591279897, lat: 36.88474, lon: -76.35246, accuracy: 5),
            Fix(device: 1, time: 1591279900.5, lat: 36.9, lon: -76.3, accuracy: 0),
            Fix(device: 0, time: 1591279898, lat: 36.88476, lon: -76.35247, accuracy: 12.5),
            Fix(device: 1, time: 1591280000, lat: -33.5, lon: 151.25, accuracy: 0),
            Fix(device: 2, time: 1591280400, lat: 0, lon: 180, accuracy: 3),
            Fix(device: 0, time: 1591279899.25, lat: 36.88475, lon: -76.35248, accuracy: 10),
        ])
        XCTAssertEqual(reader.fixesRead, 6)
        XCTAssertEqual(reader.line, 8)
        XCTAssertEqual(reader.skipped, [:])
        XCTAssertEqual(reader.bytesRead, reader.totalBytes)
        XCTAssertFalse(reader.isCompressed)
    }

    func testConfiguredColumnsQuotesCRLFAndBOM() throws {
        let columns = try LogColumns.parse("device=MMSI,time=BaseDateTime, lat = LAT,lon=LON")
        XCTAssertEqual(columns, LogColumns(device: "MMSI", time: "BaseDateTime", lat: "LAT", lon: "LON"))
        let (fixes, reader) = try readLog(logFixture("columns.csv"), LogReaderOptions(columns: columns))
        XCTAssertEqual(reader.devices.names, ["367554180", "338031889"])
        XCTAssertEqual(fixes.map(\.device), [0, 0, 1, 0])
        XCTAssertEqual(fixes.map(\.time), [1591263182, 1591263242, 1591263245, 1591263302])
        XCTAssertEqual(fixes[2].lat, 36.85)
        XCTAssertEqual(reader.line, 5)
        // MarineCadastre's header needs no mapping: MMSI, BaseDateTime, LAT, LON are synonyms.
        let (same, _) = try readLog(logFixture("columns.csv"))
        XCTAssertEqual(same, fixes)
        // An explicit name that is not there is an error, naming the option.
        let error = strictError(logFixture("columns.csv"), LogReaderOptions(columns: try LogColumns.parse("device=vessel")))
        XCTAssertEqual(error?.description, "\(logFixture("columns.csv")):1: missing column \"vessel\" (--columns device=vessel) in the header (columns: MMSI, BaseDateTime, LAT, LON, SOG, COG, VesselName)")
        XCTAssertEqual(error?.category, .badData)
    }

    func testColumnsParseErrors() {
        func message(_ spec: String) -> String? {
            do { _ = try LogColumns.parse(spec); return nil } catch { XCTAssertEqual(error.category, .badArgument); return error.description }
        }
        XCTAssertEqual(message("device"), "columns: \"device\" is not role=name (roles: device, time, lat, lon, accuracy)")
        XCTAssertEqual(message("speed=sog"), "columns: unknown role \"speed\" (roles: device, time, lat, lon, accuracy)")
        XCTAssertEqual(message("lat="), "columns: empty column name for \"lat\"")
        XCTAssertEqual(message("lat=a,lat=b"), "columns: \"lat\" given twice")
        XCTAssertEqual(try LogColumns.parse("accuracy=hacc").accuracy, "hacc")
    }

    func testHeaderMatchesCaseInsensitivelyAndAccuracyIsOptional() throws {
        let p = writeFile(tmp, "upper.csv", "Device,TIME,Lat,Lon,Speed\nx,0,1,2,3\n")
        let (fixes, _) = try readLog(p)
        XCTAssertEqual(fixes, [Fix(device: 0, time: 0, lat: 1, lon: 2, accuracy: 0)])
        let dup = writeFile(tmp, "dup.csv", "device,time,lat,lat,lon\n")
        XCTAssertEqual(strictError(dup)?.description, "\(dup):1: column \"lat\" appears 2 times in the header")
        let ambiguous = writeFile(tmp, "ambiguous.csv", "device,time,Lat,LAT,lon\n")
        XCTAssertEqual(strictError(ambiguous)?.description, "\(ambiguous):1: column \"Lat\" appears 2 times in the header (ASCII case ignored)")
        // An exact match wins over case-insensitive ones.
        let exact = writeFile(tmp, "exact.csv", "device,time,lat,LAT,lon\nx,1,2,95,3\n")
        XCTAssertEqual(try readLog(exact).fixes.map(\.lat), [2])
    }

    func testQuotedFieldsAndLineNumbers() throws {
        let (fixes, reader) = try readLog(logFixture("quoted.csv"))
        XCTAssertEqual(reader.devices.names, ["ship, one", "ship \"two\"", "multi\nline", "plain"])
        XCTAssertEqual(fixes.map(\.device), [0, 1, 2, 3, 0])
        XCTAssertEqual(fixes.map(\.lat), [1.5, 3.5, 5.5, 7.5, 1.25])
        XCTAssertEqual(fixes.map(\.lon), [2.5, 4.5, 6.5, 8.5, 2.25])
        XCTAssertEqual(reader.line, 7)
        // A bad row after the multi-line field is reported at its physical line.
        let text = try String(contentsOfFile: logFixture("quoted.csv"), encoding: .utf8) + "plain,2020-06-04T00:00:05Z,95,1\n"
        let p = writeFile(tmp, "q.csv", text)
        XCTAssertEqual(strictError(p)?.description, "\(p):8: latitude \"95\" is out of range [-90, 90]")
    }

    /// The real AIS sample against an independent reading (Foundation split, ISO8601DateFormatter, Double(String)).
    func testVirginiaBeachAgainstFoundation() throws {
        let path = packageRoot + "/data/virginia_beach_ais.csv"
        let (fixes, reader) = try readLog(path)
        XCTAssertEqual(fixes.count, 6132)
        XCTAssertEqual(reader.devices.count, 12)
        XCTAssertEqual(reader.skipped, [:])
        let iso = ISO8601DateFormatter()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertEqual(lines.count, fixes.count)
        var names: [String] = []
        for (fix, line) in zip(fixes, lines) {
            let f = line.split(separator: ",").map(String.init)
            if !names.contains(f[0]) { names.append(f[0]) }
            XCTAssertEqual(reader.devices.name(fix.device), f[0])
            XCTAssertEqual(fix.time, iso.date(from: f[1])!.timeIntervalSince1970)
            XCTAssertEqual(fix.lat.bitPattern, Double(f[2])!.bitPattern)
            XCTAssertEqual(fix.lon.bitPattern, Double(f[3])!.bitPattern)
            XCTAssertEqual(fix.accuracy, 0)
        }
        XCTAssertEqual(reader.devices.names, names)
        XCTAssertEqual(fixes.first, Fix(device: 0, time: 1591279897, lat: 36.88474, lon: -76.35246))
        XCTAssertEqual(Set(fixes.map(\.time)).min(), iso.date(from: "2020-06-04T09:33:02Z")!.timeIntervalSince1970)
        XCTAssertEqual(Set(fixes.map(\.time)).max(), iso.date(from: "2020-06-06T20:31:53Z")!.timeIntervalSince1970)
    }

    /// The fetched US coastal AIS file (scripts/fetch-data), when present: strict reading passes,
    /// and its 23 fixes at the same second as their device's previous fix but elsewhere are kept.
    func testUSCoastalWhenFetched() throws {
        let path = packageRoot + "/data/fetched/ais_us_coastal.csv"
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("run scripts/fetch-data for \(path)") }
        let (fixes, reader) = try readLog(path)
        XCTAssertEqual(fixes.count, 235_967)
        XCTAssertEqual(reader.devices.count, 1_185)
        var last: [Int32: Fix] = [:]
        var sameSecondMoved = 0
        for fix in fixes {
            if let p = last[fix.device], p.time == fix.time { sameSecondMoved += 1 }
            last[fix.device] = fix
        }
        XCTAssertEqual(sameSecondMoved, 23)
    }

    func testFixIsFlat() {
        XCTAssertEqual(MemoryLayout<Fix>.stride, 40)
    }

    /// Tiny chunks put every line and field across chunk boundaries; the result must not change.
    func testChunkBoundaries() throws {
        let files: [(String, LogReaderOptions)] = [
            (logFixture("small.csv"), LogReaderOptions()),
            (logFixture("quoted.csv"), LogReaderOptions()),
            (logFixture("columns.csv"), LogReaderOptions(columns: try LogColumns.parse("device=MMSI,time=BaseDateTime,lat=LAT,lon=LON"))),
            (packageRoot + "/data/virginia_beach_ais.csv", LogReaderOptions()),
        ]
        for (path, options) in files {
            let (expected, _) = try readLog(path, options)
            for chunk in [1, 2, 3, 5, 7, 16, 61, 4096] {
                var o = options
                o.chunkSize = chunk
                o.mapThreshold = Int.max      // through the read buffer (a mapped file has none)
                let reader = try LogReader(path: path, options: o)
                var all: [Fix] = []
                var batch: [Fix] = []
                while try reader.next(into: &batch, max: 3) {
                    XCTAssertLessThanOrEqual(batch.count, 3)
                    all += batch
                }
                XCTAssertEqual(all, expected, "\(path) chunk \(chunk)")
                XCTAssertLessThanOrEqual(reader.bufferCapacity, 2 * Swift.max(chunk, 64) + 256, "\(path) chunk \(chunk)")
            }
        }
    }

    func testSeveralLogsShareADeviceTable() throws {
        let a = writeFile(tmp, "a.csv", "device,time,lat,lon\nx,10,1,1\ny,10,2,2\n")
        let b = writeFile(tmp, "b.csv", "device,time,lat,lon\ny,11,2,2\nz,11,3,3\nx,5,1,1\n")
        let devices = DeviceTable()
        let first = try LogReader(path: a, devices: devices).readAll()
        XCTAssertEqual(first.map(\.device), [0, 1])
        let second = try LogReader(path: b, options: LogReaderOptions(skipInvalid: true), devices: devices)
        XCTAssertEqual(try second.readAll().map(\.device), [1, 2])
        XCTAssertEqual(devices.names, ["x", "y", "z"])
        XCTAssertEqual(devices.index(of: "z"), 2)
        XCTAssertNil(devices.index(of: "w"))
        XCTAssertEqual(second.firstSkipMessages[.timeBackwards],
                       "\(b):4: time goes backwards for device \"x\": 1970-01-01T00:00:05Z after 1970-01-01T00:00:10Z (\(a):2)")
    }

    func testManyInterleavedDevices() throws {
        var text = "device,time,lat,lon\n"
        for t in 0..<20 { for d in 0..<500 { text += "dev\(d * 7919 % 500),\(t),\(Double(d) / 10),\(Double(t))\n" } }
        let p = writeFile(tmp, "many.csv", text)
        let (fixes, reader) = try readLog(p)
        XCTAssertEqual(fixes.count, 10_000)
        XCTAssertEqual(reader.devices.count, 500)
        for (i, fix) in fixes.enumerated() {
            XCTAssertEqual(reader.devices.name(fix.device), "dev\(i % 500 * 7919 % 500)")
        }
        XCTAssertEqual(reader.devices.names.prefix(3), ["dev0", "dev419", "dev338"])
    }

    func testFormatDetection() {
        XCTAssertEqual(LogFormat.detect(path: "a/b.CSV"), .csv)
        XCTAssertEqual(LogFormat.detect(path: "b.csv.gz"), .csv)
        XCTAssertEqual(LogFormat.detect(path: "b.jsonl"), .ndjson)
        XCTAssertEqual(LogFormat.detect(path: "b.ndjson.GZ"), .ndjson)
        XCTAssertEqual(LogFormat.detect(path: "x.gpx.gz"), .gpx)
        XCTAssertNil(LogFormat.detect(path: "x.txt"))
        XCTAssertNil(LogFormat.detect(path: "-"))
        XCTAssertEqual(LogFormat(name: "JSONL"), .ndjson)
        XCTAssertNil(LogFormat(name: "kml"))
        XCTAssertEqual(LogReader.defaultDeviceName("data/gpx/korita-zbevnica.gpx"), "korita-zbevnica")
        XCTAssertEqual(LogReader.defaultDeviceName("run.gpx.gz"), "run")
        XCTAssertEqual(LogReader.defaultDeviceName("-"), "stdin")
    }

    func testUnknownExtensionIsSniffed() throws {
        let csv = writeFile(tmp, "log.txt", "device,time,lat,lon\nx,1,2,3\n")
        XCTAssertEqual(try LogReader(path: csv).format, .csv)
        let nd = writeFile(tmp, "log.data", "\n {\"device\":\"x\",\"time\":1,\"lat\":2,\"lon\":3}\n")
        XCTAssertEqual(try readLog(nd).fixes, [Fix(device: 0, time: 1, lat: 2, lon: 3)])
        let gpx = writeFile(tmp, "log.xml", "<?xml version=\"1.0\"?><gpx><wpt lat=\"1\" lon=\"2\"><time>1970-01-01T00:00:09Z</time></wpt></gpx>")
        let r = try LogReader(path: gpx)
        XCTAssertEqual(r.format, .gpx)
        XCTAssertEqual(try r.readAll(), [Fix(device: 0, time: 9, lat: 1, lon: 2)])
        XCTAssertEqual(r.devices.names, ["log"])
        // An explicit format wins over the extension.
        XCTAssertEqual(try LogReader(path: csv, options: LogReaderOptions(format: .ndjson)).format, .ndjson)
    }

    func testStdin() throws {
        let p = writeFile(tmp, "in.csv", "device,time,lat,lon\nx,1,2,3\ny,2,3,4\n")
        let saved = dup(0)
        let fd = open(p, O_RDONLY)
        dup2(fd, 0)
        close(fd)
        defer { dup2(saved, 0); close(saved) }
        let (fixes, reader) = try readLog("-")
        XCTAssertEqual(reader.format, .csv)
        XCTAssertEqual(fixes.count, 2)
        XCTAssertEqual(reader.devices.names, ["x", "y"])
    }
}
