import Foundation
import XCTest
import GeofenceTestSupport

/// Tile bundles are staged and swapped in whole (docs/subsets.md#files): a rebuild killed at
/// any moment leaves the old bundle or the new one, never a mix, and `--verify` tells.
final class TileBundleSafetyTests: XCTestCase {
    func build(_ fences: [String], _ dir: String) -> [String] {
        ["subset"] + fences.flatMap { ["--fences", CLI.data($0)] } + ["--tiles", "7", "--bbox=-84,30,-70,42", "--out", dir, "-q", "--threads", "1"]
    }

    func manifestSources(_ dir: String) throws -> String {
        let text = try String(contentsOfFile: dir + "/manifest.json", encoding: .utf8)
        return text.contains("\"file\":\"ports.csv\"") ? "new" : "old"
    }

    func testKilledRebuildsAlwaysLeaveAWholeBundle() throws {
        let root = CLI.tempPath("bundles")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/tiles"
        let old = ["airports.csv"], new = ["airports.csv", "ports.csv"]
        XCTAssertEqual(try CLI.run(build(old, dir)).status, 0)
        // How long an undisturbed rebuild takes here, to spread the kills over it.
        let t0 = Date()
        XCTAssertEqual(try CLI.run(build(new, dir)).status, 0)
        let duration = Date().timeIntervalSince(t0)
        XCTAssertEqual(try manifestSources(dir), "new")
        var rng = SeededGenerator(seed: 12)
        var seen: Set<String> = []
        // 20 kills spread over a rebuild's duration; on a loaded machine a rebuild can take
        // longer than the first one did, so while both outcomes have not been seen, up to 20
        // more trials wait longer (the safety checks apply to every trial).
        var trial = 0
        while trial < 20 || (seen.count < 2 && trial < 40) {
            defer { trial += 1 }
            let stretch = trial < 20 ? 1.0 : Double(trial - 18)
            let p = Process()
            p.executableURL = CLI.productsDirectory.appendingPathComponent("geofence")
            p.arguments = build(trial % 2 == 0 ? old : new, dir)
            p.standardError = FileHandle.nullDevice
            try p.run()
            usleep(UInt32(rng.uniform(0.2, 1.4) * duration * stretch * 1e6))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let verify = try CLI.run(["subset", "--verify", dir])
            XCTAssertEqual(verify.status, 0, "trial \(trial): \(verify.stderr)")
            seen.insert(try manifestSources(dir))
        }
        XCTAssertEqual(seen, ["old", "new"], "kills early and late leave the old and the new bundle")
        // The next build removes the staging directories the killed ones left.
        XCTAssertEqual(try CLI.run(build(new, dir)).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root), ["tiles"])
    }

    func testVerifyFindsDamageAndARebuildRepairsIt() throws {
        let dir = CLI.tempPath("verify")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(try CLI.run(build(["airports.csv"], dir)).status, 0)
        let tiles = try FileManager.default.subpathsOfDirectory(atPath: dir).filter { $0.hasSuffix(".geojson") }.sorted()
        XCTAssertGreaterThan(tiles.count, 2)
        try "{}".write(toFile: dir + "/" + tiles[0], atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: dir + "/" + tiles[1])
        try "{}".write(toFile: dir + "/7/extra.geojson", atomically: false, encoding: .utf8)
        let damaged = try CLI.run(["subset", "--verify", dir])
        XCTAssertEqual(damaged.status, 65)
        XCTAssertTrue(damaged.stderr.contains("3 tiles do not match the manifest"), damaged.stderr)
        XCTAssertTrue(damaged.stderr.contains(": content differs from the manifest's sha256"), damaged.stderr)
        XCTAssertTrue(damaged.stderr.contains(": missing"), damaged.stderr)
        // An in-place rebuild checks the files it keeps byte for byte and repairs the rest.
        let rebuilt = try CLI.run(build(["airports.csv"], dir))
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertEqual(try CLI.run(["subset", "--verify", dir]).status, 0)
    }

    func testHugeRangesNeedForceAndForeignDirectoriesAreRefused() throws {
        let huge = try CLI.run(["subset", "--fences", CLI.data("ports.csv"), "--tiles", "12", "--out", CLI.tempPath("huge")])
        XCTAssertEqual(huge.status, 64)
        XCTAssertEqual(huge.stderr, "geofence subset: error: zoom 12 over the world is 16777216 tiles, more than 4194304; narrow it with --bbox or a lower zoom, or pass --force\n")
        let foreign = CLI.tempPath("foreign")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: foreign) }
        try "keep me".write(toFile: foreign + "/notes.txt", atomically: true, encoding: .utf8)
        let r = try CLI.run(build(["ports.csv"], foreign))
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("is not empty and holds no manifest.json"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: foreign + "/notes.txt", encoding: .utf8), "keep me")
    }
}
