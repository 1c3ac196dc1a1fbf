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

/// Large logs stream: the reader's buffers stay at a few chunks whatever the log's size (docs/errors.md).
final class StreamingTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    /// Writes a ~`megabytes` MB CSV log of `devices` interleaved devices; returns (path, rows).
    func generate(megabytes: Int, devices: Int) -> (String, Int) {
        let path = tmp + "/big.csv"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = FileHandle(forWritingAtPath: path)!
        var chunk = Array("device,time,lat,lon,accuracy,note\n".utf8)
        var written = 0, rows = 0
        let note = String(repeating: "x", count: 20)
        while written < megabytes << 20 {
            let t = 1_600_000_000 + rows / devices
            let d = rows % devices
            let lat = Double(d % 180) - 89.5 + Double(rows % 1000) / 10_000
            chunk += Array("ship\(d),\(t),\(lat),\(Double(d % 360) - 179.5),\(rows % 50),\(note)\n".utf8)
            rows += 1
            if chunk.count > 1 << 20 {
                handle.write(Data(chunk))
                written += chunk.count
                chunk.removeAll(keepingCapacity: true)
            }
        }
        handle.write(Data(chunk))
        handle.closeFile()
        return (path, rows)
    }

    func stream(_ path: String, rows: Int, devices: Int, gzip: Bool, mapThreshold: Int = LogReaderOptions().mapThreshold) throws {
        var options = LogReaderOptions()
        options.mapThreshold = mapThreshold
        let reader = try LogReader(path: path, options: options)
        XCTAssertEqual(reader.isCompressed, gzip)
        XCTAssertEqual(reader.isMapped, !gzip && mapThreshold < Int.max)
        var batch: [Fix] = []
        batch.reserveCapacity(4096)
        var count = 0, maxBuffer = 0, maxBatch = 0
        var previous = -Double.infinity
        while try reader.next(into: &batch, max: 4096) {
            count += batch.count
            maxBuffer = max(maxBuffer, reader.bufferCapacity)
            maxBatch = max(maxBatch, batch.capacity)
            previous = max(previous, batch.last!.time)
        }
        XCTAssertEqual(count, rows)
        XCTAssertEqual(reader.fixesRead, rows)
        XCTAssertEqual(reader.devices.count, devices)
        XCTAssertEqual(reader.bytesRead, reader.totalBytes)
        if reader.isMapped {
            // The pages passed leave every 16 MiB; a batch more is held at most.
            XCTAssertLessThanOrEqual(maxBuffer, MappedFile.releaseStep + (1 << 20))
        } else {
            // Two 1 MiB chunks for the decoded window (plus one compressed chunk for gzip).
            XCTAssertLessThanOrEqual(maxBuffer, (gzip ? 3 : 2) << 20)
        }
        XCTAssertLessThanOrEqual(maxBatch, 8192)
        XCTAssertEqual(previous, Double(1_600_000_000 + (rows - 1) / devices))
    }

    func testFiftyMegabytesStreamInBoundedBuffers() throws {
        let (path, rows) = generate(megabytes: 50, devices: 1000)
        XCTAssertGreaterThan(rows, 500_000)
        // Mapped (the default for a file this large), then read.
        XCTAssertTrue(try LogReader(path: path).isMapped)
        try stream(path, rows: rows, devices: 1000, gzip: false)
        try stream(path, rows: rows, devices: 1000, gzip: false, mapThreshold: Int.max)
        XCTAssertEqual(runTool("/bin/gzip", ["-1", path]), 0)
        try stream(path + ".gz", rows: rows, devices: 1000, gzip: true)
    }
}
