import Foundation
import XCTest
import GeofenceTestSupport

/// `geofence compile` and every `--fences` option on its output: the same bytes out as
/// with the source files, on the bundled real sets (circles, polygons, antimeridian cases).
final class CompileCommandTests: XCTestCase {
    let mixed = ["--fences", CLI.data("ports.csv"), "--fences", CLI.data("airports.csv"), "--fences", CLI.data("us_counties_va_nc.geojson")]
    let countries = ["--fences", CLI.data("countries.geojson"), "--skip-invalid"]

    func compile(_ sources: [String], _ name: String) throws -> String {
        // A name without the extension: compiled files are recognised by their magic bytes.
        let out = CLI.tempPath(name)
        let r = try CLI.run(["compile"] + sources + ["-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("\(out): "), r.stdout)
        return out
    }

    /// Runs a command with the source fences and with the compiled file; stdout, exit status
    /// and the `-o` file (when `output` names the option's value) must be identical.
    func same(_ args: [String], sources: [String], compiled: String, output: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        var outs: [String] = []
        for (k, fences) in [sources, ["--fences", compiled]].enumerated() {
            var a = args + fences
            let out = output.map { CLI.tempPath("\(k)-" + $0) }
            if let out { a += ["-o", out] }
            let r = try CLI.run(a)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
            outs.append(r.stdout + (out.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "missing" } ?? ""))
            if let out { try? FileManager.default.removeItem(atPath: out) }
        }
        XCTAssertEqual(outs[0], outs[1], "\(args)", file: file, line: line)
        XCTAssertFalse(outs[0].isEmpty, file: file, line: line)
    }

    func testEveryCommandAnswersTheSameFromTheCompiledFile() throws {
        let mix = try compile(mixed, "mixed.fences"), world = try compile(countries, "countries.bin")
        defer { for p in [mix, world] { try? FileManager.default.removeItem(atPath: p) } }
        for at in ["36.85,-76.30", "45.764,4.8357", "-17.0,179.9", "65.5,-179.99", "-16.5,-179.9", "71,-179.5"] {
            try same(["contains", "--at", at, "--accuracy", "5000"], sources: mixed, compiled: mix)
            try same(["nearest", "--at", at, "-k", "9"], sources: mixed, compiled: mix)
            try same(["contains", "--at", at, "--accuracy", "20000"], sources: countries, compiled: world)
            try same(["nearest", "--at", at, "-k", "6"], sources: countries, compiled: world)
        }
        let log = ["--log", CLI.data("virginia_beach_ais.csv")]
        try same(["evaluate", "--exit-margin", "20", "--dwell", "900", "--quiet"] + log, sources: mixed, compiled: mix, output: "events.ndjson")
        try same(["evaluate", "--format", "csv", "--quiet"] + log, sources: countries, compiled: world, output: "events.csv")
        try same(["simulate"] + log, sources: mixed, compiled: mix, output: "report.json")
        try same(["subset", "--bbox", "-80,35,-75,38"], sources: mixed, compiled: mix, output: "subset.geojson")
        try same(["subset", "--near", "36.85,-76.30", "--radius", "30000"], sources: mixed, compiled: mix, output: "near.geojson")
        try same(["subset", "--bbox", "170,-25,-170,-10"], sources: countries, compiled: world, output: "fiji.geojson")
        try same(["validate"], sources: mixed, compiled: mix)
        // Circle files alone take the streamed load into the compact table.
        let circles = ["--fences", CLI.data("ports.csv"), "--fences", CLI.data("airports.csv")]
        let ring = try compile(circles, "circles.fences")
        defer { try? FileManager.default.removeItem(atPath: ring) }
        try same(["evaluate", "--dwell", "600", "--quiet"] + log, sources: circles, compiled: ring, output: "circles.ndjson")
        try same(["simulate"] + log, sources: circles, compiled: ring, output: "circles-report.json")
        try same(["subset", "--near", "36.85,-76.30", "--radius", "30000"], sources: circles, compiled: ring, output: "circles.geojson")
        for at in ["36.85,-76.30", "-17.0,179.9", "65.5,-179.99"] {
            try same(["contains", "--at", at, "--accuracy", "5000"], sources: circles, compiled: ring)
            try same(["nearest", "--at", at, "-k", "9"], sources: circles, compiled: ring)
        }
    }

    /// A compiled file is WGS84 already: every command that takes `--crs` refuses it with a
    /// compiled file (alone or next to a source file) as a usage error, and writes nothing.
    func testCRSWithACompiledFileIsRefusedByEveryCommand() throws {
        let gfc = try compile(["--fences", CLI.data("ports.csv")], "ports-crs.gfc")
        defer { try? FileManager.default.removeItem(atPath: gfc) }
        let log = ["--log", CLI.data("virginia_beach_ais.csv")]
        let commands: [[String]] = [
            ["validate"], ["contains", "--at", "36.85,-76.30"], ["nearest", "--at", "36.85,-76.30"],
            ["evaluate", "--quiet"] + log, ["simulate"] + log, ["subset", "--bbox", "-80,35,-75,38"],
            ["subset", "--tiles", "3", "--out", CLI.tempPath("crs-tiles")], ["compile"],
        ]
        for cmd in commands {
            for fences in [["--fences", gfc], ["--fences", CLI.data("airports.csv"), "--fences", gfc]] {
                let out = CLI.tempPath("crs-out")
                var args = cmd + fences + ["--crs", "EPSG:4326"]
                if cmd[0] != "validate" && cmd[0] != "contains" && cmd[0] != "nearest" && !cmd.contains("--tiles") { args += ["-o", out] }
                let r = try CLI.run(args)
                XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("\(gfc) is a compiled fence file, already in WGS84; drop --crs"), "\(args): \(r.stderr)")
                XCTAssertEqual(r.stdout, "", "\(args)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(args)")
            }
        }
    }

