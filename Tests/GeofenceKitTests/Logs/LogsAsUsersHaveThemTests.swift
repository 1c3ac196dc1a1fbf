import Foundation
import XCTest
@testable import GeofenceLogs
import GeofenceBase

/// Logs as people export them (docs/logs.md): other column names, other delimiters, epoch
/// milliseconds, ISO 8601 basic form. Each case is compared with the same fixes written the
/// canonical way, read by the same reader (`device,time,lat,lon,accuracy`, ISO 8601 extended).
final class LogsAsUsersHaveThemTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    /// (device, Unix seconds, lat, lon, accuracy), a few devices and times with fractions.
    let rows: [(String, Double, Double, Double, Double)] = [
        ("a", 1_714_550_400, 45.764, 4.8357, 5), ("b", 1_714_550_401.25, 45.7, 4.8, 0),
        ("a", 1_714_550_460.5, 45.765, 4.836, 12.5), ("c", 1_714_550_500, -33.9, 151.2, 3),
    ]

    func canonical() throws -> [Fix] {
        var text = "device,time,lat,lon,accuracy\n"
        for r in rows { text += "\(r.0),\(LogTime.format(r.1)),\(r.2),\(r.3),\(r.4)\n" }
        return try readLog(writeFile(tmp, "canonical.csv", text)).fixes
    }

    func testSynonymsDelimitersAndMilliseconds() throws {
        let expected = try canonical()
        func ms(_ t: Double) -> String { String(Int64((t * 1000).rounded())) }
        func us(_ t: Double) -> String { String(Int64((t * 1_000_000).rounded())) }
        let cases: [(String, String, (String, Double, Double, Double, Double) -> String)] = [
            ("phone.csv", "user_id,timestamp,latitude,longitude,horizontal_accuracy", { "\($0),\(ms($1)),\($2),\($3),\($4)" }),
            ("semicolon.csv", "device;time;lat;lon;accuracy", { "\($0);\(LogTime.format($1));\($2);\($3);\($4)" }),
            ("tab.tsv", "Device\tTime\tLatitude\tLng\tAcc", { "\($0)\t\(us($1))\t\($2)\t\($3)\t\($4)" }),
            ("bar.csv", "uid|datetime|lat|lon|accuracy", { "\"\($0)\"|\(LogTime.format($1))|\($2)|\($3)|\($4)" }),
        ]
        for (name, header, row) in cases {
            var text = header + "\n"
            for r in rows { text += row(r.0, r.1, r.2, r.3, r.4) + "\n" }
            let (fixes, reader) = try readLog(writeFile(tmp, name, text))
            XCTAssertEqual(fixes, expected, name)
            XCTAssertEqual(reader.devices.names, ["a", "b", "c"], name)
        }
        // NDJSON keys by their usual names too, milliseconds as numbers.
        var nd = ""
        for r in rows { nd += "{\"user_id\":\"\(r.0)\",\"ts\":\(ms(r.1)),\"latitude\":\(r.2),\"lng\":\(r.3),\"hacc\":\(r.4)}\n" }
        let (ndFixes, ndReader) = try readLog(writeFile(tmp, "phone.ndjson", nd))
        XCTAssertEqual(ndFixes, expected)
        XCTAssertEqual(ndReader.detectedTimeUnit?.unit, .milliseconds)
    }

    func testTimeUnits() throws {
        let p = writeFile(tmp, "ms.csv", "device,time,lat,lon\na,1714550400123,1,2\na,1714550401000,1,2\n")
        let (auto, reader) = try readLog(p)
        XCTAssertEqual(auto.map(\.time), [1_714_550_400.123, 1_714_550_401])
        XCTAssertEqual(reader.detectedTimeUnit?.unit, .milliseconds)
        XCTAssertEqual(reader.detectedTimeUnit?.first, 1_714_550_400_123)
        // Told seconds, the same values are 56,000 years ahead: bad rows, never silent.
        var seconds = LogReaderOptions()
        seconds.timeUnit = .seconds
        let error = strictError(p, seconds)
        XCTAssertEqual(error?.description, "\(p):2: time \"1714550400123\" (read as epoch seconds) is 56301-12-10T08:02:03Z, outside 1970 to 2100 (--time-range any accepts the years 0001 to 9999)")
        // Seconds stay seconds, and say nothing.
        let s = writeFile(tmp, "s.csv", "device,time,lat,lon\na,1714550400.5,1,2\n")
        let (sec, sreader) = try readLog(s)
        XCTAssertEqual(sec.map(\.time), [1_714_550_400.5])
        XCTAssertEqual(sreader.detectedTimeUnit?.unit, .seconds)
        // Implausible ISO times are bad rows unless asked for.
        let old = writeFile(tmp, "old.csv", "device,time,lat,lon\na,1900-01-01T00:00:00Z,1,2\n")
        XCTAssertEqual(strictError(old)?.description, "\(old):2: time \"1900-01-01T00:00:00Z\" is 1900-01-01T00:00:00Z, outside 1970 to 2100 (--time-range any accepts the years 0001 to 9999)")
        var any = LogReaderOptions()
        any.timeRange = .any
        XCTAssertEqual(try readLog(old, any).fixes.map(\.time), [-2_208_988_800])
    }

    func testISOForms() {
        let expected = 1_714_550_400.0 // 2024-05-01T08:00:00Z
        for text in ["20240501T080000Z", "20240501T0800Z", "20240501T100000+0200", "20240501T100000+02:00",
                     "2024-05-01T10:00:00 +02:00", "2024-05-01 08:00:00 Z", "2024-05-01T08:00:00.000000Z", "20240501T080000.000Z"] {
            XCTAssertEqual(LogTime.parse(text), expected, text)
        }
        XCTAssertEqual(LogTime.parse("2024-05-01"), 1_714_521_600)     // a date alone: midnight UTC
        XCTAssertEqual(LogTime.parse("20240501"), 20_240_501)          // eight digits are a number
        for bad in ["20240501T08", "20241301T080000Z", "2024-05-01T08:00:00  Z", "20240501T080000ZZ"] {
            XCTAssertNil(LogTime.parse(bad), bad)
        }
    }

    func testColumnsTakeOneRoleEach() throws {
        let p = writeFile(tmp, "ais.csv", "device,time,lat,lon\n1,2024-05-01T08:00:00Z,36.8,-76.3\n")
        let error = strictError(p, LogReaderOptions(columns: try LogColumns.parse("device=lat")))
        XCTAssertEqual(error?.description, "\(p):1: no latitude column in the header (columns: device, time, lat, lon); \"lat\" is the device column (--columns device=lat); name the columns with --columns, e.g. --columns device=lat,time=time,lat=device,lon=lon")
        XCTAssertThrowsError(try LogColumns.parse("device=lat,lat=lat"))
        // A delimiter given wins over the sniffed one.
        let semi = writeFile(tmp, "semi.csv", "device;time;lat;lon\n")
        var comma = LogReaderOptions()
        comma.delimiter = UInt8(ascii: ",")
        XCTAssertTrue(strictError(semi, comma)?.description.contains("no device column in the header (columns: device;time;lat;lon)") ?? false)
        // A quoted delimiter in the header does not count; quoted fields keep theirs.
        let q = writeFile(tmp, "q.csv", "device;time;lat;lon;\"note, with commas, here\"\n\"a;b\";2024-05-01T08:00:00Z;1;2;x\n")
        let (fixes, reader) = try readLog(q)
        XCTAssertEqual(fixes.count, 1)
        XCTAssertEqual(reader.devices.names, ["a;b"])
    }
}

extension LogsAsUsersHaveThemTests {
    /// A device whose rows are all bad is not a device of the log (`fixes 1, devices 1`).
    func testDevicesWithOnlyBadRowsAreNotCounted() throws {
        let csv = writeFile(tmp, "bad.csv", "device,time,lat,lon\na,2024-05-01T08:00:00Z,1,2\nb,2024-05-01T08:00:00Z,91,2\nc,yesterday,1,2\n")
        let nd = writeFile(tmp, "bad.ndjson", """
            {"device":"a","time":"2024-05-01T08:00:00Z","lat":1,"lon":2}
            {"device":"b","time":"2024-05-01T08:00:00Z","lat":91,"lon":2}
            {"device":"c","time":"yesterday","lat":1,"lon":2}

            """)
        for p in [csv, nd] {
            let (fixes, reader) = try readLog(p, LogReaderOptions(skipInvalid: true))
            XCTAssertEqual(fixes.count, 1, p)
            XCTAssertEqual(reader.devices.names, ["a"], p)
            XCTAssertEqual(reader.skippedTotal, 2, p)
        }
    }
}
