import Glibc

/// Decimal text to `Double`, straight from bytes, with the same result as `Double(String)`.
///
/// Three paths, all correctly rounded (docs/logs.md, "Numbers"), for text that is an optional
/// sign, digits, an optional fraction and an optional exponent:
/// - **Clinger's**: a significand of at most 53 bits and a power of ten that is an exact
///   `Double` (10^0 ... 10^22): one IEEE multiplication or division of two exact values.
/// - **Eisel–Lemire** (``eiselLemire(_:_:_:)``), up to 19 significant digits and any exponent
///   of the table: the significand times a 128-bit significand of 5^q, with a test that the
///   rounding is certain.
/// - `strtod` in the C locale for the rest: more than 19 significant digits, hex floats,
///   `inf`, `nan`, subnormal or overflowing results, and the rare products the second path
///   cannot decide.
package enum DecimalParser {
    /// Parses all of `p[0..<n]` (no surrounding blanks). Returns nil when the bytes are not a
    /// number; `nan` and `inf` spellings and overflowing exponents come back as non-finite
    /// values for the caller to reject.
    /// - Complexity: O(n).
    @inline(__always)
    package static func parse(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        if let v = fast(p, n) { return v }
        return slow(p, n)
    }

    /// The fast paths; nil means "not handled here", not "invalid".
    ///
    /// Digits are accumulated eight or four at a time where that many are there
    /// (``eightDigits(_:)``, ``fourDigits(_:)``), else one at a time, without a check per
    /// digit: the count of significant digits is worked out afterwards, and more than 19
    /// (where the sum may have wrapped) go to `strtod`.
    @inline(__always)
    package static func fast(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var i = 0
        var negative = false
        if n > 0 && (p[0] == UInt8(ascii: "-") || p[0] == UInt8(ascii: "+")) {
            negative = p[0] == UInt8(ascii: "-")
            i = 1
        }
        let start = i
        var m: UInt64 = 0
        digits(p, n, &i, &m)
        let intDigits = i &- start
        var fracDigits = 0
        if i < n && p[i] == UInt8(ascii: ".") {
            i &+= 1
            let fracStart = i
            digits(p, n, &i, &m)
            fracDigits = i &- fracStart
        }
        guard intDigits + fracDigits > 0 else { return nil }
        if intDigits + fracDigits > 19 {
            // Leading zeros (before or after the point) are not significant; beyond 19
            // significant digits m may have wrapped.
            var zeros = 0, k = start
            while k < n && (p[k] == UInt8(ascii: "0") || p[k] == UInt8(ascii: ".")) {
                if p[k] == UInt8(ascii: "0") { zeros &+= 1 }
                k &+= 1
            }
            if intDigits + fracDigits - zeros > 19 { return nil }
        }
        var exp10 = -fracDigits
        if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
            i &+= 1
            var eNeg = false
            if i < n {
                if p[i] == UInt8(ascii: "-") { eNeg = true; i &+= 1 } else if p[i] == UInt8(ascii: "+") { i &+= 1 }
            }
            var e = 0
            let eStart = i
            while i < n {
                let d = p[i] &- UInt8(ascii: "0")
                if d > 9 { break }
                if e < 100_000 { e = e &* 10 &+ Int(d) }
                i &+= 1
            }
            guard i > eStart else { return nil }
            exp10 += eNeg ? -e : e
        }
        guard i == n else { return nil }
        if m == 0 { return negative ? -0.0 : 0.0 }
        if m <= 1 << 53 && exp10 >= -22 && exp10 <= 22 {
            // Clinger: both operands exact, so one IEEE operation rounds the exact value once.
            var v = Double(m)
            if exp10 > 0 { v *= exactPowerOfTen(exp10) } else if exp10 < 0 { v /= exactPowerOfTen(-exp10) }
            return negative ? -v : v
        }
        return eiselLemire(m, exp10, negative)
    }

    /// Accumulates the run of decimal digits at `p[i...]` (before `n`) into `m` (wrapping),
    /// advancing `i` past it: eight at a time, then four, then one by one.
    @inline(__always)
    static func digits(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ m: inout UInt64) {
        var q = p + i
        let end = p + n
        while end - q >= 8, let v = eightDigits(q) {
            m = m &* 100_000_000 &+ v
            q += 8
        }
        if end - q >= 4, let v = fourDigits(q) {
            m = m &* 10_000 &+ v
            q += 4
        }
        while q < end {
            let d = q.pointee &- UInt8(ascii: "0")
            if d > 9 { break }
            m = m &* 10 &+ UInt64(d)
            q += 1
        }
        i = q - p
    }

    /// The value of the four bytes at `p` when all are ASCII digits, else nil (as
    /// ``eightDigits(_:)`` on 32 bits).
    @inline(__always)
    static func fourDigits(_ p: UnsafePointer<UInt8>) -> UInt64? {
        let v = UInt32(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))
        let high: UInt32 = 0xF0F0_F0F0
        guard (v & high) | (((v &+ 0x0606_0606) & high) >> 4) == 0x3333_3333 else { return nil }
        var x = v &- 0x3030_3030
        x = x &* 10 &+ (x >> 8)                      // bytes 0 and 2: d0d1, d2d3
        return UInt64((x & 0xFF) &* 100 &+ ((x >> 16) & 0xFF))
    }

    /// The value of the eight bytes at `p` when all are ASCII digits, else nil (SWAR: one
    /// 64-bit load, three multiplications).
    @inline(__always)
    static func eightDigits(_ p: UnsafePointer<UInt8>) -> UInt64? {
        let v = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))  // first byte lowest
        // A byte is a digit when its high nibble is 3 and stays 3 after adding 6 (0x30...0x39);
        // a carry out of a byte only happens for bytes ≥ 0xFA, which fail the first test.
        let high: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        guard (v & high) | (((v &+ 0x0606_0606_0606_0606) & high) >> 4) == 0x3333_3333_3333_3333 else { return nil }
        var x = v &- 0x3030_3030_3030_3030            // digits d0 (first) ... d7, one per byte
        x = x &* 10 &+ (x >> 8)                      // bytes 0, 2, 4, 6: d0d1, d2d3, d4d5, d6d7 (0...99)
        // High halves: d0d1·10^6 + d4d5·10^2 (bytes 0 and 4 times 10^6·2^32 + 100) plus
        // d2d3·10^4 + d6d7 (bytes 2 and 6, moved down, times 10^4·2^32 + 1); low halves stay < 2^32.
        let pairs: UInt64 = 0x0000_00FF_0000_00FF
        x = (x & pairs) &* (100 &+ (1_000_000 << 32)) &+ ((x >> 16) & pairs) &* (1 &+ (10_000 << 32))
        return x >> 32
    }

    /// `w × 10^q` correctly rounded for 1 ≤ w < 2^64, or nil when this path cannot decide
    /// (then `strtod` does): results that would be subnormal or overflow, exponents outside
    /// the table, and the rare products too close to a halfway point between two doubles.
    ///
    /// With `w` shifted left until its top bit is set (`w'`, by `lz` bits) and `T` the
    /// 128-bit significand of 5^q (``powersOfFive``: `5^q = T·2^g`, truncated, exact for
    /// 0 ≤ q ≤ 55), the value is `Y·2^(g+q−lz)` with `Y = w'·5^q·2^−g`, a 192-bit number that
    /// `P = w'·T` approximates from below: `P ≤ Y < P + w'` (`Y = P` when T is exact).
    /// A double keeps Y's top 53 bits and rounds on the next one; the result is certain unless
    /// a halfway point (round bit set, all lower bits zero) lies in the interval where Y can be.
    /// First only `A = w'·T_high` (one 64×64→128 multiplication): Y/2^64 lies in
    /// [A, A + 2^64), narrow enough for all but about one input in a thousand. Otherwise
    /// `P` in full (a second multiplication by `T_low`): Y in [P, P + w') decides all but
    /// about 2^-74 of those, and every exact tie when T is exact (round half to even).
    /// - Complexity: O(1).
    @inline(__always)
    static func eiselLemire(_ w: UInt64, _ q: Int, _ negative: Bool) -> Double? {
        guard q >= minPowerOfFive && q <= maxPowerOfFive else { return nil }
        let lz = w.leadingZeroBitCount
        let wn = w &<< UInt64(lz)
        let index = (q &- minPowerOfFive) &* 2
        let (ah, al) = wn.multipliedFullWidth(by: powersOfFive[index])      // A ≥ 2^126
        var top = Int(ah >> 63)               // 1 when A's top bit is bit 127, else 0 (bit 126)
        var roundBit: UInt64 = 1 &<< UInt64(9 &+ top)  // the bit after the 53 kept, in the high word
        var high = ah
        var roundUp: Bool
        let r = ah & (roundBit &<< 1 &- 1)
        if r == roundBit &- 1 || (r == roundBit && al == 0) {
            // A halfway point may lie in [A, A + 2^64): the full product P = A·2^64 + w'·T_low.
            let (bh, bl) = wn.multipliedFullWidth(by: powersOfFive[index &+ 1])
            let (p1, carry) = al.addingReportingOverflow(bh)
            let p2 = ah &+ (carry ? 1 : 0)    // no overflow: P < 2^192
            top = Int(p2 >> 63)
            roundBit = 1 &<< UInt64(9 &+ top)
            high = p2
            let r2 = p2 & (roundBit &<< 1 &- 1)
            let exact = q >= 0 && q <= 55
            if r2 == roundBit && p1 == 0 && bl == 0 {
                // P is a halfway point: a tie when exact, else Y lies just above it or on it.
                guard exact else { return nil }
                roundUp = (p2 >> UInt64(10 &+ top)) & 1 == 1           // half to even
            } else {
                // Y in [P, P + w') reaches a halfway point above P (P's low 138 or 139 bits
                // in (halfway − w', halfway)).
                if !exact && r2 == roundBit &- 1 && p1 == .max && bl.addingReportingOverflow(wn).overflow {
                    return nil
                }
                roundUp = r2 > roundBit || (r2 == roundBit && (p1 | bl) != 0)
            }
        } else {
            roundUp = r >= roundBit           // r == roundBit with al == 0 went to the branch above
        }
        var mantissa = high >> UInt64(10 &+ top)        // 53 bits, bit 52 set
        // Binary exponent of Y·2^(g+q−lz): Y's top bit is 190 + top, g = floor(q·log2 5) − 127.
        var e = 63 &+ top &+ ((q &* 152_170) >> 16) &+ q &- lz
        if roundUp {
            mantissa &+= 1
            if mantissa == 1 << 53 { mantissa = 1 << 52; e &+= 1 }
        }
        guard e >= -1022 && e <= 1023 else { return nil }
        let bits = UInt64(e &+ 1023) << 52 | (mantissa & (1 << 52 - 1)) | (negative ? 1 << 63 : 0)
        return Double(bitPattern: bits)
    }

    /// 10^e for 0 ≤ e ≤ 22, every one exactly representable.
    @inline(__always)
    package static func exactPowerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// The C locale, so `strtod` reads "." as the decimal point whatever `setlocale` said.
    nonisolated(unsafe) static let cLocale: locale_t? = newlocale(Int32(LC_NUMERIC_MASK), "C", nil)

    /// `strtod` on a NUL-terminated copy; the whole field must be consumed. Leading blanks
    /// (which `strtod` would skip) are rejected, as `Double(String)` does.
    @inline(never)
    static func slow(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        guard n > 0, n < 4096 else { return nil }
        let first = p[0]
        if first == 0x20 || (first >= 0x09 && first <= 0x0D) { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buf -> Double? in
            let base = buf.baseAddress!
            for k in 0..<n {
                if p[k] == 0 { return nil }
                base[k] = CChar(bitPattern: p[k])
            }
            base[n] = 0
            var end: UnsafeMutablePointer<CChar>? = nil
            let old = uselocale(cLocale)
            let v = strtod(base, &end)
            uselocale(old)
            guard let end, end == base + n else { return nil }
            return v
        }
    }
}
