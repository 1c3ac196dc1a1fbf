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
        FileManager.default.createFile(atPath: other, contents: nil)
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
