import Foundation
import XCTest
import GeofenceTestSupport

/// `geofence evaluate --state-in/--state-out/--state-fences/--memory-budget` (docs/state.md,
/// docs/evaluation.md#memory), end to end on the bundled trace.
final class EvaluateStateCommandTests: XCTestCase {
    let fences = ["--fences", CLI.data("ports.csv"), "--fences", CLI.data("us_counties_va_nc.geojson")]
    let options = ["--exit-margin", "20", "--dwell", "900", "--quiet"]

    /// The bundled log cut in two files at `line` (the header repeated).
    func split(at line: Int) throws -> (String, String) {
        let rows = try String(contentsOfFile: CLI.data("virginia_beach_ais.csv"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let a = CLI.tempPath("day1.csv"), b = CLI.tempPath("day2.csv")
        try (rows[0..<line].joined(separator: "\n") + "\n").write(toFile: a, atomically: true, encoding: .utf8)
        try ([rows[0]] + rows[line...]).joined(separator: "\n").write(toFile: b, atomically: true, encoding: .utf8)
        return (a, b)
    }

    func evaluate(_ log: String, _ extra: [String]) throws -> CLIResult {
        try CLI.run(["evaluate"] + fences + options + ["--log", log] + extra)
    }

    func device(_ line: Substring) -> String {
        let start = line.range(of: "\"device\":\"")!.upperBound
        return String(line[start...].prefix { $0 != "\"" })
    }

    func testTwoDaysWithOneStateFileGiveTheWholeRunsEvents() throws {
        let whole = try evaluate(CLI.data("virginia_beach_ais.csv"), [])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        let (a, b) = try split(at: 3001)
        let state = CLI.tempPath("state.gfstate")
        defer { for p in [a, b, state] { try? FileManager.default.removeItem(atPath: p) } }
        let day1 = try evaluate(a, ["--state-out", state, "--threads", "1"])
        XCTAssertEqual(day1.status, 0, day1.stderr)
        let day2 = try evaluate(b, ["--state-in", state, "--state-out", state, "--threads", "2"])
        XCTAssertEqual(day2.status, 0, day2.stderr)
        // The outputs together, grouped by device (order of first appearance), are the whole run.
        let lines = (day1.stdout + day2.stdout).split(separator: "\n")
        var rank: [String: Int] = [:]
        for l in whole.stdout.split(separator: "\n") { rank[device(l)] = rank[device(l)] ?? rank.count }
        let grouped = lines.enumerated().sorted { (rank[device($0.element)]!, $0.offset) < (rank[device($1.element)]!, $1.offset) }.map(\.element)
        XCTAssertEqual(grouped.joined(separator: "\n") + "\n", whole.stdout)
        XCTAssertGreaterThan(day2.stdout.split(separator: "\n").count, 100)
    }

    func testStateRefusedForOtherFencesSettingsOrDamage() throws {
        let (a, b) = try split(at: 2000)
        let state = CLI.tempPath("state.gfstate")
        defer { for p in [a, b, state] { try? FileManager.default.removeItem(atPath: p) } }
        XCTAssertEqual(try evaluate(a, ["--state-out", state]).status, 0)

        let other = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv")] + options + ["--log", b, "--state-in", state])
        XCTAssertEqual(other.status, 65)
        XCTAssertTrue(other.stderr.hasPrefix("geofence evaluate: error: \(state): the state was written for another fence set: "), other.stderr)
        XCTAssertTrue(other.stderr.contains("removed"), other.stderr)
        XCTAssertTrue(other.stderr.contains("pass --state-fences changed"), other.stderr)

        let changed = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv")] + ["--exit-margin", "20", "--dwell", "900"]
                                  + ["--log", b, "--state-in", state, "--state-fences", "changed"])
        XCTAssertEqual(changed.status, 0, changed.stderr)
        XCTAssertTrue(changed.stderr.contains("; state fences: 234 removed, 0 added, 0 changed"), changed.stderr)

        let margin = try CLI.run(["evaluate"] + fences + ["--log", b, "--state-in", state, "--dwell", "900"])
        XCTAssertEqual(margin.status, 65)
        XCTAssertTrue(margin.stderr.contains("the state was written with --exit-margin 20.0"), margin.stderr)

        var bytes = try Data(contentsOf: URL(fileURLWithPath: state))
        bytes[bytes.count / 2] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: state))
        let damaged = try evaluate(b, ["--state-in", state])
        XCTAssertEqual(damaged.status, 65)
        XCTAssertEqual(damaged.stderr, "geofence evaluate: error: \(state): state file checksum mismatch (the file is corrupt or truncated)\n")

