import GeofenceBase

/// Fix times from bytes: ISO 8601 date-times and Unix seconds, without Foundation.
///
/// Accepted (docs/logs.md):
/// - ISO 8601 extended format `YYYY-MM-DD` + `T` (or `t`, or one space) + `hh:mm[:ss[.fraction]]`
///   + zone `Z` / `z` / `±hh:mm` / `±hhmm` / `±hh`. A date-time without a zone is read as UTC
///   (MarineCadastre's AIS CSV writes UTC that way). Seconds may be 60 (a leap second lands on
///   the next minute, as POSIX time does). The fraction may have any number of digits (`,` also
///   accepted as ISO allows).
/// - Unix seconds: any number ``DecimalParser`` accepts (`1591279897`, `1591279897.25`, `1.5e9`).
///
/// A field is ISO 8601 when its fifth byte is `-` (`YYYY-`); anything else is read as a number.
public enum LogTime {
    /// The earliest time a log may hold: 0001-01-01T00:00:00Z, Unix seconds.
    public static let earliest = -62_135_596_800.0
    /// The latest time a log may hold: 9999-12-31T23:59:59Z, Unix seconds.
    public static let latest = 253_402_300_799.0

    /// Parses `p[0..<n]`. Returns nil when the text is not a time; a number spelled `nan` or `inf`
    /// comes back non-finite for the caller to reject. Numbers are Unix seconds here.
    /// - Complexity: O(n).
    @inline(__always)
    static func parse(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        parseKind(p, n)?.0
    }

    /// Parses `p[0..<n]` and says whether it was a number (an epoch time whose unit the caller
    /// applies) or an ISO 8601 date-time (Unix seconds).
    /// - Complexity: O(n).
    @inline(__always)
    static func parseKind(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Bool)? {
        parseZoned(p, n).map { ($0.0, $0.1) }
    }

    /// As ``parseKind(_:_:)``, with the UTC offset written (minutes east; 0 for `Z`, no zone
    /// and numbers).
    @inline(__always)
    static func parseZoned(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Bool, Int16)? {
        if n == 20, let v = parseUTCSeconds(p) { return (v, false, 0) }
        if n >= 10 && p[4] == UInt8(ascii: "-") { return parseISOZoned(p, n).map { ($0.0, false, $0.1) } }
        if n >= 13 && n <= 40 && (p[8] == UInt8(ascii: "T") || p[8] == UInt8(ascii: "t")) {
            if let v = parseBasic(p, n) { return (v.0, false, v.1) }
        }
        return DecimalParser.parse(p, n).map { ($0, true, 0) }
    }

    /// ISO 8601 basic format: `YYYYMMDD` + `T` + `hhmm[ss[.fraction]]` + an optional zone (`Z`,
    /// `±hh`, `±hhmm`, `±hh:mm`). Rewritten to the extended form and parsed as that. (A date
    /// alone in basic form is not read: `20240501` is a number.)
    static func parseBasic(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int16)? {
        func digits(_ from: Int, _ count: Int) -> Bool {
            from + count <= n && (from..<from + count).allSatisfy { p[$0] &- UInt8(ascii: "0") <= 9 }
        }
        guard digits(0, 8) else { return nil }
        var text: [UInt8] = [p[0], p[1], p[2], p[3], UInt8(ascii: "-"), p[4], p[5], UInt8(ascii: "-"), p[6], p[7]]
        guard digits(9, 4) else { return nil }
        text += [UInt8(ascii: "T"), p[9], p[10], UInt8(ascii: ":"), p[11], p[12]]
        var i = 13
        if digits(13, 2) {
            text += [UInt8(ascii: ":"), p[13], p[14]]
            i = 15
        }
        while i < n { text.append(p[i]); i += 1 }
        return parseISOZoned(text, text.count)
    }

    /// Parses a time given as a Swift string (tests, command-line arguments): Unix seconds, UTC.
    /// Nil for empty text or text that is not a time; `nan` / `inf` come back non-finite.
    /// - Complexity: O(length of `text`).
    public static func parse(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        let n = bytes.count
        guard n > 0 else { return nil }
        return bytes.withUnsafeMutableBufferPointer { parse(UnsafePointer($0.baseAddress!), n) }
    }

    @inline(__always)
    private static func twoDigits(_ p: UnsafePointer<UInt8>, _ i: Int) -> Int? {
        let a = p[i] &- UInt8(ascii: "0"), b = p[i + 1] &- UInt8(ascii: "0")
        guard a <= 9, b <= 9 else { return nil }
        return Int(a) * 10 + Int(b)
    }

    static func parseISO(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        parseISOZoned(p, n)?.0
    }

