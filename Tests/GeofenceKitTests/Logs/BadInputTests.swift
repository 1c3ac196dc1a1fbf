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

/// docs/errors.md on location logs: every case's exact message (strict), and its skip reason (lenient).
final class BadInputTests: XCTestCase {
    var tmp = ""
    override func setUp() { tmp = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    static let header = "device,time,lat,lon,accuracy\n"
    static let good = "a,2020-06-04T14:11:37Z,36.88474,-76.35246,5\n"

    /// Writes a log, checks the strict message (`path:line: message`, exit 65) and that
    /// lenient reading skips exactly one row under `reason` and keeps the others.
    func check(_ name: String, _ body: String, line: Int, _ message: String, _ reason: SkipReason, good: Int,
               options: LogReaderOptions = LogReaderOptions(), file: StaticString = #filePath, at: UInt = #line) {
        let path = writeFile(tmp, name, body)
        guard let error = strictError(path, options) else { return XCTFail("no error", file: file, line: at) }
        XCTAssertEqual(error.description, "\(path):\(line): \(message)", file: file, line: at)
        XCTAssertEqual(error.category, .badData, file: file, line: at)
        var lenient = options
        lenient.skipInvalid = true
        do {
            let (fixes, reader) = try readLog(path, lenient)
            XCTAssertEqual(fixes.count, good, file: file, line: at)
            XCTAssertEqual(reader.skipped, [reason: 1], file: file, line: at)
            XCTAssertEqual(reader.skippedTotal, 1, file: file, line: at)
            XCTAssertEqual(reader.firstSkipMessages[reason], "\(path):\(line): \(message)", file: file, line: at)
        } catch {
            XCTFail("lenient read threw \(error)", file: file, line: at)
        }
    }

    let h = BadInputTests.header, g = BadInputTests.good

    func testUnparsableNumbers() {
        check("lat.csv", h + g + "b,2020-06-04T14:11:38Z,abc,-76.3,5\n" + g.replacingOccurrences(of: "37Z", with: "39Z"),
              line: 3, "latitude \"abc\" is not a number", .badNumber, good: 2)
        check("lon.csv", h + "b,2020-06-04T14:11:38Z,36.1,-76.3.1,5\n", line: 2, "longitude \"-76.3.1\" is not a number", .badNumber, good: 0)
        check("empty-lat.csv", h + "b,2020-06-04T14:11:38Z,,-76.3,5\n", line: 2, "latitude \"\" is not a number", .badNumber, good: 0)
        check("acc.csv", h + "b,2020-06-04T14:11:38Z,36.1,-76.3,5m\n", line: 2, "accuracy \"5m\" is not a number", .badNumber, good: 0)
        check("time.csv", h + g + "b,2020-13-04T14:11:38Z,36.1,-76.3,5\n", line: 3,
              "time \"2020-13-04T14:11:38Z\" is not ISO 8601 or an epoch number", .badTime, good: 1)
        check("time2.csv", h + "b,,36.1,-76.3,5\n", line: 2, "time \"\" is not ISO 8601 or an epoch number", .badTime, good: 0)
    }

    func testOutOfRange() {
        check("lat.csv", h + g + "b,2020-06-04T14:11:38Z,91.5,-76.3,5\n", line: 3,
              "latitude \"91.5\" is out of range [-90, 90]", .latitudeOutOfRange, good: 1)
        check("lon.csv", h + "b,2020-06-04T14:11:38Z,36.1,-180.0001,5\n", line: 2,
              "longitude \"-180.0001\" is out of range [-180, 180]", .longitudeOutOfRange, good: 0)
        check("edge.csv", h + "b,0,90,180,0\nc,0,-90,-180,0\nd,0,-90.0000001,0,0\n", line: 4,
              "latitude \"-90.0000001\" is out of range [-90, 90]", .latitudeOutOfRange, good: 2)
    }

    func testNotFinite() {
        check("nan.csv", h + "b,2020-06-04T14:11:38Z,NaN,-76.3,5\n", line: 2, "latitude \"NaN\" is not finite", .notFinite, good: 0)
        check("inf.csv", h + "b,2020-06-04T14:11:38Z,1,-inf,5\n", line: 2, "longitude \"-inf\" is not finite", .notFinite, good: 0)
        check("big.csv", h + "b,2020-06-04T14:11:38Z,1e400,1,5\n", line: 2, "latitude \"1e400\" is not finite", .notFinite, good: 0)
        check("tinf.csv", h + "b,inf,1,1,5\n", line: 2, "time \"inf\" is not finite", .notFinite, good: 0)
        check("ainf.csv", h + "b,1,1,1,nan\n", line: 2, "accuracy \"nan\" is not finite", .notFinite, good: 0)
    }

    func testNegativeAccuracy() {
        check("acc.csv", h + g + "b,2020-06-04T14:11:38Z,36.1,-76.3,-5\n", line: 3, "accuracy \"-5\" is negative", .negativeAccuracy, good: 1)
    }

    func testMissingColumnsIsAWholeFileError() {
        for skip in [false, true] {
            let p = writeFile(tmp, "cols.csv", "device,when,lat,lon\nb,1,2,3\n")
            do {
                _ = try readLog(p, LogReaderOptions(skipInvalid: skip))
                XCTFail("expected an error")
            } catch {
                XCTAssertEqual(error.description, "\(p):1: no time column in the header (columns: device, when, lat, lon); names recognised: time, timestamp, ts, datetime, date_time, basedatetime, time_utc, recorded_at; name the columns with --columns, e.g. --columns device=device,time=when,lat=lat,lon=lon")
                XCTAssertEqual(error.category, .badData)
            }
        }
        let empty = writeFile(tmp, "empty.csv", "")
        XCTAssertEqual(strictError(empty)?.description, "\(empty):1: empty file, expected a CSV header naming the columns device, time, lat, lon")
        let headerOnly = writeFile(tmp, "header.csv", "device,time,lat,lon")
        XCTAssertEqual(try readLog(headerOnly).fixes, [])
    }

    func testFieldCounts() {
        check("few.csv", h + "b,2020-06-04T14:11:38Z,36.1\n" + g, line: 2, "row has 3 fields, the header has 5", .tooFewFields, good: 1)
        check("many.csv", h + g + "b,2020-06-04T14:11:38Z,36.1,-76.3,5,6\n", line: 3, "row has 6 fields, the header has 5", .tooManyFields, good: 1)
    }

    func testEmptyDevice() {
        check("dev.csv", h + g + "  ,2020-06-04T14:11:38Z,36.1,-76.3,5\n", line: 3, "empty device id", .emptyDevice, good: 1)
        check("devq.csv", h + "\"\",2020-06-04T14:11:38Z,36.1,-76.3,5\n", line: 2, "empty device id", .emptyDevice, good: 0)
    }

    func testDeviceNotUTF8() throws {
        let path = tmp + "/utf8.csv"
        _ = FileManager.default.createFile(atPath: path, contents: Data(Array(h.utf8) + [0x61, 0xFF] + Array(",1,1,1,0\n".utf8)))
        XCTAssertEqual(strictError(path)?.description, "\(path):2: device id is not valid UTF-8")
        XCTAssertEqual(try readLog(path, LogReaderOptions(skipInvalid: true)).reader.skipped, [.malformedRow: 1])
    }

    func testTimeBackwards() {
        check("back.csv", h + "a,2020-06-04T14:11:37Z,1,1,0\nb,2020-06-04T14:11:30Z,1,1,0\na,2020-06-04T14:11:36.5Z,1,1,0\na,2020-06-04T14:11:38Z,1,2,0\n",
              line: 4, "time goes backwards for device \"a\": 2020-06-04T14:11:36.5Z after 2020-06-04T14:11:37Z (line 2)", .timeBackwards, good: 3)
    }

    /// A duplicate is the same device, time, latitude and longitude as the device's previous
    /// fix (accuracy not compared); the same time at another position is a valid fix.
    func testDuplicateFix() {
        check("dup.csv", h + "a,100,1,1,5\nb,100,1,1,5\na,100,1,1,7\na,100,1,1.5,5\n",
              line: 4, "duplicate fix for device \"a\": same time 1970-01-01T00:01:40Z and position as line 2", .duplicateFix, good: 3)
        // Same second, other position (23 such cases in the US coastal AIS file): accepted.
        let p = writeFile(tmp, "same-second.csv", h + "367668740,2020-06-30T12:51:20Z,29.09696,-90.22227,\n367668740,2020-06-30T12:51:20Z,29.14825,-90.2044,\n")
        XCTAssertEqual(try readLog(p).fixes.count, 2)
    }

    func testTruncatedLastLine() {
        check("cut.csv", h + g + "b,2020-06-04T14:11:38Z,36.1", line: 3,
              "truncated last line: 3 of 5 fields and no newline at the end of the file", .truncatedLastLine, good: 1)
        // A complete last line without a newline is fine; one with a cut-off number is not detectable.
        let p = writeFile(tmp, "complete.csv", h + g + "b,2020-06-04T14:11:38Z,36.1,-76.3,5")
        XCTAssertEqual(try readLog(p).fixes.count, 2)
        check("cutjson.ndjson", "{\"device\":\"a\",\"time\":1,\"lat\":1,\"lon\":1}\n{\"device\":\"a\",\"time\":2,\"la", line: 2,
              "truncated last line: the JSON object is not closed and there is no newline at the end of the file", .truncatedLastLine, good: 1)
    }

    func testQuotingAndLongLines() {
        check("quote.csv", h + g + "\"b,2020-06-04T14:11:38Z,36.1,-76.3,5\n", line: 3,
              "unterminated quoted field (the file ends inside it)", .malformedRow, good: 1)
        check("after.csv", h + "\"b\"x,2020-06-04T14:11:38Z,36.1,-76.3,5\n" + g, line: 2,
              "unexpected character after the closing quote of field 1", .malformedRow, good: 1)
        let p = writeFile(tmp, "long.csv", h + g + "b,2020-06-04T14:11:38Z,36.1,-76.3," + String(repeating: "9", count: 300) + "\n")
        XCTAssertEqual(strictError(p, buffered(LogReaderOptions(chunkSize: 16, maxLineLength: 100)))?.description, "\(p):3: line longer than 100 bytes")
    }

    /// Sizes set to 0 or less after the options' init (public fields) are raised to 1 as the
    /// init raises them: a read with chunks of 0 bytes gives the default read's fixes (a buffer
    /// of 0 bytes took the first read's bytes, past its end).
    func testSizesBelowOneAreRaised() throws {
        let p = writeFile(tmp, "sizes.csv", h + g + "b,2020-06-04T14:11:38Z,36.1,-76.3,5\n")
        for size in [0, -3] {
            var options = buffered(LogReaderOptions())
            options.chunkSize = size
            let (fixes, reader) = try readLog(p, options)
            XCTAssertEqual(fixes, try readLog(p).fixes, "chunk \(size)")
            XCTAssertEqual(reader.options.chunkSize, 1)
            options = LogReaderOptions()
            options.maxLineLength = size
            XCTAssertEqual(try LogReader(path: p, options: options).options.maxLineLength, 1)
        }
    }

    /// A gzip log read as a stream (not inflated whole) meets the line limit as a plain one
    /// does, with one thread and with two: a line well past the limit but under twice it is
    /// refused (a refill that filled the doubled buffer let it through), a line under the limit
    /// is read.
    func testLongLinesInGzipStreams() throws {
        ByteSource.wholeGzipBytes = 0                  // read as a stream
        defer { ByteSource.wholeGzipBytes = 8 << 20 }
        for (length, refused) in [(1_700, true), (3_000, true), (900, false)] {
            // A good row of `length` bytes (its device name long): refused only for its length.
            let tail = ",2020-06-04T14:11:38Z,36.1,-76.3,5"
            let text = h + g + String(repeating: "b", count: length - tail.count) + tail + "\na,2020-06-04T14:11:39Z,36.9,-76.3,5\n"
            let plain = writeFile(tmp, "long\(length).csv", text)
            XCTAssertEqual(runTool("/bin/gzip", ["-kf", plain]), 0)
            for threads in [1, 2] {
                // A limit that the doubling buffer (128, 256 ... bytes) meets exactly: the refill
                // with 1,024 bytes kept is not past it, and once filled 2,048 bytes were there.
                var options = buffered(LogReaderOptions(chunkSize: 64, maxLineLength: 1_024))
                options.threads = threads
                options.parallelChunkSize = 256
                let error = strictError(plain + ".gz", options)?.description
                XCTAssertEqual(error, refused ? "\(plain).gz:3: line longer than 1024 bytes" : nil, "\(length) bytes, \(threads) threads")
            }
        }
    }

    func testNDJSON() {
        check("missing.ndjson", "{\"device\":\"a\",\"time\":1,\"lat\":1}\n", line: 1, "missing key \"lon\"", .missingField, good: 0)
        check("null.ndjson", "{\"device\":null,\"time\":1,\"lat\":1,\"lon\":1}\n", line: 1, "\"device\" is null", .missingField, good: 0)
        check("type.ndjson", "{\"device\":\"a\",\"time\":1,\"lat\":[1],\"lon\":1}\n", line: 1, "\"lat\" must be a number", .malformedRow, good: 0)
        check("bool.ndjson", "{\"device\":true,\"time\":1,\"lat\":1,\"lon\":1}\n", line: 1, "\"device\" must be a string or a number", .malformedRow, good: 0)
        check("syntax.ndjson", "\n{\"device\":\"a\" \"time\":1}\n", line: 2, "invalid JSON at column 15: expected ',' or '}'", .malformedRow, good: 0)
        check("array.ndjson", "[1,2]\n", line: 1, "invalid JSON at column 1: expected an object ('{')", .malformedRow, good: 0)
        check("open.ndjson", "{\"device\":\"a\",\"time\":1,\"lat\":1,\"lon\":1\n{\"device\":\"a\",\"time\":2,\"lat\":1,\"lon\":1}\n", line: 1,
              "invalid JSON at column 39: the object is not closed", .malformedRow, good: 1)
        check("trail.ndjson", "{\"device\":\"a\",\"time\":1,\"lat\":1,\"lon\":1} x\n", line: 1,
              "invalid JSON at column 41: unexpected text after the object", .malformedRow, good: 0)
        check("nan.ndjson", "{\"device\":\"a\",\"time\":1,\"lat\":NaN,\"lon\":1}\n", line: 1, "latitude \"NaN\" is not finite", .notFinite, good: 0)
        check("range.ndjson", "{\"device\":\"a\",\"time\":\"2020-06-04T14:11:37Z\",\"lat\":1,\"lon\":200}\n", line: 1,
              "longitude \"200\" is out of range [-180, 180]", .longitudeOutOfRange, good: 0)
        check("empty.ndjson", "{\"device\":\"\",\"time\":1,\"lat\":1,\"lon\":1}\n", line: 1, "empty device id", .emptyDevice, good: 0)
        check("dup.ndjson", "{\"device\":7,\"time\":1,\"lat\":1,\"lon\":1}\n{\"device\":7,\"time\":1,\"lat\":1,\"lon\":1}\n", line: 2,
              "duplicate fix for device \"7\": same time 1970-01-01T00:00:01Z and position as line 1", .duplicateFix, good: 1)
    }

    func testGPX() {
        let head = "<?xml version=\"1.0\"?>\n<gpx version=\"1.0\" xmlns=\"http://www.topografix.com/GPX/1/0\">\n<trk><trkseg>\n"
        let tail = "</trkseg></trk>\n</gpx>\n"
        check("t.gpx", head + "<trkpt lat=\"1\" lon=\"2\"><time>2020-01-01T00:00:00Z</time></trkpt>\n<trkpt lat=\"1\" lon=\"2.5\">\n<ele>3</ele>\n</trkpt>\n" + tail,
              line: 5, "<trkpt> has no <time>", .missingTime, good: 1)
        check("self.gpx", head + "<trkpt lat=\"1\" lon=\"2\"/>\n" + tail, line: 4, "<trkpt> has no <time>", .missingTime, good: 0)
        check("lat.gpx", head + "<trkpt lon=\"2\"><time>2020-01-01T00:00:00Z</time></trkpt>\n" + tail, line: 4,
              "<trkpt> has no lat attribute", .missingField, good: 0)
        check("range.gpx", head + "<trkpt lat=\"-91\" lon=\"2\"><time>2020-01-01T00:00:00Z</time></trkpt>\n" + tail, line: 4,
              "latitude \"-91\" is out of range [-90, 90]", .latitudeOutOfRange, good: 0)
        check("time.gpx", head + "<trkpt lat=\"1\" lon=\"2\"><time>yesterday</time></trkpt>\n" + tail, line: 4,
              "time \"yesterday\" is not ISO 8601 or an epoch number", .badTime, good: 0)
    }

    func testMissingFileAndDirectory() {
        let p = tmp + "/nope.csv"
        XCTAssertEqual(strictError(p)?.description, "\(p): log file not found")
        XCTAssertEqual(strictError(p)?.category, .missingInput)
        XCTAssertEqual(strictError(tmp)?.description, "\(tmp): is a directory, not a log file")
        XCTAssertEqual(strictError(tmp)?.category, .missingInput)
    }

    func testLenientCountsByReason() throws {
        let body = h + g
            + "b,2020-06-04T14:11:38Z,abc,1,0\n"         // bad_number
            + "b,2020-06-04T14:11:38Z,95,1,0\n"          // latitude_out_of_range
            + "b,2020-06-04T14:11:38Z,96,1,0\n"          // latitude_out_of_range
            + "b,2020-06-04T14:11:38Z,1,1,-1\n"          // negative_accuracy
            + "a,2020-06-04T14:11:00Z,1,1,0\n"           // time_backwards
            + "b,2020-06-04T14:11:38Z,1,1,0\n"           // good
            + "b,2020-06-04T14:11:38Z,1,1,0\n"           // duplicate_fix
            + "b,2020-06-04T14:11:39Z\n"                 // too_few_fields
            + "c,2020-06-04T14:11:39Z,1"                 // truncated_last_line
        let p = writeFile(tmp, "mixed.csv", body)
        let (fixes, reader) = try readLog(p, LogReaderOptions(skipInvalid: true))
        XCTAssertEqual(fixes.count, 2)
        XCTAssertEqual(reader.skipped, [.badNumber: 1, .latitudeOutOfRange: 2, .negativeAccuracy: 1, .timeBackwards: 1,
                                        .duplicateFix: 1, .tooFewFields: 1, .truncatedLastLine: 1])
        XCTAssertEqual(reader.skippedTotal, 8)
        XCTAssertEqual(reader.firstSkipMessages[.latitudeOutOfRange], "\(p):4: latitude \"95\" is out of range [-90, 90]")
        XCTAssertEqual(SkipReason.allCases.map(\.rawValue), [
            "bad_number", "bad_time", "not_finite", "latitude_out_of_range", "longitude_out_of_range", "negative_accuracy",
            "empty_device", "too_few_fields", "too_many_fields", "missing_field", "missing_time", "malformed_row",
            "truncated_last_line", "time_backwards", "duplicate_fix"])
    }
}
