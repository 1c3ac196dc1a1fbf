import Foundation
import XCTest
import GeofenceTestSupport

/// GEOS and PROJ are opened on first use (docs/architecture.md#gdal-geos-and-proj-opened-on-first-use):
/// the dynamic loader's own list of the files a run opens (LD_DEBUG=files) shows which runs load
/// them, and a stand-in library without their functions shows the failure is an error, not a crash.
final class LazyLibrariesTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = CLI.tempPath("lazy")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if !dir.isEmpty { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// Runs `geofence` with `environment` added; returns its status and standard error.
    func run(_ args: [String], environment: [String: String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = CLI.productsDirectory.appendingPathComponent("geofence")
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// The shared objects a successful `geofence` run loads (LD_DEBUG=files).
    func loadedLibraries(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let r = try run(args, environment: ["LD_DEBUG": "files"])
        XCTAssertEqual(r.status, 0, r.stderr.suffix(2000).description, file: file, line: line)
        let files = r.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " && $0 != "[" })
        }
        XCTAssertTrue(files.contains { $0.contains("libswiftCore") }, "LD_DEBUG lists the libraries", file: file, line: line)
        return files
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = dir + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Lambert-93 x/y of a point in Paris, read with `--crs EPSG:2154`.
    func projectedCSV() throws -> String { try write("xy.csv", "id,x,y,radius\nA,652469,6862035,100\n") }

    func testGEOSAndPROJAreLoadedOnlyByTheRunsThatNeedThem() throws {
        let log = CLI.data("virginia_beach_ais.csv")
        let compiled = dir + "/ports.gfc"
        XCTAssertEqual(try CLI.run(["compile", "-f", CLI.data("ports.csv"), "-o", compiled]).status, 0)
        let geos = { (files: [String]) in files.contains { $0.contains("libgeos_c") } }
        let proj = { (files: [String]) in files.contains { $0.contains("libproj") } }
        for fences in [compiled, CLI.data("ports.csv")] {
            let files = try loadedLibraries(["evaluate", "--fences", fences, "--log", log, "-q", "-o", "/dev/null"])
            XCTAssertFalse(geos(files), "\(fences): \(files)")
            XCTAssertFalse(proj(files), "\(fences): \(files)")
        }
        // (two of the countries are invalid polygons: left out, as the run would stop on them)
        let polygons = try loadedLibraries(["evaluate", "--fences", CLI.data("countries.geojson"), "--skip-invalid", "--log", log, "-q", "-o", "/dev/null"])
        XCTAssertTrue(geos(polygons), "\(polygons)")
        XCTAssertFalse(proj(polygons), "\(polygons)")
        let projected = try loadedLibraries(["evaluate", "--fences", try projectedCSV(), "--crs", "EPSG:2154", "--log", log, "-q", "-o", "/dev/null"])
        XCTAssertTrue(proj(projected), "\(projected)")
    }

    /// A library found under the right name but without GEOS's or PROJ's functions (zlib copied
    /// to `libgeos_c.so`/`libproj.so` first on the search path): the runs that need it stop with
    /// exit 70 and a message naming the missing function; the others are unaffected.
    func testAnUnusableLibraryIsAnErrorNamingIt() throws {
        let link = try XCTUnwrap(["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib64/libz.so.1"]
            .first { FileManager.default.fileExists(atPath: $0) }, "no libz.so.1 to stand in")
        // copied as a file, not as the (relative) symlink libz.so.1 usually is
        let zlib = URL(fileURLWithPath: link).resolvingSymlinksInPath().path
        let libs = dir + "/lib"
        try FileManager.default.createDirectory(atPath: libs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: zlib, toPath: libs + "/libgeos_c.so")
        try FileManager.default.copyItem(atPath: zlib, toPath: libs + "/libproj.so")
        let env = ["LD_LIBRARY_PATH": libs]
        let polygons = try run(["validate", "-f", CLI.data("countries.geojson")], environment: env)
        XCTAssertEqual(polygons.status, 70, polygons.stderr)
        XCTAssertTrue(polygons.stderr.contains("the GEOS library has no function GEOS"), polygons.stderr)
        let projected = try run(["nearest", "-f", try projectedCSV(), "--crs", "EPSG:2154", "--at", "48.8566,2.3522"], environment: env)
        XCTAssertEqual(projected.status, 70, projected.stderr)
        XCTAssertTrue(projected.stderr.contains("the PROJ library has no function proj_"), projected.stderr)
        let circles = try run(["nearest", "-f", CLI.data("ports.csv"), "--at", "36.85,-76.30"], environment: env)
        XCTAssertEqual(circles.status, 0, circles.stderr)
    }
}