        let missing = try evaluate(b, ["--state-in", state + ".none"])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        let usage = try evaluate(b, ["--state-fences", "changed"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
    }

    func testTimeOrderIsCheckedAcrossTheState() throws {
        let day1 = CLI.tempPath("d1.csv"), day2 = CLI.tempPath("d2.csv"), state = CLI.tempPath("s.gfstate")
        defer { for p in [day1, day2, state] { try? FileManager.default.removeItem(atPath: p) } }
        try "device,time,lat,lon\nv,2020-06-04T10:00:00Z,36.9,-76.3\n".write(toFile: day1, atomically: true, encoding: .utf8)
        try "device,time,lat,lon\nv,2020-06-04T09:00:00Z,36.9,-76.3\n".write(toFile: day2, atomically: true, encoding: .utf8)
        XCTAssertEqual(try evaluate(day1, ["--state-out", state]).status, 0)
        let r = try evaluate(day2, ["--state-in", state])
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "geofence evaluate: error: \(day2):2: time goes backwards for device \"v\": 2020-06-04T09:00:00Z after 2020-06-04T10:00:00Z (its last fix in the saved state)\n")
    }

    func testSmallMemoryBudgetGivesTheSameBytesAndLeavesNoTemporaryFiles() throws {
        let dir = CLI.tempPath("spill")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = dir + "/plain.ndjson", spilled = dir + "/spilled.ndjson", summary = dir + "/summary.json"
        XCTAssertEqual(try evaluate(CLI.data("virginia_beach_ais.csv"), ["-o", plain]).status, 0)
        // 4 KiB holds about a hundred events: most of them go through sorted runs on disk.
        let r = try evaluate(CLI.data("virginia_beach_ais.csv"), ["-o", spilled, "--memory-budget", "4K", "--summary", summary, "--threads", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: spilled)), try Data(contentsOf: URL(fileURLWithPath: plain)))
        let json = try String(contentsOfFile: summary, encoding: .utf8)
        XCTAssertFalse(json.contains("\"spilled_events\":0"), json)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["plain.ndjson", "spilled.ndjson", "summary.json"])
        let bad = try evaluate(CLI.data("virginia_beach_ais.csv"), ["--memory-budget", "lots"])
        XCTAssertEqual(bad.status, 64)
    }
}

extension EvaluateStateCommandTests {
    /// SIGTERM while spill runs and the output are being written: nothing is left behind.
    func testSignalRemovesTemporaryFiles() throws {
        let dir = CLI.tempPath("signal")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = dir + "/log.csv"
        let gen = Process()
        gen.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gen.arguments = ["python3", CLI.packageRoot.appendingPathComponent("scripts/gen-log").path, "--fixes", "1500000",
                         "--devices", "3000", "--bbox=-76.5,36.5,-76.33,36.64"]
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        gen.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try gen.run()
        gen.waitUntilExit()
        var grid = "id,lat,lon,radius\n"
        for i in 0..<60 { for j in 0..<60 { grid += "g\(i)-\(j),\(36.5 + Double(i) * 0.0018),\(-76.5 + Double(j) * 0.0022),90\n" } }
        try grid.write(toFile: dir + "/grid.csv", atomically: true, encoding: .utf8)

        let p = Process()
        p.executableURL = CLI.productsDirectory.appendingPathComponent("geofence")
        p.arguments = ["evaluate", "--fences", dir + "/grid.csv", "--log", log, "-o", dir + "/events.ndjson", "--memory-budget", "64K", "--quiet"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Stop it once it has spilled at least one run.
        let deadline = Date().addingTimeInterval(60)
        while p.isRunning && Date() < deadline {
            if try FileManager.default.contentsOfDirectory(atPath: dir).contains(where: { $0.contains(".spill-") }) { break }
            usleep(20_000)
        }
        XCTAssertTrue(p.isRunning, "the run must still be going when the signal comes")
        p.terminate()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 128 + SIGTERM)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["grid.csv", "log.csv"])
    }
}
