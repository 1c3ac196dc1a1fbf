import XCTest
import GeofenceTestSupport
@testable import GeofenceBase

/// `DecimalParser` bit for bit against the C library's `strtod` (`DecimalCorpus.reference`) and in
/// acceptance against `Double(String)`. The ten-million check is `geofence-bench --check-parse`.
final class DecimalParserTests: XCTestCase {
    func fast(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { DecimalParser.fast($0.baseAddress!, $0.count - 1) }
    }

    /// Same bits as `strtod`, same acceptance as `Double(String)`.
    func assertSame(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        if let m = DecimalCorpus.mismatch(text) { XCTFail(m, file: file, line: line) }
        XCTAssertEqual(DecimalCorpus.ours(text) == nil, Double(text) == nil, "\"\(text)\" accepted differently", file: file, line: line)
    }

    func testOrdinaryValuesTakeTheFastPath() {
        for text in ["36.88474", "-76.35246", "0", "-0", "180", "-90.000000", "1591279897", "1591279897.123456",
                     "12.5", "1e1", "3.688475e1", "+0.5", ".5", "5.", "0.000001", "9007199254740992", "1e37",
                     "-122.41941550000001", "36.056551367726810", "1234567890123456789", "1e-300", "1e300", "1e23"] {
            XCTAssertNotNil(fast(text), text)
            assertSame(text)
        }
        XCTAssertEqual(DecimalCorpus.ours("-0")!.sign, .minus)
    }

    /// Named cases, exact ties and their neighbours, every power of ten, format edges.
    func testAdversarialSetMatchesStrtod() {
        let texts = DecimalCorpus.adversarial()
        XCTAssertGreaterThan(texts.count, 4_000)
        for text in texts { assertSame(text) }
        XCTAssertTrue(DecimalCorpus.ours("nan")!.isNaN)
        XCTAssertEqual(DecimalCorpus.ours("-inf"), -.infinity)
    }

    /// Exact ties with at most 19 digits: decided by the fast paths, rounded half to even.
    func testExactTiesRoundHalfToEven() {
        XCTAssertEqual(fast("9007199254740993"), 9007199254740992)       // 2^53 + 1 → even 2^53
        XCTAssertEqual(fast("9007199254740995"), 9007199254740996)       // 2^53 + 3 → even 2^53 + 4
        XCTAssertEqual(fast("1152921504606846977e0"), 0x1p60)             // 2^60 + 1: below the halfway point
        XCTAssertEqual(fast("1152921504606847104"), 0x1p60)               // 2^60 + 2^7: a tie, to even
        XCTAssertEqual(fast("1152921504606847105"), 0x1p60 + 256)         // just above it
        for k in 53...63 {
            let tie = (UInt64(1) << k) + (UInt64(1) << (k - 53))
            for v in [tie - 1, tie, tie + 1] {
                XCTAssertNotNil(fast(String(v)), String(v))
                assertSame(String(v))
            }
        }
    }

    /// Random texts of every kind (`DecimalCorpus.random`), seeded.
    func testRandomSetMatchesStrtod() {
        var g = SeededGenerator(seed: 20_260_905)
        var fastCount = 0
        let n = 800_000
        for _ in 0..<n {
            let text = DecimalCorpus.random(&g)
            if let m = DecimalCorpus.mismatch(text) { XCTFail(m); break }
            if DecimalCorpus.takesFastPath(text) { fastCount += 1 }
        }
        XCTAssertGreaterThan(fastCount, n * 8 / 10, "most random texts are decided without strtod")
    }

    /// Up to 19 digits and a normal result: strtod almost never needed.
    func testEiselLemireDecidesAlmostAll() {
        var g = SeededGenerator(seed: 7)
        var slow = 0
        for _ in 0..<100_000 {
            let w = g.next() % 10_000_000_000_000_000_000
            let text = "\(max(w, 1))e\(Int(g.next() % 580) - 300)"
            if fast(text) == nil { slow += 1 }
            assertSame(text)
        }
        XCTAssertLessThan(slow, 10)
    }

    /// Eight (and four) bytes at once against a digit-by-digit reference, bytes near the digits included
    /// ('/' and ':' border '0' and '9'; 0xFA... can carry when 6 is added).
    func testEightDigitsAtOnce() {
        let alphabet: [UInt8] = Array("0123456789/:.e-".utf8) + [0x00, 0x20, 0xB0, 0xFA, 0xFF, 0x39 + 0x80]
        var g = SeededGenerator(seed: 11)
        for k in 0..<200_000 {
            let bytes: [UInt8] = (0..<8).map { j in
                k % 3 == 0 ? alphabet[g.int(alphabet.count)] : (k % 3 == 1 && j == k % 8 ? alphabet[g.int(alphabet.count)] : UInt8(48 + g.int(10)))
            }
            var expected: UInt64? = 0
            for b in bytes {
                guard b >= 48 && b <= 57, let e = expected else { expected = nil; break }
                expected = e * 10 + UInt64(b - 48)
            }
            let got = bytes.withUnsafeBufferPointer { DecimalParser.eightDigits($0.baseAddress!) }
            XCTAssertEqual(got, expected, "\(bytes)")
            var expected4: UInt64? = 0
            for b in bytes[0..<4] {
                guard b >= 48 && b <= 57, let e = expected4 else { expected4 = nil; break }
                expected4 = e * 10 + UInt64(b - 48)
            }
            let got4 = bytes.withUnsafeBufferPointer { DecimalParser.fourDigits($0.baseAddress!) }
            XCTAssertEqual(got4, expected4, "\(bytes[0..<4])")
        }
    }

