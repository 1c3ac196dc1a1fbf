import Foundation
import XCTest
import GeofenceTestSupport

/// A full disk or a closed pipe on stdout or stderr is an I/O error (exit 74), never a trap.
final class OutputFailureTests: XCTestCase {
    /// Runs geofence with stdout (or stderr) on /dev/full; returns the status and what the other stream got.
    func runFull(_ args: [String], stderrFull: Bool = false) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = CLI.productsDirectory.appendingPathComponent("geofence")
        p.arguments = args
        let full = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        let other = CLI.tempPath("other")
        XCTAssertTrue(FileManager.default.createFile(atPath: other, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: other) }
        let otherHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: other))
        if stderrFull { p.standardError = full; p.standardOutput = otherHandle } else { p.standardOutput = full; p.standardError = otherHandle }
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try otherHandle.close()
        return (p.terminationStatus, try String(contentsOfFile: other, encoding: .utf8))
    }

    func testFullStdoutIsAnIOError() throws {
        let ports = ["--fences", CLI.data("ports.csv")]
        for (name, args) in [("nearest", ["nearest"] + ports + ["--at", "36.85,-76.3"]),
                             ("contains", ["contains"] + ports + ["--at", "36.85,-76.3", "--accuracy", "5000"]),
                             ("validate", ["validate"] + ports),
                             ("subset", ["subset"] + ports + ["--near", "36.85,-76.3", "--radius", "50000"]),
                             ("evaluate", ["evaluate"] + ports + ["--log", CLI.data("virginia_beach_ais.csv"), "--quiet"])] {
            let (status, stderr) = try runFull(args)
            XCTAssertEqual(status, 74, name)
            XCTAssertEqual(stderr, "geofence \(name): error: stdout: write failed: No space left on device\n", name)
        }
    }

    func testFullStderrAfterSuccessIsAnIOError() throws {
        let out = CLI.tempPath("events.ndjson")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (status, _) = try runFull(["evaluate", "--fences", CLI.data("ports.csv"), "--log", CLI.data("virginia_beach_ais.csv"), "-o", out],
                                      stderrFull: true)
        XCTAssertEqual(status, 74)
    }
}

extension OutputFailureTests {
    func testOutputsOfOneRunAreDistinctAndCommittedTogether() throws {
        let events = CLI.tempPath("events.ndjson")
        defer { try? FileManager.default.removeItem(atPath: events) }
        let same = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv"), "--log", CLI.data("virginia_beach_ais.csv"),
                                "-o", events, "--summary", events])
        XCTAssertEqual(same.status, 64)
        XCTAssertEqual(same.stderr, "geofence evaluate: error: options '--output' and '--summary' name the same file '\(events)'\n")
        // The summary cannot be written: the events are not left under their name either.
        let unwritable = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv"), "--log", CLI.data("virginia_beach_ais.csv"),
                                      "-o", events, "--summary", "/nonexistent-dir/summary.json"])
        XCTAssertEqual(unwritable.status, 74)
        XCTAssertEqual(unwritable.stderr, "geofence evaluate: error: /nonexistent-dir/summary.json: cannot create output file: No such file or directory\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: events))
        let dir = (events as NSString).deletingLastPathComponent
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains((events as NSString).lastPathComponent) }, [])
    }

    func testRadiusLimitsMustBeOrdered() throws {
        let r = try CLI.run(["validate", "--fences", CLI.data("ports.csv"), "--min-radius", "1000", "--max-radius", "10"])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr, "geofence validate: error: '--min-radius' 1000.0 is larger than '--max-radius' 10.0\n")
    }
}

/// Numbers from outside that used to trap (integer conversions) or read wrongly.
final class UntrustedNumberTests: XCTestCase {
    func fenceFile(_ text: String) throws -> String {
        let p = CLI.tempPath("fences.csv")
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    func testHugeRadiiAreReportedNotTrapped() throws {
        let f = try fenceFile("id,lat,lon,radius\nhuge,10,10,1e22\n")
        defer { try? FileManager.default.removeItem(atPath: f) }
        let v = try CLI.run(["validate", "--fences", f])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.contains("radius 1e+19 km is over the platform maximum 100 km"), v.stdout)
        let log = CLI.tempPath("log.csv")
        defer { try? FileManager.default.removeItem(atPath: log) }
        try "device,time,lat,lon\nd,1700000000,10,10\nd,1700000060,10.01,10\n".write(toFile: log, atomically: true, encoding: .utf8)
        let s = try CLI.run(["simulate", "--fences", f, "--log", log])
        XCTAssertEqual(s.status, 0, s.stderr)
        let svg = CLI.tempPath("huge.svg")
        defer { try? FileManager.default.removeItem(atPath: svg) }
        let rendered = try CLI.run(["render", "--fences", f, "--log", log, "-o", svg])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let r = try CLI.run(["simulate", "--fences", f, "--log", log, "--max-radius", "1e300"])
        XCTAssertEqual(r.status, 64, r.stderr)
    }

    func testHexadecimalRadiiAreNotNumbers() throws {
        let f = try fenceFile("id,lat,lon,radius\na,10,10,0x10\n")
        defer { try? FileManager.default.removeItem(atPath: f) }
        let v = try CLI.run(["validate", "--fences", f])
        XCTAssertEqual(v.status, 65)
        XCTAssertTrue(v.stdout.contains("radius \"0x10\" is not a number"), v.stdout)
    }

