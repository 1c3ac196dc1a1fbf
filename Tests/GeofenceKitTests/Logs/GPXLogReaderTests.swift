import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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

/// An independent GPX reading with Foundation's XMLParser: every trkpt/wpt/rtept with its
/// lat/lon attribute text and the text of its direct <time> child.
final class ReferenceGPX: NSObject, XMLParserDelegate {
    struct Point { var kind: String; var lat: String?; var lon: String?; var time: String? }
    var points: [Point] = []
    private var stack: [String] = []
    private var current: Point?
    private var pointDepth = -1
    private var text = ""

    static func read(_ path: String) -> [Point] {
        let parser = XMLParser(contentsOf: URL(fileURLWithPath: path))!
        let delegate = ReferenceGPX()
        parser.delegate = delegate
        XCTAssertTrue(parser.parse(), "\(path): \(String(describing: parser.parserError))")
        return delegate.points
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        stack.append(name)
        if current == nil, ["trkpt", "wpt", "rtept"].contains(name) {
            current = Point(kind: name, lat: attributes["lat"], lon: attributes["lon"], time: nil)
            pointDepth = stack.count
        }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if current != nil && name == "time" && stack.count == pointDepth + 1 { current!.time = text }
        if current != nil && stack.count == pointDepth { points.append(current!); current = nil }
        stack.removeLast()
    }
}