    func testDamagedCompiledFileExits65() throws {
        let out = try compile(["--fences", CLI.data("ports.csv")], "ports.gfc")
        defer { try? FileManager.default.removeItem(atPath: out) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let truncated = CLI.tempPath("truncated.gfc"), flipped = CLI.tempPath("flipped.gfc")
        defer { for p in [truncated, flipped] { try? FileManager.default.removeItem(atPath: p) } }
        try Data(bytes[0..<(bytes.count / 2)]).write(to: URL(fileURLWithPath: truncated))
        // A byte of the circle records (section 5), which every command reads.
        func sectionOffset(_ id: UInt8) -> Int {
            let count = Int(bytes[16]) | Int(bytes[17]) << 8
            for k in 0..<count where bytes[64 + 32 * k] == id { return (0..<8).reduce(0) { $0 | Int(bytes[64 + 32 * k + 8 + $1]) << (8 * $1) } }
            return -1
        }
        var records = bytes
        records[sectionOffset(5) + 100] ^= 0x10
        try Data(records).write(to: URL(fileURLWithPath: flipped))
        for (path, what) in [(truncated, "truncated"), (flipped, "checksum mismatch in section circles")] {
            for cmd in [["nearest", "--at", "36.85,-76.30"], ["subset", "--bbox", "-80,35,-75,38"]] {
                let r = try CLI.run(cmd + ["--fences", path])
                XCTAssertEqual(r.status, 65, r.stderr)
                XCTAssertTrue(r.stderr.contains("\(path): damaged compiled fence file") && r.stderr.contains(what), r.stderr)
                XCTAssertEqual(r.stdout, "")
            }
        }
        // A byte of the properties (a side section, the last one): refused by the commands that
        // read the fences back (subset); one that answers from the index alone answers as from
        // the intact file.
        bytes[bytes.count - 100] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: flipped))
        let subset = try CLI.run(["subset", "--bbox", "-80,35,-75,38", "--fences", flipped])
        XCTAssertEqual(subset.status, 65, subset.stderr)
        XCTAssertTrue(subset.stderr.contains("\(flipped): damaged compiled fence file") && subset.stderr.contains("checksum mismatch in section propertyBytes"), subset.stderr)
        XCTAssertEqual(subset.stdout, "")
        let nearest = try CLI.run(["nearest", "--at", "36.85,-76.30", "--fences", flipped])
        XCTAssertEqual(nearest.status, 0, nearest.stderr)
        XCTAssertEqual(nearest.stdout, try CLI.run(["nearest", "--at", "36.85,-76.30", "--fences", out]).stdout)
    }
}
