import Foundation
import XCTest
import GeofenceTestSupport

final class EvaluateCommandTests: XCTestCase {
    let fences = ["--fences", CLI.data("ports.csv"), "--fences", CLI.data("us_counties_va_nc.geojson"), "--fences", CLI.data("airports.csv")]

    func testDeterministicAcrossThreadsAndRuns() throws {
        var outputs: [String] = []
        for (threads, format) in [("1", "ndjson"), ("2", "ndjson"), ("2", "ndjson"), ("1", "csv"), ("2", "csv")] {
            let out = CLI.tempPath("events.\(format)")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let r = try CLI.run(["evaluate"] + fences + ["--log", CLI.data("virginia_beach_ais.csv"), "--threads", threads, "--format", format, "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("geofence evaluate: fixes 6132, devices 12, fences 32228; events: enter "), r.stderr)
            outputs.append(try String(contentsOfFile: out, encoding: .utf8))
        }
        XCTAssertEqual(outputs[0], outputs[1], "1 vs 2 threads")
        XCTAssertEqual(outputs[1], outputs[2], "two runs")
        XCTAssertEqual(outputs[3], outputs[4], "csv, 1 vs 2 threads")
        XCTAssertGreaterThan(outputs[0].split(separator: "\n").count, 300)
        let first = outputs[0].split(separator: "\n")[0]
        XCTAssertEqual(String(first), #"{"device":"369493712","fence":"51740","type":"enter","time":"2020-06-04T14:11:37Z","lat":36.88474,"lon":-76.35246,"initial":true}"#)
        XCTAssertTrue(outputs[3].hasPrefix("device,fence,type,time,lat,lon,initial,note\n369493712,51740,enter,2020-06-04T14:11:37Z,36.88474,-76.35246,true,\n"))
    }

    func testStrictBadRowLeavesNoOutput() throws {
        let log = CLI.tempPath("bad.csv")
        try "device,time,lat,lon\na,2020-06-04T10:00:00Z,36.9,-76.3\na,2020-06-04T10:01:00Z,91.5,-76.3\n".write(toFile: log, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: log) }
        let out = CLI.tempPath("never.ndjson")
        let r = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv"), "--log", log, "-o", out])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stderr.hasPrefix("geofence evaluate: error: \(log):3: "), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let dir = (out as NSString).deletingLastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains((out as NSString).lastPathComponent) }
        XCTAssertEqual(leftovers, [])

        let summary = CLI.tempPath("summary.json")
        defer { try? FileManager.default.removeItem(atPath: summary); try? FileManager.default.removeItem(atPath: out) }
        let lenient = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv"), "--log", log, "-o", out, "--skip-invalid", "--summary", summary])
        XCTAssertEqual(lenient.status, 0, lenient.stderr)
        XCTAssertTrue(lenient.stderr.contains("skipped 1 row"), lenient.stderr)
        let json = try String(contentsOfFile: summary, encoding: .utf8)
        XCTAssertTrue(json.contains("\"fixes\":1,"), json)
        XCTAssertTrue(json.contains("\"skipped_total\":1"), json)
    }

    func testOutputToAFIFOIsWrittenInPlaceNotReplaced() throws {
        // Renaming a temporary file over a device or FIFO (say /dev/null) would replace it.
        let fifo = CLI.tempPath("events.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        let copy = CLI.tempPath("copy.ndjson")
        defer { unlink(copy) }
        let cat = Process()
        cat.executableURL = URL(fileURLWithPath: "/bin/sh")
        cat.arguments = ["-c", "cat '\(fifo)' > '\(copy)'"]
        try cat.run()
        let r = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv"), "--log", CLI.data("virginia_beach_ais.csv"), "-o", fifo, "-q"])
        cat.waitUntilExit()
        XCTAssertEqual(r.status, 0, r.stderr)
        var st = stat()
        XCTAssertEqual(stat(fifo, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "still a FIFO")
        XCTAssertTrue(try String(contentsOfFile: copy, encoding: .utf8).hasPrefix("{\"device\":"))
    }

    func testUsage() throws {
        let r = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv")])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr, "geofence evaluate: error: missing required option '--log'\n")
        let t = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv"), "--log", "x.csv", "--threads", "0"])
        XCTAssertEqual(t.status, 64)
        XCTAssertEqual(t.stderr, "geofence evaluate: error: option '--threads' must be ≥ 1, got '0'\n")
    }
}