final class GPXLogReaderTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    func testSmallFixture() throws {
        let (fixes, reader) = try readLog(logFixture("small.gpx"))
        XCTAssertEqual(reader.format, .gpx)
        XCTAssertEqual(reader.devices.names, ["small"])
        let t0 = LogTime.parse("2021-01-01T10:00:00Z")!
        XCTAssertEqual(fixes, [
            Fix(device: 0, time: t0, lat: 10.5, lon: 20.5),
            Fix(device: 0, time: t0 + 0.25, lat: 11, lon: 21),
            Fix(device: 0, time: t0 + 0.5, lat: 12.25, lon: -22.75),
            Fix(device: 0, time: t0 + 10, lat: 12.5, lon: -22.5),
        ])
        let tracks = try readLog(logFixture("small.gpx"), LogReaderOptions(device: "walker", gpxPoints: .trackPoints))
        XCTAssertEqual(tracks.fixes.count, 2)
        XCTAssertEqual(tracks.reader.devices.names, ["walker"])
    }

    /// The committed gpxpy test files (GPX 1.0 and 1.1) against Foundation's XMLParser,
    /// ISO8601DateFormatter and Double(String).
    func testRealFilesAgainstFoundation() throws {
        let iso = ISO8601DateFormatter()
        let isoFraction = ISO8601DateFormatter()
        isoFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // name: (fixes, skipped for missing time, time going backwards)
        let expected: [String: (Int, Int, Int)] = [
            "cerknicko-jezero": (297, 6, 0),
            "korita-zbevnica": (513, 360, 0),
            "cerknicko-without-times": (5, 298, 0),
            "first_and_last_elevation": (9, 0, 1),
            "track-with-less-sec-time": (2, 0, 0),
        ]
        for (name, (count, untimed, backwards)) in expected {
            let path = packageRoot + "/data/gpx/\(name).gpx"
            let (fixes, reader) = try readLog(path, LogReaderOptions(skipInvalid: true))
            XCTAssertEqual(fixes.count, count, name)
            // Untimed track and route points are bad rows; untimed waypoints are passed over.
            XCTAssertEqual((reader.skipped[.missingTime] ?? 0) + reader.untimedWaypoints, untimed, name)
            XCTAssertEqual(reader.skipped[.timeBackwards] ?? 0, backwards, name)
            XCTAssertEqual(reader.devices.names, [name])
            // Independent reading: timed points in file order, minus the one going backwards.
            var reference: [Fix] = []
            var last = -Double.infinity
            for point in ReferenceGPX.read(path) {
                guard let text = point.time?.trimmingCharacters(in: .whitespacesAndNewlines) else { continue }
                let t = (iso.date(from: text) ?? isoFraction.date(from: text)!).timeIntervalSince1970
                guard t >= last else { continue }
                last = t
                reference.append(Fix(device: 0, time: t, lat: Double(point.lat!)!, lon: Double(point.lon!)!))
            }
            XCTAssertEqual(fixes.count, reference.count, name)
            for (a, b) in zip(fixes, reference) {
                XCTAssertEqual(a.lat.bitPattern, b.lat.bitPattern, name)
                XCTAssertEqual(a.lon.bitPattern, b.lon.bitPattern, name)
                XCTAssertEqual(a.time, b.time, accuracy: 1e-6, name)
            }
        }
        // Exact values: GPX 1.1 with fractional seconds and a +01:00 offset.
        let (fixes, _) = try readLog(packageRoot + "/data/gpx/track-with-less-sec-time.gpx")
        XCTAssertEqual(fixes, [
            Fix(device: 0, time: 1449844993, lat: 57.011456, lon: 9.992872),
            Fix(device: 0, time: 1449844993.994, lat: 57.01147, lon: 9.992874),
        ])
    }

    func testStrictRealFiles() {
        let dir = packageRoot + "/data/gpx/"
        // Waypoints without a time are points of interest: strict reading passes them over.
        XCTAssertNil(strictError(dir + "cerknicko-jezero.gpx"))
        XCTAssertEqual(try readLog(dir + "cerknicko-jezero.gpx").reader.untimedWaypoints, 6)
        XCTAssertEqual(strictError(dir + "korita-zbevnica.gpx", LogReaderOptions(gpxPoints: .trackPoints))?.description,
                       dir + "korita-zbevnica.gpx:33: <trkpt> has no <time>")
        XCTAssertEqual(strictError(dir + "first_and_last_elevation.gpx")?.description,
                       dir + "first_and_last_elevation.gpx:27: time goes backwards for device \"first_and_last_elevation\": 2013-05-18T09:23:04Z after 2013-05-18T10:23:04Z (line 25)")
        XCTAssertNil(strictError(dir + "track-with-less-sec-time.gpx"))
    }

    func testChunkBoundaries() throws {
        let paths = [logFixture("small.gpx"), packageRoot + "/data/gpx/cerknicko-jezero.gpx", packageRoot + "/data/gpx/korita-zbevnica.gpx"]
        for path in paths {
            let options = LogReaderOptions(skipInvalid: true)
            let (expected, r0) = try readLog(path, options)
            for chunk in [1, 2, 3, 4, 7, 9, 10, 64] {
                var o = options
                o.chunkSize = chunk
                o.mapThreshold = Int.max      // through the read buffer (a mapped file has none)
                let (fixes, reader) = try readLog(path, o)
                XCTAssertEqual(fixes, expected, "\(path) chunk \(chunk)")
                XCTAssertEqual(reader.skipped, r0.skipped)
                XCTAssertEqual(reader.firstSkipMessages, r0.firstSkipMessages)
            }
        }
    }

    /// Some exporters write the whole file on one line: only tags, not lines, must fit in the buffer.
    func testOneLineFile() throws {
        var text = "<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><trkseg>"
        for i in 0..<2000 { text += "<trkpt lat=\"\(Double(i) / 100)\" lon=\"1\"><time>\(LogTime.format(Double(i)))</time></trkpt>" }
        text += "</trkseg></trk></gpx>"
        let p = writeFile(tmp, "one.gpx", text)
        let (fixes, reader) = try readLog(p, buffered(LogReaderOptions(chunkSize: 64, maxLineLength: 256)))
        XCTAssertEqual(fixes.count, 2000)
        XCTAssertEqual(fixes.last, Fix(device: 0, time: 1999, lat: 19.99, lon: 1))
        XCTAssertLessThanOrEqual(reader.bufferCapacity, 1024)
        XCTAssertEqual(reader.line, 1)
        let long = writeFile(tmp, "long.gpx", "<gpx>\n<!--" + String(repeating: "x", count: 1000) + "-->\n</gpx>\n")
        XCTAssertEqual(strictError(long, buffered(LogReaderOptions(chunkSize: 64, maxLineLength: 256)))?.description,
                       "\(long):2: a tag or text longer than 256 bytes")
    }

    func testNotGPXAndTruncated() {
        let html = writeFile(tmp, "page.gpx", "<?xml version=\"1.0\"?>\n<html><body/></html>\n")
        XCTAssertEqual(strictError(html)?.description, "\(html):2: not a GPX file: the root element is <html>, expected <gpx>")
        let empty = writeFile(tmp, "empty.gpx", "")
        XCTAssertEqual(strictError(empty)?.description, "\(empty):1: no <gpx> element (not a GPX file, or empty)")
        let cut = writeFile(tmp, "cut.gpx", "<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:00Z</time></trkpt>\n<trkpt lat=\"1\" lon=\"2\"><ti")
        XCTAssertEqual(strictError(cut)?.description, "\(cut):4: the file ends inside a start tag (truncated?)")
        let (fixes, reader) = try! readLog(cut, LogReaderOptions(skipInvalid: true))
        XCTAssertEqual(fixes.count, 1)
        XCTAssertEqual(reader.skipped, [.truncatedLastLine: 1])
        let open = writeFile(tmp, "open.gpx", "<gpx>\n<wpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:00Z</time>\n")
        XCTAssertEqual(strictError(open)?.description, "\(open):3: the file ends inside <wpt> (truncated?)")
        let unclosed = writeFile(tmp, "unclosed.gpx", "<gpx>\n<wpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:00Z</time></wpt>\n")
        XCTAssertEqual(strictError(unclosed)?.description, "\(unclosed):3: the file ends before </gpx> (truncated?)")
    }
}
