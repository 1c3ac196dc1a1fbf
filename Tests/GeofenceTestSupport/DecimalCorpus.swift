import CFastDecimal
import Glibc
import GeofenceBase

/// Decimal texts that are hard to convert to `Double`, and the reference they are judged by:
/// the C library's `strtod` in the C locale, called here directly. Used by the unit tests
/// (a sample) and by `geofence-bench --check-parse` (ten million in a release build).
public enum DecimalCorpus {
    /// The C locale for the reference, independent of the parser's own.
    nonisolated(unsafe) private static let cLocale: locale_t? = newlocale(Int32(LC_NUMERIC_MASK), "C", nil)

    /// `strtod` (C locale) of the whole text, nil when it does not consume all of it (or the text is
    /// empty or starts with a blank, which `Double(String)` rejects too).
    public static func reference(_ text: String) -> Double? {
        guard let first = text.utf8.first, first != 0x20, !(0x09...0x0D).contains(first) else { return nil }
        return text.withCString { base -> Double? in
            var end: UnsafeMutablePointer<CChar>? = nil
            let old = uselocale(cLocale)
            let v = strtod(base, &end)
            uselocale(old)
            guard let end, end == UnsafeMutablePointer(mutating: base) + strlen(base) else { return nil }
            return v
        }
    }

    /// `DecimalParser.parse` of the text's UTF-8 bytes.
    public static func ours(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        bytes.append(0)                                 // a valid base address even for ""
        return bytes.withUnsafeBufferPointer { DecimalParser.parse($0.baseAddress!, $0.count - 1) }
    }

    /// Whether the parser's fast paths (Clinger, Eisel–Lemire) answer without `strtod`.
    public static func takesFastPath(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { DecimalParser.fast($0.baseAddress!, $0.count - 1) } != nil
    }

