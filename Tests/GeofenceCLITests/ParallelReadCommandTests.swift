import Foundation
import XCTest
import GeofenceTestSupport

/// `geofence evaluate` writes the same bytes and the same summary whether the logs are parsed
/// by 1, 2 or 8 threads, from a file, gzip or stdin, strict or lenient.
final class ParallelReadCommandTests: XCTestCase {
    let fences = ["--fences", CLI.data("ports.csv"), "--fences", CLI.data("airports.csv"), "--fences", CLI.data("us_counties_va_nc.geojson")]

    /// The summary without its timings and threads.
    func summaryFacts(_ path: String) throws -> NSDictionary {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        return object.filter { !["fence_seconds", "seconds", "fixes_per_second", "threads", "reading", "reading_reason", "gzip_members"].contains($0.key) } as NSDictionary
    }

    func evaluate(_ log: String, threads: Int, extra: [String] = [], stdin: String? = nil) throws -> (status: Int32, output: String, summary: NSDictionary, reading: String, stderr: String) {
        let out = CLI.tempPath("events-\(threads).ndjson"), summary = CLI.tempPath("summary-\(threads).json")
        defer { try? FileManager.default.removeItem(atPath: out); try? FileManager.default.removeItem(atPath: summary) }
        let r = try CLI.run(["evaluate"] + fences + ["--log", log, "--threads", String(threads), "-o", out, "--summary", summary, "--quiet",
                                                     "--dwell", "600"] + extra, stdin: stdin)
        guard r.status == 0 else { return (r.status, "", NSDictionary(), "", r.stderr) }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        return (r.status, try String(contentsOfFile: out, encoding: .utf8), try summaryFacts(summary), object["reading"] as! String, r.stderr)
    }

