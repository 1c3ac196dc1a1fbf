import CFastDecimal
import Foundation
import Glibc
import XCTest
import GeofenceTestSupport
@testable import GeofenceLogs

/// `geofence_plain_decimals` (Sources/CFastDecimal, the SSSE3, AVX2 and AVX-512 numbers of the
/// one-check CSV row) against `Double(String)` (strtod) bit for bit, and its ends and declines
/// against a scan of the text written here from the documented rules; every path the CPU has,
/// each on its own. `geofence_line_end` against a scan.
final class FastDecimalTests: XCTestCase {
    /// Runs `body` once per path this CPU takes (1 SSSE3, 2 AVX2, 3 AVX-512), the path set for it.
    func forEachPath(_ body: (Int) -> Void) {
        let best = Int(geofence_plain_decimals_level(-1))
        defer { geofence_plain_decimals_level(Int32(best)) }
        // No path: the reader's direct call declines every run.
        XCTAssertEqual(geofence_plain_decimals_level(0), 0)
        var values = [Double](repeating: 0, count: 4)
        let plain = Array("1.5,2.5,3.5,4.5\n".utf8) + [UInt8](repeating: 0x30, count: 80)
        for count in 1...4 { XCTAssertEqual(geofence_plain_decimals_direct(plain, Int32(count), UInt8(ascii: ","), &values), 0) }
        guard best > 0 else { return }
        for level in 1...best {
            XCTAssertEqual(Int(geofence_plain_decimals_level(Int32(level))), level)
            body(level)
        }
    }

