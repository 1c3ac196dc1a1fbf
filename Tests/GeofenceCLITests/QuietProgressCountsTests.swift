import Foundation
import XCTest
import GeofenceTestSupport

/// `-q` on every command, progress lines on a terminal only, and count messages that say
/// what was counted, in the right number.
final class QuietProgressCountsTests: XCTestCase {
    let fences = CLI.data("cities_istria.csv")
    let gpx = CLI.data("gpx/around-visnjan-with-car.gpx")

    func testEveryCommandAcceptsQuietAndSaysNothingOnStderr() throws {
        let dir = CLI.tempPath("quiet")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A fence problem, so that commands loading with --skip-invalid have a count to report.
        let bad = dir + "/with-bad.csv"
        try (String(contentsOfFile: fences, encoding: .utf8) + "broken,45.2,13.8,-1\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let runs: [[String]] = [
            ["validate", "-f", fences],
            ["compile", "-f", bad, "--skip-invalid", "-o", dir + "/f.gfc"],
            ["contains", "-f", bad, "--skip-invalid", "--at", "45.2,13.8"],
            ["nearest", "-f", bad, "--skip-invalid", "--at", "45.2,13.8"],
            ["evaluate", "-f", bad, "--skip-invalid", "--log", gpx, "-o", dir + "/e.ndjson"],
            ["simulate", "-f", fences, "--log", gpx, "--strategy", "centre"],
            ["render", "-f", fences, "--log", gpx, "-o", dir + "/r.svg"],
            ["subset", "-f", bad, "--skip-invalid", "--near", "45.2,13.8", "--radius", "5000", "-o", dir + "/s.geojson"],
        ]
        for args in runs {
            let loud = try CLI.run(args)
            XCTAssertEqual(loud.status, 0, "\(args): \(loud.stderr)")
            if args[0] != "validate" && args[0] != "simulate" {
                XCTAssertFalse(loud.stderr.isEmpty, "\(args[0]) has something to say without -q")
            }
            for q in ["-q", "--quiet"] {
                let quiet = try CLI.run(args + [q])
                XCTAssertEqual(quiet.status, 0, "\(args) \(q): \(quiet.stderr)")
                XCTAssertEqual(quiet.stderr, "", "\(args[0]) \(q)")
            }
            let help = try CLI.run([args[0], "--help"])
            XCTAssertTrue(help.stdout.contains("--quiet, -q") || help.stdout.contains("-q, --quiet"), "\(args[0]) --help lists -q")
        }
    }

    /// Runs the command with stderr on a pseudo-terminal (util-linux `script`).
    func onATerminal(_ args: [String]) throws -> String {
        let bin = CLI.productsDirectory.appendingPathComponent("geofence").path
        let command = ([bin] + args).map { "'" + $0 + "'" }.joined(separator: " ")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", command + " >/dev/null", "/dev/null"]
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self)
    }

    func testProgressForFenceLoadsAndSimulateOnATerminalOnly() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux script")
        let load = try onATerminal(["nearest", "-f", fences, "--at", "45.2,13.8"])
        XCTAssertTrue(load.contains("geofence nearest: reading fences from cities_istria.csv ("), load)
        XCTAssertTrue(load.contains("\u{1B}[K"), "the line is cleared")
        let sim = try onATerminal(["simulate", "-f", fences, "--log", gpx, "--strategy", "centre"])
        for phase in ["reading fences from", "indexing ", "reading around-visnjan-with-car.gpx", "ground truth: evaluating ", "replaying 1 strategy over 1 device"] {
            XCTAssertTrue(sim.contains("geofence simulate: " + phase), "\(phase): \(sim)")
        }
        XCTAssertFalse(try onATerminal(["nearest", "-f", fences, "--at", "45.2,13.8", "-q"]).contains("reading"))
        // Not a terminal: nothing.
        XCTAssertEqual(try CLI.run(["nearest", "-f", fences, "--at", "45.2,13.8"]).stderr, "")
    }

    func testValidateSaysWhatWasReadAndWhatBecameFences() throws {
        let path = CLI.tempPath("counts.geojson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":"a","properties":{"radius":100},"geometry":{"type":"Point","coordinates":[0,0]}},
        {"type":"Feature","id":"b","properties":{},"geometry":{"type":"Point","coordinates":[0,1]}},
        {"type":"Feature","id":"c","properties":{"radius":-5},"geometry":{"type":"Point","coordinates":[0,2]}}
        ]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLI.run(["validate", "-f", path])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stdout.hasPrefix("\(path): 3 features read: 1 fence (1 circle, 0 polygons)\ntotal: 1 fence, 2 problems (2 fences affected)\n"), r.stdout)
        let csv = try CLI.run(["validate", "-f", fences])
        XCTAssertTrue(csv.stdout.hasPrefix("\(fences): 56 rows read: 56 fences (56 circles, 0 polygons)\ntotal: 56 fences, 0 problems\n"), csv.stdout)
    }

    func testSingularsAndDevicesWithFixesOnly() throws {
        let dir = CLI.tempPath("singular")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "id,lat,lon,radius\none,45.2,13.8,500\n".write(toFile: dir + "/one.csv", atomically: true, encoding: .utf8)
        // Devices x and y have only bad rows: one device has a fix.
        try "device,time,lat,lon\nx,2024-05-01T08:00:00Z,95,13.8\ny,2024-05-01T08:00:00Z,95,13.8\nz,2024-05-01T08:00:00Z,45.2,13.8\n"
            .write(toFile: dir + "/log.csv", atomically: true, encoding: .utf8)
        let c = try CLI.run(["compile", "-f", dir + "/one.csv", "-o", dir + "/one.gfc"])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertTrue(c.stdout.hasPrefix("\(dir)/one.gfc: 1 fence compiled (1 circle, 0 polygons), "), c.stdout)
        let summary = dir + "/summary.json"
        let e = try CLI.run(["evaluate", "-f", dir + "/one.csv", "--log", dir + "/log.csv", "--skip-invalid", "--summary", summary, "-o", dir + "/e.ndjson"])
        XCTAssertEqual(e.status, 0, e.stderr)
        XCTAssertTrue(e.stderr.hasPrefix("geofence evaluate: fixes 1, devices 1, fences 1; "), e.stderr)
        XCTAssertTrue(try String(contentsOfFile: summary, encoding: .utf8).contains("\"devices\":1,"))
        let s = try CLI.run(["simulate", "-f", dir + "/one.csv", "--log", dir + "/log.csv", "--skip-invalid", "--strategy", "centre"])
        XCTAssertEqual(s.status, 0, s.stderr)
        XCTAssertTrue(s.stdout.hasPrefix("geofence simulate: 1 fix, 1 device, 1 fence; "), s.stdout)
        let sub = try CLI.run(["subset", "-f", dir + "/one.csv", "--near", "45.2,13.8", "--radius", "10", "-o", dir + "/s.geojson"])
        XCTAssertEqual(sub.stderr, "geofence subset: 1 of 1 fence (within 10 m of 45.2,13.8)\n")
    }
}
