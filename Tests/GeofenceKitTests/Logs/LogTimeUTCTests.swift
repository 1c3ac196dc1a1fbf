import XCTest
import GeofenceTestSupport
@testable import GeofenceLogs

/// The straight-line reader of `YYYY-MM-DDThh:mm:ssZ` against the general ISO 8601 reader, on
/// valid times of every year and on each byte changed.
final class LogTimeUTCTests: XCTestCase {
    func testCompactUTCAgreesWithTheGeneralReader() {
        var rng = SeededGenerator(seed: 93)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let alphabet = Array("0123456789-:TtZz .+x/\u{7F}".utf8) + [0x2F, 0x3A, 0x00, 0xFF]
        var accepted = 0
        for k in 0..<60_000 {
            let year = rng.int(0..<10_000), month = rng.int(0..<14), day = rng.int(0..<33)
            let hour = rng.int(0..<25), minute = rng.int(0..<61), second = rng.int(0..<62)
            let y = String(repeating: "0", count: 4 - String(year).count) + String(year)
            let sep = ["T", "t", " "][k % 3], z = k % 5 == 0 ? "z" : "Z"
            var bytes = Array("\(y)-\(two(month))-\(two(day))\(sep)\(two(hour)):\(two(minute)):\(two(second))\(z)".utf8)
            XCTAssertEqual(bytes.count, 20)
            if k % 4 == 0 { bytes[rng.int(0..<20)] = alphabet[rng.int(0..<alphabet.count)] }   // one byte changed
            bytes.withUnsafeBufferPointer { b in
                let fast = LogTime.parseUTCSeconds(b.baseAddress!)
                let general = LogTime.parseISOZoned(b.baseAddress!, 20)
                let text = String(decoding: bytes, as: UTF8.self)
                if let fast {
                    accepted += 1
                    XCTAssertEqual(general?.0, fast, text)
                    XCTAssertEqual(general?.1, 0, text)
                } else if let general {
                    // Declined shapes the general reader takes must not be this exact form.
                    XCTAssertFalse(general.1 == 0 && (b[19] | 0x20) == UInt8(ascii: "z") && b[4] == UInt8(ascii: "-"),
                                   "declined \(text), which the general reader reads as \(general)")
                }
                // Through the entry point every reader uses: the same as the general reader.
                XCTAssertEqual(LogTime.parseZoned(b.baseAddress!, 20).map { $0.0 }, general.map { $0.0 }, text)
            }
        }
        XCTAssertGreaterThan(accepted, 10_000)
    }

    /// The reader that keeps the last date gives what the plain one gives, whatever came
    /// before: runs of one date with every byte of the clock or of the date changed, a date
    /// kept from a valid time followed by invalid times of that date, dates changing.
    func testKeptDateAgreesWithThePlainReader() {
        var rng = SeededGenerator(seed: 41)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let alphabet = Array("0123456789-:TtZz .+x/".utf8) + [0x00, 0xFF]
        var day = LogTime.UTCDay()
        var kept = 0
        for k in 0..<60_000 {
            // A few dates (one in five runs a new one), all times of a day, some bytes changed.
            let date = k % 500 < 400 ? "2020-02-\(two(28 + (k / 500) % 3))" : "\(1900 + rng.int(0..<200))-\(two(rng.int(0..<14)))-\(two(rng.int(0..<33)))"
            var bytes = Array("\(date)T\(two(rng.int(0..<25))):\(two(rng.int(0..<61))):\(two(rng.int(0..<62)))Z".utf8)
            if k % 3 == 0 { bytes[rng.int(0..<20)] = alphabet[rng.int(0..<alphabet.count)] }
            bytes.withUnsafeBufferPointer { b in
                let hit = day.head == UnsafeRawPointer(b.baseAddress!).loadUnaligned(as: UInt64.self)
                let plain = LogTime.parseUTCSeconds(b.baseAddress!)
                XCTAssertEqual(LogTime.parseUTCSeconds(b.baseAddress!, day: &day), plain, String(decoding: bytes, as: UTF8.self))
                if hit && plain != nil { kept += 1 }
            }
        }
        XCTAssertGreaterThan(kept, 20_000)
    }
}