    /// Random strings over the characters of numbers: acceptance and values as `strtod`.
    func testRandomDigitStrings() {
        let alphabet = Array("0123456789.+-eE")
        var g = SeededGenerator(seed: 3)
        for _ in 0..<100_000 {
            let n = g.int(1..<25)
            var s = ""
            for _ in 0..<n {
                // Mostly digits, so that many strings are numbers.
                s.append(g.int(4) == 0 ? alphabet[g.int(alphabet.count)] : alphabet[g.int(10)])
            }
            assertSame(s)
        }
    }

    /// The table of 5^q against exact big-integer arithmetic written here: T = floor(5^q / 2^g),
    /// g = floor(q·log2 5) − 127, in [2^127, 2^128).
    func testPowersOfFiveTable() {
        let table = DecimalParser.powersOfFive
        XCTAssertEqual(table.count, 2 * (DecimalParser.maxPowerOfFive - DecimalParser.minPowerOfFive + 1))
        for q in DecimalParser.minPowerOfFive...DecimalParser.maxPowerOfFive {
            let i = 2 * (q - DecimalParser.minPowerOfFive)
            let t = BigNat(words: [table[i + 1], table[i]])
            XCTAssertEqual(t.bitWidth, 128, "5^\(q)")
            let pow5 = BigNat.power(5, UInt32(q.magnitude))
            // floor(q·log2 5) from the bit length of 5^|q| (never a power of two for q ≠ 0).
            let floorLog = q >= 0 ? pow5.bitWidth - 1 : -pow5.bitWidth
            XCTAssertEqual(floorLog, (q * 152_170) >> 16, "5^\(q)")
            let g = floorLog - 127
            if q >= 0 {
                // T·2^g ≤ 5^q < (T+1)·2^g, with 2^g on the side where it is an integer.
                let lhs = g >= 0 ? t.shifted(left: g) : t, rhs = g >= 0 ? pow5 : pow5.shifted(left: -g)
                XCTAssertTrue(lhs <= rhs && rhs < (g >= 0 ? (t + 1).shifted(left: g) : t + 1), "5^\(q)")
            } else {
                // T ≤ 2^-g / 5^|q| < T + 1.
                let two = BigNat(words: [1]).shifted(left: -g)
                XCTAssertTrue(t * pow5 <= two && two < (t + 1) * pow5, "5^\(q)")
            }
        }
    }
}

/// A minimal unsigned big integer (32-bit limbs, little-endian) for checking the table.
struct BigNat: Comparable {
    var limbs: [UInt32]

    init(words: [UInt64]) {
        limbs = words.flatMap { [UInt32(truncatingIfNeeded: $0), UInt32(truncatingIfNeeded: $0 >> 32)] }
        normalize()
    }

    init(limbs: [UInt32]) { self.limbs = limbs; normalize() }

    mutating func normalize() { while limbs.last == 0 { limbs.removeLast() } }

    var bitWidth: Int { limbs.isEmpty ? 0 : 32 * (limbs.count - 1) + (32 - limbs.last!.leadingZeroBitCount) }

    static func power(_ base: UInt32, _ e: UInt32) -> BigNat {
        var r = BigNat(words: [1])
        for _ in 0..<e { r = r * BigNat(limbs: [base]) }
        return r
    }

    func shifted(left n: Int) -> BigNat {
        var out = [UInt32](repeating: 0, count: n / 32) + limbs + [0]
        let s = n % 32
        if s > 0 {
            var carry: UInt32 = 0
            for k in (n / 32)..<out.count {
                let v = out[k]
                out[k] = v << s | carry
                carry = v >> (32 - s)
            }
        }
        return BigNat(limbs: out)
    }

    static func * (a: BigNat, b: BigNat) -> BigNat {
        var out = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count + 1)
        for (i, x) in a.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, y) in b.limbs.enumerated() {
                let t = UInt64(x) * UInt64(y) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            var k = i + b.limbs.count
            while carry > 0 {
                let t = UInt64(out[k]) + carry
                out[k] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
                k += 1
            }
        }
        return BigNat(limbs: out)
    }

    static func + (a: BigNat, b: Int) -> BigNat {
        var out = a.limbs + [0]
        var carry = UInt64(b)
        var k = 0
        while carry > 0 {
            let t = UInt64(out[k]) + carry
            out[k] = UInt32(truncatingIfNeeded: t)
            carry = t >> 32
            k += 1
        }
        return BigNat(limbs: out)
    }

    static func < (a: BigNat, b: BigNat) -> Bool {
        if a.limbs.count != b.limbs.count { return a.limbs.count < b.limbs.count }
        for k in stride(from: a.limbs.count - 1, through: 0, by: -1) where a.limbs[k] != b.limbs[k] {
            return a.limbs[k] < b.limbs[k]
        }
        return false
    }
}