    /// nil when ours and the reference agree bit for bit (any NaN equals any NaN) and in
    /// acceptance; else a description of the difference.
    public static func mismatch(_ text: String) -> String? {
        let a = ours(text), b = reference(text)
        switch (a, b) {
        case (nil, nil): return nil
        case let (x?, y?):
            if x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) { return nil }
            return "\"\(text)\": ours \(x) (0x\(String(x.bitPattern, radix: 16))), strtod \(y) (0x\(String(y.bitPattern, radix: 16)))"
        default:
            return "\"\(text)\": ours \(String(describing: a)), strtod \(String(describing: b))"
        }
    }

    /// nil when the C row path (`geofence_plain_decimals`, at the level set now) declines the
    /// text or gives `strtod`'s value bit for bit, alone and as each of a run of four
    /// (`t,t,t,t`); else a description of the difference. Only a decision on the whole text
    /// counts (the path may decide a prefix: what follows is its caller's to check).
    public static func plainMismatch(_ text: String) -> String? {
        let expected = reference(text)
        for count in [1, 4] {
            guard let values = plainValues(text, count: count) else { continue }
            for v in values where v.bitPattern != expected?.bitPattern {
                let level = geofence_plain_decimals_level(-1)
                return "\"\(text)\" (C path, level \(level), \(count) at once): \(v) (0x\(String(v.bitPattern, radix: 16))), strtod "
                    + (expected.map { "\($0) (0x\(String($0.bitPattern, radix: 16)))" } ?? "refuses it")
            }
        }
        return nil
    }

    /// Whether the C row path (at the level set now) decides the whole text as one number.
    public static func plainDecides(_ text: String) -> Bool { plainValues(text, count: 1) != nil }

    /// The C row path's values for `count` copies of the text separated by `,` (16 · count + 16
    /// readable bytes after them), or nil unless it decides them all, to the end of the last.
    static func plainValues(_ text: String, count: Int) -> [Double]? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        var run: [UInt8] = []
        for i in 0..<count { run += bytes; if i < count - 1 { run.append(UInt8(ascii: ",")) } }
        let whole = run.count
        run += [UInt8](repeating: UInt8(ascii: "\n"), count: 16 * count + 16)
        var values = [Double](repeating: 0, count: 4)
        let end = run.withUnsafeBufferPointer { p in
            values.withUnsafeMutableBufferPointer { geofence_plain_decimals(p.baseAddress!, Int32(count), UInt8(ascii: ","), $0.baseAddress!) }
        }
        return Int(end) == whole ? Array(values.prefix(count)) : nil
    }

    /// `printf`-style formatting through the C library (exact decimal expansions).
    public static func format(_ fmt: String, _ args: CVarArg...) -> String {
        withVaList(args) { list in
            var buf = [CChar](repeating: 0, count: 128)
            let n = buf.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress!, 128, fmt, list) }
            return String(decoding: buf[0..<Int(max(0, min(n, 127)))].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    // MARK: Adversarial set

    /// Named hard cases, exact ties and their neighbours, powers of ten across the whole
    /// exponent range, boundaries of the format (subnormals, min and max normal, overflow),
    /// signs, leading and trailing zeros, long significands: a few thousand texts.
    public static func adversarial() -> [String] {
        var out = [
            "0", "-0", "+0", "0.0", "-0.0", "0e0", "0e-400", "0e400", "000", "0.000", ".0", "0.",
            "1", "-1", "+1", "1.0", "1e0", "1E+0", "1e-0", ".5", "5.", "0.1", "0.2", "0.3", "-0.1",
            "1e23", "-1e23", "8.5e37", "1e22", "1e-22", "1e-23", "9007199254740993", "9007199254740992",
            "9007199254740991", "9007199254740994", "9007199254740995", "18014398509481985", "18014398509481986",
            "4503599627370496.5", "4503599627370497.5", "2251799813685248.25", "2251799813685248.75",
            "7.2057594037927933e16", "9999999999999999999", "999999999999999999.9", "18446744073709551615",
            "18446744073709551616", "12345678901234567890", "1234567890123456789",
            "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "-1.7976931348623157e308",
            "1.797693134862315708e308", "1.797693134862315807e308", "8.98846567431158e307", "1e308", "1e309", "-1e309",
            "2.2250738585072014e-308", "2.2250738585072011e-308", "2.2250738585072012e-308", "2.225073858507201e-308",
            "2.2250738585072013e-308", "2.22507385850720138e-308", "4.9406564584124654e-324", "4.9e-324", "5e-324",
            "2.4703282292062327e-324", "2.4703282292062328e-324", "2.5e-324", "1e-324", "3e-324", "1e-342", "1e-343",
            "1e-400", "123456789012345678e-300", "9999999999999999999e-342", "9999999999999999999e-343",
            "1e-307", "1e-308", "1e-309", "1e-310", "1e-320", "1.5e-323",
            "0.1000000000000000055511151231257827021181583404541015625", "36.884740000000000000000000001",
            "00000000000000000000000036.88474", "36.8847400000000000000", "-0000.00000000001", "+00012.34500e+01",
            "1e0000000000000000000001", "100000000000000000000000000000000e-10", "0.0000000000000000000000000000000000001",
            "-122.4194155", "37.7749295", "-179.9999999", "89.9999999", "1591279897", "1591279897.123456",
            "nan", "-nan", "inf", "-inf", "Infinity", "0x1p3", "0x1.8p1", "", ".", "-", "+", "e5", "1e", "1e+", "1.2.3",
            " 1", "1 ", "--1", "+-1", "1e5.5", "1,5", "1_0",
        ]
        // Powers of ten and their nearest 19-digit neighbours over the whole exponent range.
        for k in -350...320 {
            out += ["1e\(k)", "-1e\(k)", "9.999999999999999999e\(k)", "1.000000000000000001e\(k)", "5e\(k)", "2.5e\(k)"]
        }
        // Exact ties between two doubles with at most 19 significant digits, and their neighbours.
        for k in 53...63 {
            let tie = (UInt64(1) << k) + (UInt64(1) << (k - 53))
            for v in [tie - 1, tie, tie + 1, tie + (UInt64(1) << (k - 52))] { out.append(String(v)) }
        }
        var pow5: UInt64 = 1
        for q in 0...27 {
            // Odd o with o·5^q of exactly 54 bits: o·5^q·2^(q+j) halfway between two doubles.
            if pow5 < 1 << 54 {
                let lo = ((UInt64(1) << 53) + pow5 - 1) / pow5 | 1, hi = ((UInt64(1) << 54) - 1) / pow5
                for o in Set([lo, hi, (lo + hi) / 2 | 1]) where o <= hi && o >= lo {
                    var w = o
                    while w < 1_000_000_000_000_000_000 {
                        out += ["\(w)e\(q)", "\(w - 1)e\(q)", "\(w + 1)e\(q)", "-\(w)e\(q)"]
                        w *= 2
                    }
                }
            }
            pow5 = pow5.multipliedReportingOverflow(by: 5).partialValue
        }
        for q in 1...4 {
            // Ties with a fraction: (2^53 + 2j + 1)·5^q·10^-q = (2^53 + 2j + 1)·2^-q.
            var p: UInt64 = 1
            for _ in 0..<q { p *= 5 }
            for j: UInt64 in [0, 1, 7, 1000] {
                let w = ((UInt64(1) << 53) + 2 * j + 1) * p
                out += ["\(w)e-\(q)", "\(w - 1)e-\(q)", "\(w + 1)e-\(q)"]
            }
        }
        // Halfway points between consecutive doubles near the format's edges, 17 to 19 digits.
        for bits in [UInt64(0x0010_0000_0000_0000), 0x0010_0000_0000_0001, 0x7FEF_FFFF_FFFF_FFFF, 0x7FEF_FFFF_FFFF_FFFE,
                     0x3FF0_0000_0000_0000, 0x4340_0000_0000_0000, 0x000F_FFFF_FFFF_FFFF, 0x0000_0000_0000_0001] {
            out += nearHalfway(Double(bitPattern: bits))
        }
        return out
    }

    // MARK: Plain numbers nearest the halfway points

    /// Plain decimals `[-]digits.digits` of at most 15 bytes (the C row path's numbers: a
    /// significand m below 10^15 over 10^k, k from 1 to 14) as near a point halfway between two
    /// doubles as such numbers come (docs/logs.md, "Numbers"): in units of the spacing between
    /// doubles in [2^e, 2^(e+1)), m / 10^k is an integer plus R / 10^k, R = m · 2^(52 - e) mod
    /// 10^k, a multiple of 2^k (52 - e > k for these numbers), and halfway would be R = 10^k / 2;
    /// these have R = 10^k / 2 ± 2^(k - 1), for every k and binade, on both sides. A conversion
    /// that rounds once in the wrong place, or holds 1 / 10^k too coarsely, gives the other double
    /// for some of them. `perSide` significands per k, binade and side (the smallest in the
    /// binade, then spread over it).
    public static func plainNearHalfway(perSide: Int = 4) -> [String] {
        var out: [String] = []
        for k in 1...14 {
            var ten: UInt64 = 1, five: UInt64 = 1
            for _ in 0..<k { ten *= 10; five *= 5 }
            let modulus = UInt128(five)
            for e in -48...50 {
                // The significands of this binade: m / 10^k in [2^e, 2^(e+1)), m below 10^15.
                let lowM = e >= 0 ? UInt128(ten) << e : (UInt128(ten) + (UInt128(1) << -e) - 1) >> -e
                let highM = e + 1 >= 0 ? UInt128(ten) << (e + 1) : UInt128(ten) >> -(e + 1)
                let limit = Swift.min(highM, UInt128(999_999_999_999_999) + 1)
                guard lowM < limit else { continue }
                let a = 52 - e
                precondition(a > k, "m / 10^k below 10^(15 - k) is below 2^(52 - k)")
                // R = 2^k · (m · 2^(a - k) mod 5^k), so R = 2^k · (5^k ± 1) / 2 where
                // m ≡ (5^k ± 1) / 2 · 2^-(a - k) (mod 5^k); 1/2 mod 5^k is (5^k + 1) / 2.
                for side in [-1, 1] {
                    let r = side > 0 ? (modulus + 1) / 2 : (modulus - 1) / 2
                    let m0 = r * power((modulus + 1) / 2, a - k, modulus) % modulus
                    let first = lowM + (m0 + modulus - lowM % modulus) % modulus
                    guard first < limit else { continue }
                    let steps = (limit - 1 - first) / modulus
                    for i in 0..<perSide {
                        let m = first + (steps * UInt128(i)) / UInt128(Swift.max(perSide - 1, 1)) * modulus
                        guard m < limit, m > 0 else { continue }
                        var digits = String(UInt64(m))
                        if digits.count <= k { digits = String(repeating: "0", count: k + 1 - digits.count) + digits }
                        digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -k))
                        // With a sign when it still fits in 15 bytes.
                        if digits.utf8.count <= 14 { out += [digits, "-" + digits] } else if digits.utf8.count == 15 { out.append(digits) }
                    }
                }
            }
        }
        return out
    }

    /// base^exponent modulo `modulus` (below 2^64, so each product fits in 128 bits).
    static func power(_ base: UInt128, _ exponent: Int, _ modulus: UInt128) -> UInt128 {
        var result: UInt128 = 1, b = base % modulus, n = exponent
        while n > 0 {
            if n & 1 == 1 { result = result * b % modulus }
            b = b * b % modulus
            n >>= 1
        }
        return result
    }

    // MARK: Random set

    /// One random decimal text, of one of the kinds below chosen at random: doubles written by
    /// `%.17g`, `%.Ne` and the shortest round-trip form; 1–19 digit significands with any
    /// exponent; coordinates with 1–15 decimals; texts within 10^-19 of a halfway point between
    /// two doubles; subnormals; and any of those with signs and leading or trailing zeros.
    public static func random(_ g: inout SeededGenerator) -> String {
        let text: String
        switch g.next() % 9 {
        case 0: text = format("%.17g", randomDouble(&g))
        case 1: text = format("%.*e", Int32(g.next() % 19), randomDouble(&g))
        case 2: text = randomDouble(&g).description
        case 3, 4:
            let digits = Int(g.next() % 19) + 1
            var w: UInt64 = 0
            for _ in 0..<digits { w = w &* 10 &+ g.next() % 10 }
            let exponent = Int(g.next() % 700) - 360
            var s = String(w)
            if g.next() % 2 == 0 && s.count > 1 {
                let point = Int(g.next() % UInt64(s.count))
                s.insert(".", at: s.index(s.startIndex, offsetBy: point))
            }
            text = g.next() % 4 == 0 ? s : s + "e\(exponent)"
        case 5:
            let v = Double(bitPattern: g.next() & 0x7FFF_FFFF_FFFF_FFFF) // non-negative, any exponent
            text = v.isFinite ? format("%.17g", v) : "0"
        case 6: text = format("%.*f", Int32(g.next() % 15) + 1, Double(g.next() >> 11) * 0x1p-53 * 360 - 180)
        case 7:
            let forms = nearHalfway(randomDouble(&g))
            text = forms.isEmpty ? "1" : forms[Int(g.next() % UInt64(forms.count))]
        default: text = format("%.17g", Double(bitPattern: g.next() & 0x000F_FFFF_FFFF_FFFF)) // subnormal
        }
        return decorate(text, &g)
    }

    /// A finite double with random bits (about uniform over exponents).
    static func randomDouble(_ g: inout SeededGenerator) -> Double {
        while true {
            let v = Double(bitPattern: g.next())
            if v.isFinite { return v }
        }
    }

    /// Sometimes a sign, leading zeros or trailing zeros (in the fraction) added; same value.
    static func decorate(_ text: String, _ g: inout SeededGenerator) -> String {
        var s = text
        let roll = g.next() % 16
        if roll == 0, !s.hasPrefix("-") { s = "+" + s }
        if roll == 1 {
            let sign = s.hasPrefix("-") || s.hasPrefix("+") ? String(s.removeFirst()) : ""
            s = sign + "000" + s
        }
        if roll == 2, s.contains("."), !s.contains("e"), !s.contains("E") { s += "000" }
        return s
    }

    /// Texts of 17, 18 and 19 significant digits around the halfway point between `v` and the
    /// next double up (computed exactly in extended precision where the platform has it).
    static func nearHalfway(_ v: Double) -> [String] {
        #if arch(x86_64) && !os(Windows)
        let a = v.magnitude, b = a.nextUp
        guard a.isNormal, b.isFinite else { return [] }
        let mid = (Float80(a) + Float80(b)) / 2                   // exact: 54 significant bits
        var out: [String] = []
        for p: Int32 in [16, 17, 18] {
            let s = format("%.*Le", p, mid)
            out.append(s)
            // One unit more and less in the last digit: the other side of the halfway point.
            if let e = s.firstIndex(of: "e") {
                let digits = s[..<e].filter { $0 != "." }, exp = Int(s[s.index(after: e)...])! - Int(p)
                if let w = UInt64(digits) { out += ["\(w + 1)e\(exp)", "\(w - 1)e\(exp)"] }
            }
        }
        return v.sign == .minus ? out.map { "-" + $0 } : out
        #else
        return []
        #endif
    }
}