    /// An ISO 8601 extended date-time and its UTC offset in minutes east (0 without one).
    static func parseISOZoned(_ p: UnsafePointer<UInt8>, _ n: Int) -> (Double, Int16)? {
        // YYYY-MM-DD
        guard n >= 10, let y1 = twoDigits(p, 0), let y2 = twoDigits(p, 2), p[4] == UInt8(ascii: "-"),
              let month = twoDigits(p, 5), p[7] == UInt8(ascii: "-"), let day = twoDigits(p, 8) else { return nil }
        let year = y1 * 100 + y2
        guard month >= 1, month <= 12, day >= 1, day <= daysInMonth(year, month) else { return nil }
        if n == 10 { return (Double(daysFromCivil(year, month, day) * 86_400), 0) }   // a date alone: midnight UTC
        guard n >= 16 else { return nil }
        let sep = p[10]
        guard sep == UInt8(ascii: "T") || sep == UInt8(ascii: "t") || sep == UInt8(ascii: " ") else { return nil }
        // hh:mm
        guard let hour = twoDigits(p, 11), p[13] == UInt8(ascii: ":"), let minute = twoDigits(p, 14),
              hour <= 23, minute <= 59 else { return nil }
        var i = 16
        var second = 0
        var fracStart = 0, fracEnd = 0
        if i < n && p[i] == UInt8(ascii: ":") {
            guard i + 3 <= n, let s = twoDigits(p, i + 1), s <= 60 else { return nil }
            second = s
            i += 3
            if i < n && (p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: ",")) {
                i += 1
                fracStart = i
                while i < n && p[i] &- UInt8(ascii: "0") <= 9 { i += 1 }
                fracEnd = i
                guard fracEnd > fracStart else { return nil }
            }
        }
        var offset = 0
        // One space may separate the time from its zone (`08:00:00 +02:00`, `08:00:00 Z`).
        if i + 1 < n && p[i] == UInt8(ascii: " ") { i += 1 }
        if i < n {
            let z = p[i]
            if z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") {
                i += 1
            } else if z == UInt8(ascii: "+") || z == UInt8(ascii: "-") {
                i += 1
                guard i + 2 <= n, let oh = twoDigits(p, i), oh <= 23 else { return nil }
                i += 2
                var om = 0
                if i < n {
                    if p[i] == UInt8(ascii: ":") { i += 1 }
                    guard i + 2 <= n, let m = twoDigits(p, i), m <= 59 else { return nil }
                    om = m
                    i += 2
                }
                offset = (oh * 60 + om) * 60
                if z == UInt8(ascii: "-") { offset = -offset }
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        let seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second - offset
        let minutes = Int16(offset / 60)
        if fracEnd == fracStart { return (Double(seconds), minutes) }
        return combine(seconds, p + fracStart, fracEnd - fracStart).map { ($0, minutes) }
    }

    /// `seconds + 0.fraction`, correctly rounded: exact integer arithmetic then one division
    /// when it fits, else the decimal text through ``DecimalParser``.
    private static func combine(_ seconds: Int, _ f: UnsafePointer<UInt8>, _ k: Int) -> Double? {
        if k <= 9 {
            // Far years with a long fraction overflow 64 bits here: then the slower path below.
            var scaled = seconds, overflow = false
            for j in 0..<k {
                let (m, o1) = scaled.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int(f[j] &- UInt8(ascii: "0")))
                scaled = a
                overflow = overflow || o1 || o2
            }
            if !overflow && scaled.magnitude <= 1 << 53 {
                return Double(scaled) / DecimalParser.exactPowerOfTen(k)
            }
        }
        guard seconds >= 0 else {
            // Before 1970 with a long fraction: seconds + fraction (within one ulp).
            var frac = 0.0
            var scale = 0.1
            for j in 0..<k { frac += Double(f[j] &- UInt8(ascii: "0")) * scale; scale /= 10 }
            return Double(seconds) + frac
        }
        var text = Array(String(seconds).utf8)
        text.append(UInt8(ascii: "."))
        text.append(contentsOf: UnsafeBufferPointer(start: f, count: k))
        return text.withUnsafeBufferPointer { DecimalParser.parse($0.baseAddress!, $0.count) }
    }

    @inline(__always)
    static func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    @inline(__always)
    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return isLeap(y) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    public static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400                                        // [0, 399]
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1   // [0, 365]
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy                // [0, 146096]
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of ``daysFromCivil(_:_:_:)`` (Hinnant's `civil_from_days`).
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// ISO 8601 UTC text for messages: `2020-06-04T14:11:37Z`, with a fraction (to the
    /// microsecond, trailing zeros dropped) only when the time has one.
    public static func format(_ t: Double) -> String {
        guard t.isFinite, t.magnitude < 1e14 else { return "\(t)" }
        var whole = t.rounded(.down)
        var micros = Int(((t - whole) * 1e6).rounded())
        if micros >= 1_000_000 { micros -= 1_000_000; whole += 1 }
        let s = Int(whole)
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let rem = s - days * 86_400
        let (y, mo, d) = civilFromDays(days)
        func pad(_ v: Int, _ w: Int) -> String {
            let text = String(v)
            return text.count >= w ? text : String(repeating: "0", count: w - text.count) + text
        }
        var out = "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(rem / 3_600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2))"
        if micros > 0 {
            var frac = pad(micros, 6)
            while frac.hasSuffix("0") { frac.removeLast() }
            out += "." + frac
        }
        return out + "Z"
    }
}