    func testBundledAISSameBytesAtAnyThreadCount() throws {
        let one = try evaluate(CLI.data("virginia_beach_ais.csv"), threads: 1)
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.reading, "serial")
        XCTAssertEqual(one.summary["fixes"] as? Int, 6132)
        for threads in [2, 8] {
            let many = try evaluate(CLI.data("virginia_beach_ais.csv"), threads: threads)
            XCTAssertEqual(many.reading, "parallel")
            XCTAssertEqual(many.output, one.output, "\(threads) threads")
            XCTAssertEqual(many.summary, one.summary, "\(threads) threads")
        }
    }

    /// A log of several batches: reading and evaluating share the cores batch by batch, split or
    /// pipelined as each has cost (docs/evaluation.md#sharing-the-cores), the first batches
    /// trying both; the bytes are one thread's whatever was chosen.
    func testSeveralBatchesSameBytesWhateverTheSharing() throws {
        var s = "device,time,lat,lon,accuracy\n"
        var state: UInt64 = 99
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        var t = 1_591_000_000
        for i in 0..<160_000 {
            if i % 50 == 0 { t += 1 }
            let lat = 36.5 + Double(next() % 100_000) / 100_000, lon = -76.8 + Double(next() % 100_000) / 100_000
            s += "d\(i % 500),\(t),\(lat),\(lon),\(next() % 40)\n"
        }
        let log = CLI.tempPath("batches.csv")
        try s.write(toFile: log, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: log) }
        let one = try evaluate(log, threads: 1)
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.summary["fixes"] as? Int, 160_000)
        XCTAssertGreaterThan(one.output.count, 10_000)
        for threads in [2, 3] {
            let many = try evaluate(log, threads: threads)
            XCTAssertEqual(many.reading, "parallel")
            XCTAssertEqual(many.output, one.output, "\(threads) threads")
            XCTAssertEqual(many.summary, one.summary, "\(threads) threads")
        }
    }

    /// The bundled log as 5 gzip members (`cat a.gz b.gz ...`): the plain file's bytes at any
    /// thread count, the members inflated in parallel (the summary says so); a corrupt or
    /// truncated member is exit 65 naming the file.
    func testMultiMemberGzipSameBytes() throws {
        let plain = try evaluate(CLI.data("virginia_beach_ais.csv"), threads: 1)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let text = try Data(contentsOf: URL(fileURLWithPath: CLI.data("virginia_beach_ais.csv")))
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
        var members = Data()
        for k in 0..<5 {
            let piece = CLI.tempPath("piece-\(k).csv")
            let part = lines[(lines.count * k / 5)..<(lines.count * (k + 1) / 5)]
            var bytes = Data(part.joined(separator: [0x0A]))
            if k < 4 { bytes.append(0x0A) }
            try bytes.write(to: URL(fileURLWithPath: piece))
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/gzip")
            p.arguments = ["-f", piece]
            try p.run()
            p.waitUntilExit()
            members += try Data(contentsOf: URL(fileURLWithPath: piece + ".gz"))
            try? FileManager.default.removeItem(atPath: piece + ".gz")
        }
        let log = CLI.tempPath("members.csv.gz")
        try members.write(to: URL(fileURLWithPath: log))
        defer { try? FileManager.default.removeItem(atPath: log) }
        for threads in [1, 2, 8] {
            let r = try evaluate(log, threads: threads)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.output, plain.output, "\(threads) threads")
            XCTAssertEqual(r.summary, plain.summary, "\(threads) threads")
            let summary = CLI.tempPath("members-summary.json")
            defer { try? FileManager.default.removeItem(atPath: summary) }
            _ = try CLI.run(["evaluate"] + fences + ["--log", log, "--threads", String(threads), "-o", "/dev/null", "--summary", summary, "--quiet"])
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
            let counts = object["gzip_members"] as? [String: Int]
            XCTAssertEqual(counts, threads == 1 ? nil : ["members": 5, "inflated_in_parallel": 5], "\(threads) threads")
        }
        var corrupt = members
        let third = corrupt.count / 2
        for i in third..<(third + 300) { corrupt[i] = UInt8(truncatingIfNeeded: i &* 37) }
        for (name, bytes) in [("corrupt", corrupt), ("truncated", members.prefix(members.count - 50))] {
            let bad = CLI.tempPath("\(name).csv.gz")
            try bytes.write(to: URL(fileURLWithPath: bad))
            defer { try? FileManager.default.removeItem(atPath: bad) }
            for threads in [1, 2] {
                let r = try evaluate(bad, threads: threads)
                XCTAssertEqual(r.status, 65, "\(name), \(threads) threads")
                XCTAssertTrue(r.stderr.contains("\(bad):") && r.stderr.contains("bad gzip stream"), r.stderr)
            }
        }
    }

    /// A generated log of about 600 KB (several chunks per thread) with bad rows, quoted device
    /// ids holding newlines, CRLF; lenient from a file, gzip and stdin, and strict.
    func testGeneratedLogSameBytesFileGzipStdin() throws {
        var s = "\u{FEFF}mmsi,timestamp,latitude,longitude\r\n"
        var t = [Double](repeating: 1_591_000_000, count: 40)
        var state: UInt64 = 7
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for i in 0..<12_000 {
            let d = Int(next() % 40)
            t[d] += Double(next() % 90)
            let lat = 36.5 + Double(next() % 10_000) / 10_000, lon = -76.8 + Double(next() % 10_000) / 10_000
            let device = d % 7 == 0 ? "\"ship\n\(d)\"" : "\(366_000_000 + d)"
            switch i % 997 {
            case 5: s += "\(device),\(Int(t[d])),north,\(lon)\r\n"
            case 11: s += "\(device),\(Int(t[d]) - 5000),\(lat),\(lon)\r\n"
            case 17: s += "\r\n"
            default: s += "\(device),\(Int(t[d])),\(lat),\(lon)\r\n"
            }
        }
        let log = CLI.tempPath("generated.csv")
        try s.write(toFile: log, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: log); try? FileManager.default.removeItem(atPath: log + ".gz") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/gzip")
        p.arguments = ["-k", "-f", log]
        try p.run()
        p.waitUntilExit()

        let one = try evaluate(log, threads: 1, extra: ["--skip-invalid"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertNotEqual(one.summary["skipped_total"] as? Int, 0)
        XCTAssertGreaterThan(one.output.count, 1000)
        for threads in [2, 8] {
            for (path, stdin) in [(log, nil), (log + ".gz", nil), ("-", s)] {
                let many = try evaluate(path, threads: threads, extra: ["--skip-invalid"] + (path == "-" ? ["--log-format", "csv"] : []), stdin: stdin)
                XCTAssertEqual(many.reading, "parallel", path)
                XCTAssertEqual(many.output, one.output, "\(path), \(threads) threads")
                XCTAssertEqual(many.summary, one.summary, "\(path), \(threads) threads")
            }
        }
        // Strict: the same first error, with its line.
        let strict1 = try evaluate(log, threads: 1)
        XCTAssertEqual(strict1.status, 65)
        XCTAssertTrue(strict1.stderr.contains("generated.csv:"), strict1.stderr)
        for threads in [2, 8] {
            let strict = try evaluate(log, threads: threads)
            XCTAssertEqual(strict.status, 65)
            XCTAssertEqual(strict.stderr, strict1.stderr)
        }
    }
}
