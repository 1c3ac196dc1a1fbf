import Foundation
import XCTest
import GeofenceTestSupport

/// Optional event fields, fence properties in events, and GeoJSON event output
/// (docs/evaluation.md#event-records), checked against values written into the fixtures.
final class EventOutputTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = CLI.tempPath("events-out")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Two circles of 1 km; "b" has an empty name (CSV cells are strings); a name with a comma and a quote.
        try #"""
        id,lat,lon,radius,name,kind
        a,0,0,1000,"Pier, ""one""",port
        b,0.5,0.5,1000,,7
        """#.write(toFile: dir + "/fences.csv", atomically: true, encoding: .utf8)
        // Device d: outside, enters a at 60 s, still inside at 400 s (dwell 300 → 340 s after
        // the enter), leaves at 1000.5 s (a visit of 940.5 s); then enters b without accuracy.
        try """
        device,time,lat,lon,accuracy
        d,1717200000,0.1,0.1,4.7
        d,1717200060,0,0,4.7
        d,1717200400,0.001,0,12.25
        d,1717201000.5,0.1,0.1,3
        d,1717201100,0.5,0.5,0
        """.write(toFile: dir + "/log.csv", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func evaluate(_ extra: [String]) throws -> String {
        let r = try CLI.run(["evaluate", "-f", dir + "/fences.csv", "--log", dir + "/log.csv", "--dwell", "300", "-q"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "--quiet")
        return r.stdout
    }

    func testFieldsAndPropertiesInNDJSON() throws {
        let out = try evaluate(["--event-fields", "accuracy,duration", "--event-properties", "name,kind"])
        XCTAssertEqual(out, #"""
        {"device":"d","fence":"a","type":"enter","time":"2024-06-01T00:01:00Z","lat":0,"lon":0,"accuracy":4.7,"fence_name":"Pier, \"one\"","fence_kind":"port"}
        {"device":"d","fence":"a","type":"dwell","time":"2024-06-01T00:06:40Z","lat":0.001,"lon":0,"accuracy":12.25,"duration":340,"fence_name":"Pier, \"one\"","fence_kind":"port"}
        {"device":"d","fence":"a","type":"exit","time":"2024-06-01T00:16:40.500Z","lat":0.1,"lon":0.1,"accuracy":3,"duration":940.5,"fence_name":"Pier, \"one\"","fence_kind":"port"}
        {"device":"d","fence":"b","type":"enter","time":"2024-06-01T00:18:20Z","lat":0.5,"lon":0.5,"fence_name":"","fence_kind":"7"}

        """#)
    }

    func testFieldsAndPropertiesInCSV() throws {
        let out = try evaluate(["--format", "csv", "--event-fields", "duration,accuracy", "--event-properties", "kind,name"])
        XCTAssertEqual(out, #"""
        device,fence,type,time,lat,lon,initial,note,accuracy,duration,fence_kind,fence_name
        d,a,enter,2024-06-01T00:01:00Z,0,0,false,,4.7,,port,"Pier, ""one"""
        d,a,dwell,2024-06-01T00:06:40Z,0.001,0,false,,12.25,340,port,"Pier, ""one"""
        d,a,exit,2024-06-01T00:16:40.500Z,0.1,0.1,false,,3,940.5,port,"Pier, ""one"""
        d,b,enter,2024-06-01T00:18:20Z,0.5,0.5,false,,,,7,

        """#)
    }

    func testDefaultOutputHasNoExtras() throws {
        let out = try evaluate([])
        XCTAssertEqual(out.split(separator: "\n").first.map(String.init),
                       #"{"device":"d","fence":"a","type":"enter","time":"2024-06-01T00:01:00Z","lat":0,"lon":0}"#)
        XCTAssertFalse(out.contains("accuracy") || out.contains("duration") || out.contains("fence_"))
    }

    func testPropertiesFromACompiledFile() throws {
        let gfc = dir + "/fences.gfc"
        XCTAssertEqual(try CLI.run(["compile", "-f", dir + "/fences.csv", "-o", gfc, "-q"]).status, 0)
        let r = try CLI.run(["evaluate", "-f", gfc, "--log", dir + "/log.csv", "--event-properties", "name", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix(#"{"device":"d","fence":"a","type":"enter","time":"2024-06-01T00:01:00Z","lat":0,"lon":0,"fence_name":"Pier, \"one\""}"#), r.stdout)
    }

    func testUnknownPropertyAndFieldAreUsageErrors() throws {
        let r = try CLI.run(["evaluate", "-f", dir + "/fences.csv", "--log", dir + "/log.csv", "--event-properties", "name,nmae"])
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr, "geofence evaluate: error: option '--event-properties': no fence has a property 'nmae'\n")
        let f = try CLI.run(["evaluate", "-f", dir + "/fences.csv", "--log", dir + "/log.csv", "--event-fields", "speed"])
        XCTAssertEqual(f.status, 64)
        XCTAssertEqual(f.stderr, "geofence evaluate: error: option '--event-fields' takes accuracy, duration, got 'speed'\n")
    }

    func testExtrasSurviveSpilling() throws {
        let args = ["-f", CLI.data("ports.csv"), "--log", CLI.data("virginia_beach_ais.csv"), "--dwell", "60",
                    "--event-fields", "duration", "--event-properties", "name", "-q"]
        let held = try CLI.run(["evaluate"] + args)
        let spilled = try CLI.run(["evaluate"] + args + ["--memory-budget", "100"])
        XCTAssertEqual(held.status, 0, held.stderr)
        XCTAssertEqual(spilled.status, 0, spilled.stderr)
        XCTAssertTrue(held.stdout.contains("\"duration\":"))
        XCTAssertEqual(held.stdout, spilled.stdout)
    }

    func testGeoJSONFeatureCollection() throws {
        let out = try evaluate(["--format", "geojson", "--event-fields", "duration", "--event-properties", "name"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        XCTAssertEqual(json["type"] as? String, "FeatureCollection")
        let features = try XCTUnwrap(json["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, 4)
        let expected: [(String, String, [Double], Double?)] = [
            ("a", "enter", [0, 0], nil), ("a", "dwell", [0, 0.001], 340), ("a", "exit", [0.1, 0.1], 940.5), ("b", "enter", [0.5, 0.5], nil),
        ]
        for (f, e) in zip(features, expected) {
            XCTAssertEqual(f["type"] as? String, "Feature")
            let g = try XCTUnwrap(f["geometry"] as? [String: Any])
            XCTAssertEqual(g["type"] as? String, "Point")
            XCTAssertEqual(g["coordinates"] as? [Double], e.2, "lon, lat")
            let p = try XCTUnwrap(f["properties"] as? [String: Any])
            XCTAssertEqual(p["device"] as? String, "d")
            XCTAssertEqual(p["fence"] as? String, e.0)
            XCTAssertEqual(p["type"] as? String, e.1)
            XCTAssertEqual(p["duration"] as? Double, e.3)
            XCTAssertEqual(p["fence_name"] as? String, e.0 == "a" ? "Pier, \"one\"" : "", "an empty CSV cell is an empty string")
        }
        // geojsonl: the same features, one per line.
        let lines = try evaluate(["--format", "geojsonl", "--event-fields", "duration", "--event-properties", "name"]).split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        for (line, f) in zip(lines, features) {
            let l = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
            XCTAssertEqual(l, f as NSDictionary)
        }
    }

    func testGeoJSONWithNoEventsIsValid() throws {
        try "device,time,lat,lon\nd,1717200000,10,10\n".write(toFile: dir + "/far.csv", atomically: true, encoding: .utf8)
        let r = try CLI.run(["evaluate", "-f", dir + "/fences.csv", "--log", dir + "/far.csv", "--format", "geojson", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((json["features"] as? [Any])?.count, 0)
        XCTAssertEqual(json["type"] as? String, "FeatureCollection")
    }
}

extension EventOutputTests {
    /// More events than one formatting block (16,384): the workers format blocks of devices on
    /// their own and the blocks are joined in order. GeoJSON stays one valid FeatureCollection
    /// and every format gives the same bytes at 1, 2 and 8 threads.
    func testManyEventsFormattedByWorkersJoinInOrder() throws {
        var log = "device,time,lat,lon\n"
        for d in 0..<2_500 {
            for k in 0..<10 {   // in and out of a port every minute: about 10 events a device
                log += "dev\(d),\(1_600_000_000 + 60 * k),\(k % 2 == 0 ? "41.316667" : "42.316667"),19.45\n"
            }
        }
        let path = CLI.tempPath("many.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try log.write(toFile: path, atomically: true, encoding: .utf8)
        for format in ["geojson", "ndjson", "csv", "geojsonl"] {
            var outputs: [String] = []
            for threads in ["1", "2", "8"] {
                let r = try CLI.run(["evaluate", "--fences", CLI.data("ports.csv"), "--log", path, "--format", format, "--threads", threads, "-q"])
                XCTAssertEqual(r.status, 0, r.stderr)
                outputs.append(r.stdout)
            }
            XCTAssertEqual(Set(outputs).count, 1, format)
            if format == "geojson" {
                let object = try JSONSerialization.jsonObject(with: Data(outputs[0].utf8)) as? [String: Any]
                let features = object?["features"] as? [Any]
                XCTAssertGreaterThan(features?.count ?? 0, 20_000)
            }
        }
    }
}