    func testSignedRadiiAreWrittenBackAsJSONNumbers() throws {
        let f = try fenceFile("id,lat,lon,radius\na,10,10,+.5e3\nb,10,10,+100.50\n")
        defer { try? FileManager.default.removeItem(atPath: f) }
        let r = try CLI.run(["subset", "--fences", f, "--near", "10,10", "--radius", "10"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("\"radius\":500"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\"radius\":100.50"), r.stdout)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)))
    }
}

extension OutputFailureTests {
    /// `simulate`'s report, events and chart, and `validate --repair`'s output, are committed
    /// together and only after stdout was written.
    func testSimulateAndRepairOutputsAreCommittedTogether() throws {
        let report = CLI.tempPath("report.json"), events = CLI.tempPath("sim-events.ndjson"), chart = CLI.tempPath("sweep.svg")
        defer { for p in [report, events, chart] { try? FileManager.default.removeItem(atPath: p) } }
        let simulate = ["simulate", "--fences", CLI.data("ports.csv"), "--log", CLI.data("virginia_beach_ais.csv"), "--strategy", "centre"]

        let same = try CLI.run(simulate + ["-o", report, "--events", report])
        XCTAssertEqual(same.status, 64)
        XCTAssertEqual(same.stderr, "geofence simulate: error: options '--events' and '--output' name the same file '\(report)'\n")

        let unwritable = try CLI.run(simulate + ["-o", report, "--sweep", chart, "--events", "/nonexistent-dir/events.ndjson"])
        XCTAssertEqual(unwritable.status, 74)
        XCTAssertEqual(unwritable.stderr, "geofence simulate: error: /nonexistent-dir/events.ndjson: cannot create output file: No such file or directory\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: report))
        XCTAssertFalse(FileManager.default.fileExists(atPath: chart))

        let (status, _) = try runFull(simulate + ["-o", report, "--events", events])
        XCTAssertEqual(status, 74)
        XCTAssertFalse(FileManager.default.fileExists(atPath: report))
        XCTAssertFalse(FileManager.default.fileExists(atPath: events))

        // A full device among the outputs: the file outputs are not committed either.
        let full = try CLI.run(simulate + ["-o", report, "--events", "/dev/full"])
        XCTAssertEqual(full.status, 74)
        XCTAssertFalse(FileManager.default.fileExists(atPath: report))

        let ok = try CLI.run(simulate + ["-o", report, "--events", events])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: report))
        XCTAssertTrue(FileManager.default.fileExists(atPath: events))

        let repaired = CLI.tempPath("repaired.geojson")
        defer { try? FileManager.default.removeItem(atPath: repaired) }
        let (repairStatus, _) = try runFull(["validate", "--fences", CLI.data("ports.csv"), "--repair", "-o", repaired])
        XCTAssertEqual(repairStatus, 74)
        XCTAssertFalse(FileManager.default.fileExists(atPath: repaired))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (report as NSString).deletingLastPathComponent)
            .filter { $0.contains(".tmp-") && ($0.contains("report.json") || $0.contains("sim-events") || $0.contains("repaired")) }
        XCTAssertEqual(leftovers, [])
    }
}

extension OutputFailureTests {
    /// Fences from a FIFO (or a pipe: `--fences <(zcat f.csv.gz)`) are read once: no command
    /// opens the path a second time (to look for a compiled file's magic, or to hash it for a
    /// tile manifest), which would wait for a writer for ever.
    func testFencesFromAFIFOAreReadOnce() throws {
        let tiles = CLI.tempPath("tiles"), compiled = CLI.tempPath("fifo.gfc")
        defer {
            try? FileManager.default.removeItem(atPath: tiles)
            try? FileManager.default.removeItem(atPath: compiled)
        }
        let commands: [(String, [String])] = [
            ("validate", ["validate"]), ("nearest", ["nearest", "--at", "1,2"]), ("contains", ["contains", "--at", "1,2"]),
            ("evaluate", ["evaluate", "--log", CLI.data("virginia_beach_ais.csv"), "-o", "/dev/null", "--quiet"]),
            ("subset", ["subset", "--near", "1,2", "--radius", "1000"]),
            ("simulate", ["simulate", "--log", CLI.data("virginia_beach_ais.csv"), "--strategy", "centre"]),
            ("tiles", ["subset", "--tiles", "2", "--out", tiles, "--quiet"]),
            ("compile", ["compile", "-o", compiled]),
        ]
        for (name, args) in commands {
            let fifo = CLI.tempPath("fences.csv")
            XCTAssertEqual(mkfifo(fifo, 0o600), 0)
            defer { unlink(fifo) }
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                guard fd >= 0 else { return }
                _ = "id,lat,lon,radius\na,1,2,100\n".withCString { write(fd, $0, strlen($0)) }
                close(fd)
            }
            writer.start()
            let r = try CLI.run(args + ["--fences", fifo], timeout: 20)
            // Unblock the writer if the command never opened the FIFO.
            let unblock = open(fifo, O_RDONLY | O_NONBLOCK)
            if unblock >= 0 { close(unblock) }
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
        }
    }
}
