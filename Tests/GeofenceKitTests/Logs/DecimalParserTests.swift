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

final class DecimalParserTests: XCTestCase {
    /// Our parse of `text` (nil when rejected).
    func parse(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        bytes.append(0)                                  // a valid base address even for ""
        return bytes.withUnsafeBufferPointer { DecimalParser.parse($0.baseAddress!, $0.count - 1) }
    }

    func fast(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { DecimalParser.fast($0.baseAddress!, $0.count - 1) }
    }

    /// Same acceptance as `Double(String)`, and bit-identical values.
    func assertSame(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let ours = parse(text), reference = Double(text)
        switch (ours, reference) {
        case (nil, nil): break
        case let (a?, b?):
            if a.isNaN && b.isNaN { break }
            XCTAssertEqual(a.bitPattern, b.bitPattern, "\"\(text)\": \(a) vs Double(String) \(b)", file: file, line: line)
        default:
            XCTFail("\"\(text)\": ours \(String(describing: ours)), Double(String) \(String(describing: reference))", file: file, line: line)
        }
    }

    func testOrdinaryValuesTakeTheFastPath() {
        for text in ["36.88474", "-76.35246", "0", "-0", "180", "-90.000000", "1591279897", "1591279897.123456",
                     "12.5", "1e1", "3.688475e1", "+0.5", ".5", "5.", "0.000001", "9007199254740992", "1e37"] {
            XCTAssertNotNil(fast(text), text)
            assertSame(text)
        }
        XCTAssertEqual(parse("-0")!.sign, .minus)
    }

    func testSpecialAndInvalidInputs() {
        for text in ["", ".", "-", "+", "e5", "1e", "1e+", "1.2.3", "1,5", " 1", "1 ", "--1", "+-1", "1e5.5", "0x", "abc",
                     "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "infinity", "1e400", "-1e400", "1e-400", "0x1p3", "0x1.8p1",
                     "4.9e-324", "2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308",
                     "9007199254740993", "9007199254740992", "18014398509481985", "1e22", "1e23", "8.5e37", "1e-22", "1e-23",
                     "123456789012345678901234567890", "0.1000000000000000055511151231257827021181583404541015625",
                     "36.884740000000000000000000001", "00000000000000000000000036.88474", "1_0", "1e0000000000000000000001",
                     "7.2057594037927933e16", "0.0000000000000000000000000000000000001", "100000000000000000000000000000000e-10"] {
            assertSame(text)
        }
        XCTAssertTrue(parse("nan")!.isNaN)
        XCTAssertEqual(parse("-inf"), -.infinity)
    }

    /// Random doubles written the ways logs write them, read back bit for bit like `Double(String)`.
    func testRandomValuesMatchDoubleString() {
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for k in 0..<60_000 {
            let v: Double
            switch k % 4 {
            case 0: v = Double.random(in: -90...90, using: &rng)
            case 1: v = Double.random(in: -180...180, using: &rng)
            case 2: v = Double.random(in: 1e9...2e9, using: &rng)
            default: v = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
            }
            guard v.isFinite else { continue }
            var forms = [v.description, "\(v)", String(format: "%.17g", v), String(format: "%.\(k % 16)e", v)]
            if v.magnitude < 1e16 { forms.append(String(format: "%.\(k % 13)f", v)) }
            for text in forms { assertSame(text); checked += 1 }
        }
        XCTAssertGreaterThan(checked, 200_000)
    }

    /// 17 to 19 significant digits take the extended-precision path; ties go to strtod.
    func testLongSignificands() {
        XCTAssertNotNil(fast("36.056551367726810"))
        XCTAssertNotNil(fast("-75.55217251294066"))
        XCTAssertNotNil(fast("1234567890123456789"))
        XCTAssertNil(fast("9007199254740993"), "a tie between two doubles")
        for k in 53...63 {
            let tie = (UInt64(1) << k) + (UInt64(1) << (k - 53))
            for v in [tie - 1, tie, tie + 1] where String(v).count <= 19 { assertSame(String(v)) }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let digits = Int.random(in: 16...19, using: &rng)
            var text = String(UInt64.random(in: 1...UInt64.max, using: &rng) % 10_000_000_000_000_000_000)
            text = String(text.prefix(digits))
            let point = Int.random(in: 0...text.count, using: &rng)
            text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            if Bool.random(using: &rng) { text += "e\(Int.random(in: -12...12, using: &rng))" }
            if Bool.random(using: &rng) { text = "-" + text }
            assertSame(text)
        }
    }

    /// Random strings over the characters of numbers: acceptance and values as `Double(String)`.
    func testRandomDigitStrings() {
        let alphabet = Array("0123456789.+-eE")
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100_000 {
            let n = Int.random(in: 1...24, using: &rng)
            var s = ""
            for _ in 0..<n {
                // Mostly digits, so that many strings are numbers.
                s.append(Int.random(in: 0..<4, using: &rng) == 0 ? alphabet.randomElement(using: &rng)! : alphabet[Int.random(in: 0..<10, using: &rng)])
            }
            assertSame(s)
        }
    }
}
