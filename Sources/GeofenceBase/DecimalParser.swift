import Glibc

/// Decimal text to `Double`, straight from bytes, with the same result as `Double(String)`.
///
/// The fast path (Clinger's) covers ordinary decimal input: an optional sign, digits, an
/// optional fraction and an optional exponent, with at most 19 significant digits. When
/// the significand fits in 53 bits and the power of ten is exact in a `Double`
/// (10^0 ... 10^22), one IEEE multiplication or division of two exact values is correctly
/// rounded, which is what `strtod` (and so `Double(String)`) returns. Everything else
/// (more digits, large exponents, hex floats, `inf`, `nan`) goes to the C library's `strtod`
/// in the C locale, which is correctly rounded too.
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

    /// The fast path; nil means "not handled here", not "invalid".
    @inline(__always)
    static func fast(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var i = 0
        var negative = false
        if i < n {
            if p[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if p[i] == UInt8(ascii: "+") { i += 1 }
        }
        var m: UInt64 = 0
        var digits = 0          // significant digits accumulated in m
        var exp10 = 0
        var sawDigit = false
        while i < n {
            let d = p[i] &- UInt8(ascii: "0")
            if d > 9 { break }
            sawDigit = true
            if m == 0 && d == 0 {
                // leading zero: nothing to accumulate
            } else if digits < 19 {
                m = m &* 10 &+ UInt64(d); digits += 1
            } else {
                return nil
            }
            i += 1
        }
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            while i < n {
                let d = p[i] &- UInt8(ascii: "0")
                if d > 9 { break }
                sawDigit = true
                if m == 0 && d == 0 {
                    exp10 -= 1
                } else if digits < 19 {
                    m = m &* 10 &+ UInt64(d); digits += 1; exp10 -= 1
                } else {
                    return nil
                }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var eNeg = false
            if i < n {
                if p[i] == UInt8(ascii: "-") { eNeg = true; i += 1 } else if p[i] == UInt8(ascii: "+") { i += 1 }
            }
            var e = 0
            var eDigits = 0
            while i < n {
                let d = p[i] &- UInt8(ascii: "0")
                if d > 9 { break }
                if e < 100_000 { e = e * 10 + Int(d) }
                eDigits += 1
                i += 1
            }
            guard eDigits > 0 else { return nil }
            exp10 += eNeg ? -e : e
        }
        guard i == n else { return nil }
        if m == 0 { return negative ? -0.0 : 0.0 }
        if m > 1 << 53 {
            // Trailing zeros of the significand can move into the exponent.
            while m % 10 == 0 { m /= 10; exp10 += 1 }
            if m > 1 << 53 { return extended(m, exp10, negative) }
        }
        var v = Double(m)   // exact: m ≤ 2^53
        if exp10 == 0 {
        } else if exp10 > 0 {
            if exp10 <= 22 {
                v *= exactPowerOfTen(exp10)
            } else if exp10 <= 22 + 15 {
                // Clinger's extension: move some of the power into the significand if it stays exact.
                let (mm, overflow) = m.multipliedReportingOverflow(by: UInt64(exactPowerOfTen(exp10 - 22)))
                guard !overflow, mm <= 1 << 53 else { return extended(m, exp10, negative) }
                v = Double(mm) * 1e22
            } else {
                return nil
            }
        } else {
            guard exp10 >= -22 else { return extended(m, exp10, negative) }
            v /= exactPowerOfTen(-exp10)
        }
        return negative ? -v : v
    }

    /// 17 to 19 significant digits (Python's `repr`, pandas' `to_csv`) or powers of ten up to
    /// 10^27: the same one-operation idea in x87 extended precision. `m` (< 2^64) and 10^k
    /// (k ≤ 27, as 5^27 < 2^64) are exact in `Float80`, so the product or quotient is the exact
    /// value rounded once to 64 bits; rounding that to 53 bits gives the correctly rounded
    /// `Double` unless the 11 dropped bits are exactly a tie (`0x400`), where the exact value
    /// may lie on either side: those go to `strtod`.
    @inline(__always)
    static func extended(_ m: UInt64, _ exp10: Int, _ negative: Bool) -> Double? {
        #if arch(x86_64) && !os(Windows)
        guard exp10 >= -27 && exp10 <= 27 else { return nil }
        var p: Float80 = 1
        var k = exp10.magnitude
        var base: Float80 = 10
        while k > 0 {                        // 10^k by squaring: every step exact below 2^64
            if k & 1 == 1 { p *= base }
            base *= base
            k >>= 1
        }
        let q = exp10 >= 0 ? Float80(m) * p : Float80(m) / p
        guard q.significandBitPattern & 0x7FF != 0x400 else { return nil }
        let v = Double(q)
        return negative ? -v : v
        #else
        return nil
        #endif
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
