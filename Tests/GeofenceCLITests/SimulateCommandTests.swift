import Foundation
import XCTest
import GeofenceTestSupport

final class SimulateCommandTests: XCTestCase {
    let fences = ["--fences", CLI.data("ports.csv"), "--fences", CLI.data("airports.csv"), "--fences", CLI.data("us_counties_va_nc.geojson")]

    func testSideBySideTableAndReport() throws {
        let report = CLI.tempPath("sim.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let r = try CLI.run(["simulate"] + fences + ["--log", CLI.data("virginia_beach_ais.csv"), "-o", report])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("geofence simulate: 6132 fixes, 12 devices, 32228 fences; OS: 20 slots, min radius 100 m"), lines[0])
        XCTAssertEqual(lines[1].split(separator: " ").map(String.init), ["guaranteed", "centre", "trigger"])
        XCTAssertTrue(lines.contains { $0.hasPrefix("recall enter") })
        XCTAssertTrue(lines.contains { $0.hasPrefix("registrations/km") })
        let json = try String(contentsOfFile: report, encoding: .utf8)
        for key in ["\"strategies\":[{\"name\":\"guaranteed\",\"recall\":{\"enter\":", "\"precision\":{\"enter\":", "\"delay_s\":{\"p50\":",
                    "\"registrations_per_km\":", "\"replans_per_hour\":", "\"guarantee_broken_s\":", "\"devices\":[{\"device\":\"369493712\""] {
            XCTAssertTrue(json.contains(key), key)
        }
    }

    func testIdealOSCatchesEverything() throws {
        let r = try CLI.run(["simulate"] + fences + ["--log", CLI.data("virginia_beach_ais.csv"), "--strategy", "guaranteed",
                                                    "--delay", "0", "--exit-distance", "0", "--min-radius", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        for row in ["recall enter ", "recall exit "] {
            XCTAssertTrue(lines.contains { $0.hasPrefix(row) && $0.hasSuffix(" 1.000") }, r.stdout)
        }
    }

    func testSweepWritesTheParetoChart() throws {
        let chart = CLI.tempPath("pareto.svg"), report = CLI.tempPath("sweep.json")
        defer { for f in [chart, report] { try? FileManager.default.removeItem(atPath: f) } }
        let r = try CLI.run(["simulate", "--fences", CLI.data("cities_istria.csv"), "--log", CLI.data("gpx/around-visnjan-with-car.gpx"),
                             "--sweep", chart, "-o", report])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("\nsweep (recall = matched enter and exit / ground truth):\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("guaranteed  adaptive"), r.stdout)
        XCTAssertTrue(r.stdout.contains("trigger     radius 250 m"), r.stdout)
        XCTAssertTrue(r.stdout.contains("baseline configurations with higher recall and fewer registrations/km than one of ours: none"), r.stdout)
        XCTAssertTrue(try String(contentsOfFile: chart, encoding: .utf8).contains("registrations per km"))
        let json = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertTrue(json.contains("\"sweep\":{\"points\":[{\"strategy\":\"guaranteed\",\"parameter\":\"adaptive\""), json)
        XCTAssertTrue(json.contains("\"speed_classes\":[{\"class\":\"walking\""), json)
    }

    func testBadTuningOptionsAreUsageErrors() throws {
        let base = ["simulate", "--fences", CLI.data("cities_istria.csv"), "--log", CLI.data("gpx/around-visnjan-with-car.gpx")]
        for bad in [["--sweep", CLI.tempPath("chart.png")], ["--horizon", "far"], ["--horizon", "-5"], ["--speed-cap", "-1"],
                    ["--acceleration", "x"], ["--trigger-radius", "50"], ["--centre-radius", "100"]] {
            let r = try CLI.run(base + bad)
            XCTAssertEqual(r.status, 64, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("error"), r.stderr)
        }
    }

    func testRenderWritesSVG() throws {
        let out = CLI.tempPath("trace.svg")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try CLI.run(["render"] + fences + ["--log", CLI.data("virginia_beach_ais.csv"), "--strategy", "centre", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        XCTAssertTrue(svg.contains("refresh region, plan 2"), "re-plans drawn")
        XCTAssertTrue(svg.contains("<title>missed: "), "the centre strategy misses events on this trace")
        XCTAssertTrue(svg.contains("<title>caught: "))
        XCTAssertTrue(svg.contains(" km</text>"), "scale bar")
        let bad = try CLI.run(["render"] + fences + ["--log", CLI.data("virginia_beach_ais.csv"), "--device", "nope", "-o", out])
        XCTAssertEqual(bad.status, 64)
    }
}