    /// Where the run of `count` numbers at `bytes` ends and their strtod values, or nil where
    /// the function must decline: the rules of fast_decimal.h, byte by byte.
    func reference(_ bytes: [UInt8], count: Int) -> (end: Int, values: [Double])? {
        var i = 0, values: [Double] = []
        for k in 0..<count {
            let start = i
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            var digits = 0, point = false, fraction = 0
            while true {
                let c = bytes[i]
                if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                    digits += 1
                    if point { fraction += 1 }
                } else if c == UInt8(ascii: ".") && !point {
                    point = true
                } else {
                    break
                }
                i += 1
            }
            guard i - start < 16, digits > 0, !point || fraction > 0 else { return nil }
            guard let v = Double(String(decoding: bytes[start..<i], as: UTF8.self)) else { return nil }
            values.append(v)
            if k < count - 1 {
                guard bytes[i] == UInt8(ascii: ",") else { return nil }
                i += 1
            }
        }
        return (i, values)
    }

    /// A plain decimal of every shape: a sign now and then (a '+' rarely), 0 to 16 integer
    /// digits (leading zeros too), a point with 0 to 16 fraction digits, or values next to a
    /// power of ten (9s, then 10...0).
    func number(_ g: inout SeededGenerator) -> String {
        var s = ""
        switch g.next() % 8 { case 0, 1: s += "-"; case 2 where g.next() % 8 == 0: s += "+"; default: break }
        // Half of them short, as coordinates are; the others up to 16 digits each side.
        let short = g.next() % 2 == 0
        let integer = Int(g.next() % (short ? 4 : 17)), fraction = Int(g.next() % (short ? 9 : 17))
        switch g.next() % 6 {
        case 0:                                                        // next to a power of ten
            let nines = g.next() % 2 == 0
            s += nines ? String(repeating: "9", count: max(integer, 1)) : "1" + String(repeating: "0", count: integer)
            if fraction > 0 { s += "." + String(repeating: nines ? "9" : "0", count: fraction) }
        default:
            for k in 0..<integer { s += String(k == 0 && g.next() % 4 == 0 ? 0 : g.next() % 10) }
            if g.next() % 4 != 0 {
                s += "."
                for _ in 0..<fraction { s += String(g.next() % 10) }
            }
        }
        return s
    }

    /// Runs the function on `text` followed by random bytes (digits, points, delimiters,
    /// exponents, signs), 16 · count + 16 of them readable, and checks it against the
    /// reference. Returns whether it decided.
    @discardableResult
    func check(_ text: String, count: Int, _ g: inout SeededGenerator, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let filler = Array("0123456789.,eE\n-+x".utf8)
        var bytes = Array(text.utf8)
        while bytes.count < 16 * count + 16 { bytes.append(filler[Int(g.next() % UInt64(filler.count))]) }
        bytes.append(UInt8(ascii: "\n"))                                 // the reference's scan stops here at the latest
        var values = [Double](repeating: .nan, count: 4)
        let end = Int(geofence_plain_decimals(bytes, Int32(count), UInt8(ascii: ","), &values))
        // The reader's call without the dispatch takes the same path (it follows the level).
        var direct = [Double](repeating: .nan, count: 4)
        let directEnd = Int(geofence_plain_decimals_direct(bytes, Int32(count), UInt8(ascii: ","), &direct))
        XCTAssertEqual(directEnd, end, "direct call, \(String(decoding: bytes.prefix(40), as: UTF8.self)) (count \(count))", file: file, line: line)
        if end > 0 && directEnd == end {
            for k in 0..<count where direct[k].bitPattern != values[k].bitPattern {
                XCTFail("direct call, number \(k): \(direct[k]) for \(values[k])", file: file, line: line)
            }
        }
        let want = reference(bytes, count: count)
        guard let want else {
            XCTAssertEqual(end, 0, "declines \(String(decoding: bytes.prefix(40), as: UTF8.self)) (count \(count))", file: file, line: line)
            return false
        }
        XCTAssertEqual(end, want.end, "end of \(String(decoding: bytes.prefix(40), as: UTF8.self)) (count \(count))", file: file, line: line)
        guard end > 0 else { return false }
        for k in 0..<count where values[k].bitPattern != want.values[k].bitPattern {
            XCTFail("\(String(decoding: bytes.prefix(40), as: UTF8.self)) number \(k): \(values[k]) for \(want.values[k])", file: file, line: line)
        }
        return end > 0
    }

    /// More than a million numbers, alone and in runs of 2 to 4 separated by ',' (and now and
    /// then by another byte), bit for bit as strtod, each run's end where the text says.
    func testRandomNumbersAsStrtod() {
        forEachPath { level in
            var g = SeededGenerator(seed: 0x5D_EC1A)
            var numbers = 0, decided = 0
            while numbers < 1_100_000 {
                let count = 1 + Int(g.next() % 4)
                var text = ""
                for k in 0..<count {
                    text += number(&g)
                    if k < count - 1 { text += g.next() % 64 == 0 ? ";" : "," }
                }
                if check(text, count: count, &g) { decided += count }
                numbers += count
            }
            // Most of the shapes are decided (the rest is the caller's fallback).
            XCTAssertGreaterThan(decided, numbers / 5, "path \(level)")
        }
    }

    /// Plain numbers as near a halfway point between two doubles as a number of at most 15
    /// bytes can be (``DecimalCorpus/plainNearHalfway(perSide:)``: every k from 1 to 14 and
    /// every binade, on both sides), alone and four in a run: every path decides each of them
    /// and gives strtod's bits. The wide paths' quotients are products by 1 / 10^k taken in two
    /// parts; a quotient rounded one step too early turns up here as the other double.
    func testNumbersNearHalfwayPointsAsStrtod() {
        let texts = DecimalCorpus.plainNearHalfway(perSide: 6)
        XCTAssertGreaterThan(texts.count, 5_000)
        forEachPath { level in
            var bad: [String] = []
            for text in texts {
                if let m = DecimalCorpus.plainMismatch(text) { bad.append(m) }
                // Decided: a plain number of at most 15 bytes.
                XCTAssertTrue(DecimalCorpus.plainDecides(text), "\(text), path \(level)")
            }
            XCTAssertEqual(bad.count, 0, "path \(level): " + bad.prefix(5).joined(separator: "; "))
        }
    }

    /// Runs of numbers with other delimiters (';', a tab, and bytes that can be part of a
    /// number: '.', '-', a digit): every path gives the same end and the same bits as the
    /// one-number-at-a-time path, and, for a delimiter that cannot be in a number, as strtod
    /// over the fields.
    func testOtherDelimitersAgreeAcrossPaths() {
        guard geofence_plain_decimals_level(-1) >= 1 else { return }
        var g = SeededGenerator(seed: 0xDE11)
        for delimiter in Array(";\t.-7|".utf8) {
            for _ in 0..<20_000 {
                let count = 1 + Int(g.next() % 4)
                var bytes: [UInt8] = []
                for k in 0..<count {
                    bytes += Array(number(&g).utf8)
                    if k < count - 1 { bytes.append(g.next() % 32 == 0 ? UInt8(ascii: ",") : delimiter) }
                }
                while bytes.count < 16 * count + 16 { bytes.append(Array("0123456789.,;\t-\n".utf8)[Int(g.next() % 16)]) }
                var results: [(Int, [Double])] = []
                forEachPath { _ in
                    var values = [Double](repeating: .nan, count: 4)
                    let end = Int(geofence_plain_decimals(bytes, Int32(count), delimiter, &values))
                    results.append((end, end > 0 ? Array(values[0..<count]) : []))
                }
                let text = String(decoding: bytes.prefix(40), as: UTF8.self)
                for r in results.dropFirst() {
                    XCTAssertEqual(r.0, results[0].0, "end of \(text) (delimiter \(delimiter))")
                    XCTAssertEqual(r.1.map(\.bitPattern), results[0].1.map(\.bitPattern), "\(text) (delimiter \(delimiter))")
                }
                // A delimiter outside numbers: the values are strtod's of the fields.
                if let (end, values) = results.last, end > 0, delimiter == UInt8(ascii: ";") || delimiter == 9 || delimiter == UInt8(ascii: "|") {
                    let fields = bytes[0..<end].split(separator: delimiter, omittingEmptySubsequences: false)
                    XCTAssertEqual(fields.count, count, text)
                    for (k, field) in fields.enumerated() where k < values.count {
                        XCTAssertEqual(values[k].bitPattern, Double(String(decoding: field, as: UTF8.self))?.bitPattern, text)
                    }
                }
            }
        }
    }

    /// `geofence_line_end`: the first `\n` of 64 bytes, or 64, against a scan.
    func testLineEnd() {
        var g = SeededGenerator(seed: 0x11E)
        for _ in 0..<50_000 {
            var bytes = (0..<80).map { _ in Array("0123456789.,-\r\n\"x".utf8)[Int(g.next() % 16)] }
            // Mostly one newline somewhere in the 64 bytes or none; now and then several.
            if g.next() % 2 == 0 { bytes = bytes.map { $0 == 0x0A ? UInt8(ascii: "0") : $0 } }
            if g.next() % 3 == 0 { bytes[Int(g.next() % 80)] = 0x0A }
            let want = bytes.prefix(64).firstIndex(of: 0x0A) ?? 64
            XCTAssertEqual(Int(geofence_line_end(bytes)), want, String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Every shape of a coordinate, an epoch time and an accuracy, as the one-check row has them.
    func testLogShapes() {
        forEachPath { level in
            var g = SeededGenerator(seed: 7)
            for text in ["1750000000,-51.8698458,77.1606328,27.0", "36.88474,-76.35246", "0,0,0,0", "-0,-0.0,0.5,.5",
                         "1750000000.123,-90,180,0.0000001", "999999999999999,-179.9999999999,89.99999999999,.00000000000001"] {
                let count = text.split(separator: ",").count
                XCTAssertTrue(check(text + "\n", count: count, &g), "\(text), path \(level)")
            }
            var values = [Double](repeating: 0, count: 4)
            XCTAssertEqual(geofence_plain_decimals(Array("-0,5\n".utf8) + [UInt8](repeating: 0, count: 48), 2, UInt8(ascii: ","), &values), 4)
            XCTAssertEqual(values[0].sign, .minus)                          // -0, as strtod
        }
    }

    /// No path reads a byte past the 16 · count the header allows: the run is placed so that
    /// its last allowed byte is the last of a page whose next page may not be read (a read
    /// there would stop the process), for runs it decides (numbers of every length up to 15
    /// bytes, the last one filling the window) and runs it declines.
    func testReadsNothingPastTheRun() throws {
        guard geofence_plain_decimals_level(-1) >= 1 else { throw XCTSkip("no decimal path on this CPU") }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let map = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), map != MAP_FAILED else {
            throw XCTSkip("mmap failed")
        }
        defer { munmap(map, 2 * page) }
        XCTAssertEqual(mprotect(map + page, page, PROT_NONE), 0)
        let end = map.bindMemory(to: UInt8.self, capacity: page) + page
        var g = SeededGenerator(seed: 0x9A6E)
        forEachPath { level in
            var decided = 0
            for _ in 0..<20_000 {
                let count = 1 + Int(g.next() % 4), width = 16 * count
                var bytes: [UInt8] = []
                for k in 0..<count {
                    var n = Array(number(&g).utf8)
                    if n.count > 15 { n = Array(n.prefix(15)) }
                    bytes += n
                    if k < count - 1 { bytes.append(UInt8(ascii: ",")) }
                }
                // Filler up to the window's end: digits now and then, so that the last number
                // may run to the window's last byte (declined: its end is not within it).
                while bytes.count < width { bytes.append(g.next() % 2 == 0 ? UInt8(ascii: "7") : UInt8(ascii: "\n")) }
                bytes = Array(bytes.prefix(width))
                let p = end - width
                p.update(from: bytes, count: width)
                var values = [Double](repeating: .nan, count: 4)
                let e = Int(geofence_plain_decimals(p, Int32(count), UInt8(ascii: ","), &values))
                XCTAssertLessThan(e, width, "path \(level)")
                if e > 0 { decided += 1 }
            }
            // Runs right up to the page's end were decided, not only declined.
            XCTAssertGreaterThan(decided, 0, "path \(level)")
        }
    }

    /// On Linux, a CPU whose flags list AVX2, BMI1 and POPCNT takes a wide path (level 2 or
    /// more): the detection is checked, not only the paths it finds.
    func testWidePathOnAVX2() throws {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else {
            throw XCTSkip("no /proc/cpuinfo flags")
        }
        let set = Set(flags.split(separator: " ").map(String.init))
        guard set.isSuperset(of: ["avx2", "bmi1", "popcnt", "ssse3"]) else { throw XCTSkip("no AVX2 here") }
        XCTAssertGreaterThanOrEqual(geofence_plain_decimals_level(-1), 2)
        if set.isSuperset(of: ["avx512f", "avx512bw", "avx512dq", "avx512vl"]) {
            XCTAssertEqual(geofence_plain_decimals_level(-1), 3)
        }
    }

    /// What it must decline: no digit, a '+', a point without a digit after it, a number of 16
    /// bytes, a number not followed by the delimiter (a second point ends a number there).
    func testDeclines() {
        forEachPath { level in
            var g = SeededGenerator(seed: 11)
            let cases: [(String, Int)] = [("", 1), ("-", 1), (".", 1), ("-.", 1), ("--1", 1), ("+5", 1), ("5.", 1), ("-5.", 1),
                                          ("1.2.3,4", 2), ("1..2", 1), ("1234567890123456", 1), ("123456789012345.6", 2),
                                          ("0.1234567890123456", 2), ("1;2", 2), ("1,,2", 3), ("1,+2", 2), ("1,2.", 2), ("1e5,2", 2), ("1,2-3", 3), ("-123456789012.34", 1),
                                          ("1,2,3," + String(repeating: "1", count: 20), 4), ("1,123456789012345.6", 2)]
            for (text, count) in cases {
                XCTAssertFalse(check(text + "\n", count: count, &g), "\(text), path \(level)")
            }
        }
    }
}
