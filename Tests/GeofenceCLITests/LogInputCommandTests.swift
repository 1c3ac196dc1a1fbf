import Foundation
import XCTest
import GeofenceTestSupport

/// Logs as phones and trackers export them, through the CLI (docs/logs.md).
final class LogInputCommandTests: XCTestCase {
    /// A phone export (`user_id,timestamp` in ms, `latitude,longitude,horizontal_accuracy`)
    /// evaluates with no `--columns` and gives the events of the canonical CSV.
    func testPhoneExportNeedsNoColumns() throws {
        let source = try String(contentsOfFile: CLI.data("virginia_beach_ais.csv"), encoding: .utf8)
        var canonical = "device,time,lat,lon,accuracy\n", phone = "user_id,timestamp,latitude,longitude,horizontal_accuracy\n"
        let iso = ISO8601DateFormatter()
        for (k, line) in source.split(separator: "\n").dropFirst().enumerated() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let accuracy = [0, 5, 35, 120, 600][k % 5]
            let ms = Int64((try XCTUnwrap(iso.date(from: f[1]))).timeIntervalSince1970 * 1000)
            canonical += "\(f[0]),\(f[1]),\(f[2]),\(f[3]),\(accuracy)\n"
            phone += "\(f[0]),\(ms),\(f[2]),\(f[3]),\(accuracy)\n"
        }
        let a = CLI.tempPath("canonical.csv"), b = CLI.tempPath("phone.csv")
        defer { for p in [a, b] { try? FileManager.default.removeItem(atPath: p) } }
        try canonical.write(toFile: a, atomically: true, encoding: .utf8)
        try phone.write(toFile: b, atomically: true, encoding: .utf8)
        let fences = ["--fences", CLI.data("ports.csv"), "--fences", CLI.data("us_counties_va_nc.geojson")]
        let expected = try CLI.run(["evaluate"] + fences + ["--log", a])
        let got = try CLI.run(["evaluate"] + fences + ["--log", b])
        XCTAssertEqual(expected.status, 0, expected.stderr)
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertGreaterThan(expected.stdout.split(separator: "\n").count, 20)
        XCTAssertEqual(got.stdout, expected.stdout)
        XCTAssertTrue(got.stderr.contains("\(b): numeric times read as epoch milliseconds (the first, 1591279897000, is 2020-06-04T14:11:37Z)"), got.stderr)
        // Read as seconds, the same file is all bad rows: an error, never events in year 52,000.
        let wrong = try CLI.run(["evaluate"] + fences + ["--log", b, "--time-unit", "s"])
        XCTAssertEqual(wrong.status, 65)
        XCTAssertTrue(wrong.stderr.contains("(read as epoch seconds) is 52395-08-27T09:36:40Z, outside 1970 to 2100"), wrong.stderr)
    }

    /// Every bundled GPX file evaluates in strict mode: waypoints without a time are passed
    /// over (and said), not errors.
    func testBundledGPXFilesEvaluateStrictly() throws {
        let dir = CLI.data("gpx")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir).filter({ $0.hasSuffix(".gpx") }).sorted()
        where name != "cerknicko-without-times.gpx" && name != "korita-zbevnica.gpx" {
            let r = try CLI.run(["evaluate", "--fences", CLI.data("countries.geojson"), "--skip-invalid", "--log", dir + "/" + name, "-o", "/dev/null"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
        }
        let r = try CLI.run(["evaluate", "--fences", CLI.data("countries.geojson"), "--skip-invalid", "--log", dir + "/cerknicko-jezero.gpx", "-o", "/dev/null"])
        XCTAssertTrue(r.stderr.contains("cerknicko-jezero.gpx: 6 waypoints without a time passed over (points of interest, not fixes)"), r.stderr)
    }

    /// `--delimiter`, `--time-unit` and `--time-range` values are checked.
    func testLogOptionValues() throws {
        let base = ["evaluate", "--fences", CLI.data("ports.csv"), "--log", CLI.data("virginia_beach_ais.csv")]
        for (option, value, message) in [("--delimiter", ":", "'--delimiter' must be one of , ; tab |, got ':'"),
                                         ("--time-unit", "h", "'--time-unit' must be s, ms, us or auto, got 'h'"),
                                         ("--time-range", "all", "'--time-range' must be 'plausible' or 'any', got 'all'")] {
            let r = try CLI.run(base + [option, value])
            XCTAssertEqual(r.status, 64, option)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
        }
    }
}

extension LogInputCommandTests {
    /// `--time-zone keep` writes each event's time with the offset its fix was written with;
    /// the default is UTC. The instants are the same either way (checked with Foundation).
    func testTimeZoneKeep() throws {
        let log = CLI.tempPath("tz.csv")
        defer { try? FileManager.default.removeItem(atPath: log) }
        try "device,time,lat,lon\na,2020-06-04T16:11:37+02:00,36.85,-76.3\na,20200604T102000-0530,40,-70\nb,2020-06-04 14:11:37 Z,36.85,-76.3\n"
            .write(toFile: log, atomically: true, encoding: .utf8)
        let base = ["evaluate", "--fences", CLI.data("ports.csv"), "--log", log, "-q", "--format", "csv"]
        let kept = try CLI.run(base + ["--time-zone", "keep"])
        let utc = try CLI.run(base)
        XCTAssertEqual(kept.status, 0, kept.stderr)
        func times(_ out: String) -> [String] { out.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[3]) } }
        XCTAssertEqual(times(kept.stdout), ["2020-06-04T16:11:37+02:00", "2020-06-04T10:20:00-05:30", "2020-06-04T14:11:37Z"])
        XCTAssertEqual(times(utc.stdout), ["2020-06-04T14:11:37Z", "2020-06-04T15:50:00Z", "2020-06-04T14:11:37Z"])
        let iso = ISO8601DateFormatter()
        XCTAssertEqual(times(kept.stdout).map { iso.date(from: $0) }, times(utc.stdout).map { iso.date(from: $0) })
        // Read in parallel chunks or serially, each fix keeps its own offset.
        for threads in ["1", "8"] {
            XCTAssertEqual(try CLI.run(base + ["--time-zone", "keep", "--threads", threads]).stdout, kept.stdout, threads)
        }
        let bad = try CLI.run(base + ["--time-zone", "local"])
        XCTAssertEqual(bad.status, 64)
    }
}
