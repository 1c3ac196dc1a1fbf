import Foundation
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceEvaluation
@testable import GeofenceLogs
@testable import GeofenceFences

/// Inputs that used to trap or come out silently wrong.
final class HardeningTests: XCTestCase {
    func testCSVFieldsAreQuotedByBytes() {
        XCTAssertEqual(CSVField.encode("a\r\nb"), "\"a\r\nb\"", "\\r\\n is one Character but two bytes to quote for")
        XCTAssertEqual(CSVField.encode("plain"), "plain")
        XCTAssertEqual(CSVField.encode("say \"hi\", please"), "\"say \"\"hi\"\", please\"")
        XCTAssertEqual(CSVField.encode(" lead"), "\" lead\"")
        XCTAssertEqual(CSVField.encode("é\r"), "\"é\r\"")
        let writer = EventWriter(format: .csv, fences: [Fence(id: "x", shape: .circle(lat: 0, lon: 0, radius: 1))])
        var line = ""
        writer.line(Event(device: "d\r\n2", fence: "x", type: .enter, initial: false, time: 0, lat: 0, lon: 0, note: "n"), into: &line)
        XCTAssertEqual(line, "\"d\r\n2\",x,enter,1970-01-01T00:00:00Z,0,0,false,n\n")
    }

    func testNonFiniteNumbersAreNullInJSON() {
        XCTAssertEqual(JSONWriter.string(.object([("d", .number(.infinity)), ("n", .number(.nan)), ("x", .number(1.5))])),
                       #"{"d":null,"n":null,"x":1.5}"#)
    }

    func testTimesOutsideTheFourDigitYearsAreBadRowsAndYearsArePadded() throws {
        let path = CLI.tempPath("times.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "device,time,lat,lon\na,1e20,10,10\nb,0999-05-01T00:00:00Z,10,10\nc,-62135596801,10,10\n".write(toFile: path, atomically: true, encoding: .utf8)
        var options = LogReaderOptions(skipInvalid: true)
        options.timeUnit = .seconds
        options.timeRange = .any
        let reader = try LogReader(path: path, options: options)
        let fixes = try reader.readAll()
        XCTAssertEqual(fixes.count, 1)
        XCTAssertEqual(reader.skipped, [.badTime: 2])
        XCTAssertEqual(reader.firstSkipMessages[.badTime], "\(path):2: time \"1e20\" (read as epoch seconds) is outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z")
        XCTAssertEqual(EventWriter.iso8601(fixes[0].time), "0999-05-01T00:00:00Z")
        XCTAssertEqual(EventWriter.iso8601(LogTime.earliest), "0001-01-01T00:00:00Z")
        XCTAssertEqual(EventWriter.iso8601(LogTime.latest), "9999-12-31T23:59:59Z")
    }
}

extension HardeningTests {
    func testGPXCharacterReferencesAreDecoded() throws {
        let path = CLI.tempPath("refs.gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        <?xml version="1.0"?><gpx version="1.1"><trk><trkseg>
        <trkpt lat="&#52;6.5" lon="&#x36;.25"><time>2020-06-04T10:00:00&#x5A;</time></trkpt>
        <trkpt lat="46.6" lon="6.3"><time>2020&#45;06-04T10:01:00Z</time></trkpt>
        <trkpt lat="&bogus;46" lon="6"><time>2020-06-04T10:02:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let reader = try LogReader(path: path, options: LogReaderOptions(skipInvalid: true))
        let fixes = try reader.readAll()
        XCTAssertEqual(fixes.map(\.lat), [46.5, 46.6])
        XCTAssertEqual(fixes.map(\.lon), [6.25, 6.3])
        XCTAssertEqual(fixes.map(\.time), [1_591_264_800, 1_591_264_860])
        XCTAssertEqual(reader.skipped, [.malformedRow: 1])
    }
}

extension HardeningTests {
    /// Found by `fuzz-log-time`: a far year with an eight-digit fraction overflowed 64-bit
    /// arithmetic (a trap). The fixture holds the fuzzer's input.
    func testFarYearsWithLongFractionsParse() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "log-time-overflow", withExtension: "txt", subdirectory: "Fixtures/fuzz"))
        let text = try String(contentsOf: url, encoding: .utf8)
        let seconds = LogTime.daysFromCivil(4893, 6, 4) * 86_400 + 14 * 3600 + 11 * 60 + 37
        XCTAssertEqual(LogTime.parse(text), Double("\(seconds).32958417"))
    }
}

extension HardeningTests {
    /// Identifiers are compared bytewise: "é" precomposed (NFC) and "e" + combining acute
    /// (NFD) are two fences, in a fence set, in the index and after changes to it.
    func testIdentifiersDifferingInNormalisationAreDistinct() throws {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        XCTAssertEqual(nfc, nfd, "Swift's String equality would merge them")
        var set = FenceSet()
        set.add(FenceFile(path: "a.csv", fences: [.circle(id: nfc, lat: 1, lon: 1, radius: 10), .circle(id: nfd, lat: 2, lon: 2, radius: 10)],
                          problems: []))
        XCTAssertEqual(set.problems, [])
        XCTAssertEqual(set.fences.count, 2)
        var index = try FenceIndex(set.fences)
        XCTAssertEqual(index.slot(of: nfc), 0)
        XCTAssertEqual(index.slot(of: nfd), 1)
        try index.insert(.circle(id: "other", lat: 3, lon: 3, radius: 10))     // builds the identifier map
        XCTAssertEqual(index.slot(of: nfc), 0)
        XCTAssertEqual(index.slot(of: nfd), 1)
        XCTAssertEqual(index.remove(id: nfd), 1)
        XCTAssertEqual(index.slot(of: nfc), 0)
        XCTAssertNil(index.slot(of: nfd))
    }
}
