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

/// A fixture under Fixtures/logs/.
func logFixture(_ name: String) -> String {
    Bundle.module.resourcePath! + "/Fixtures/logs/" + name
}

/// The package root (for the committed real data under data/).
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }       // Logs, GeofenceKitTests, Tests
    return url.path
}()

/// A fresh temporary directory for one test, removed at teardown by the caller.
func makeTemporaryDirectory() -> String {
    let dir = NSTemporaryDirectory() + "geofence-logs-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Writes `text` to `dir/name` and returns the path.
@discardableResult
func writeFile(_ dir: String, _ name: String, _ text: String) -> String {
    let path = dir + "/" + name
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

/// A CSV log of `rows` rows of 8 devices (about 40 bytes each) in `dir`; returns its path.
func writeLargeLog(_ dir: String, rows: Int) -> String {
    var text = "device,time,lat,lon,accuracy\n"
    text.reserveCapacity(rows * 44)
    for i in 0..<rows {
        text += "dev\(i % 8),\(1_700_000_000 + i / 8),\(Double(i % 1000) / 20 - 25),\(Double(i % 3000) / 20 - 75),\(i % 50)\n"
    }
    return writeFile(dir, "large-\(rows).csv", text)
}

/// Runs /bin/gzip (or another tool) and waits; returns the exit status.
@discardableResult
func runTool(_ tool: String, _ args: [String], stdin: String? = nil, stdout: String? = nil) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
    if let stdout {
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: stdout)
    }
    try! p.run()
    p.waitUntilExit()
    return p.terminationStatus
}

/// `options` reading a plain file through the read buffer instead of mapping it: for the tests
/// of the buffer's refills (a chunk size smaller than the file) and of the longest line, which
/// bounds the buffer (a mapped file has none, docs/logs.md#files-are-mapped).
func buffered(_ options: LogReaderOptions) -> LogReaderOptions {
    var o = options
    o.mapThreshold = Int.max
    return o
}

/// All fixes of a log with its reader (for skip counts and device names).
func readLog(_ path: String, _ options: LogReaderOptions = LogReaderOptions()) throws(GeofenceError) -> (fixes: [Fix], reader: LogReader) {
    let reader = try LogReader(path: path, options: options)
    let fixes = try reader.readAll()
    return (fixes, reader)
}

/// The message a strict read of `path` throws (nil when it reads fine).
func strictError(_ path: String, _ options: LogReaderOptions = LogReaderOptions()) -> GeofenceError? {
    do {
        _ = try readLog(path, options)
        return nil
    } catch {
        return error
    }
}
