import CFastDecimal
import GeofenceBase

/// Plain decimal numbers read in place while a row is scanned (CSVFastRow.swift): the common
/// shapes of a log's coordinates and epoch times, with the result ``DecimalParser`` gives.
enum PlainDecimal {
    /// The plain number `[+-]digits[.digits]` at the start of `p[start..<limit]`: its value and
    /// the offset of the first byte after it, or nil when this path does not decide (no digit,
    /// more than 19 digits, a significand above 2^53). What follows the number is the
    /// caller's to check: when it is the end of the field, the value is bit for bit
    /// ``DecimalParser/parse(_:_:)`` of the field.
    ///
    /// Straight-line, without a branch per digit, for the shapes of coordinates and epoch times:
    /// up to 7 integer digits with up to 7 fraction digits, or 8 to 15 integer digits without a
    /// fraction. Each 8 bytes is one load (``marks(_:)``); the significand is taken scaled to 8
    /// fraction digits (the fraction's bytes masked, the missing ones zeros, ``eightDigits(_:)``),
    /// and the value is that integer over 10^8 (or 10^(8 − k)): both operands are exact and the
    /// quotient is the same real number as Clinger's `digits / 10^fractionDigits`, so one
    /// correctly rounded division gives the same bits. Other lengths, and numbers within 25 bytes
    /// of `limit`, go through ``prefixLoop(_:_:_:)``. Bytes are read up to `limit`, never past it.
    /// - Complexity: O(length of the number).
    @inline(always)
    static func prefix(_ p: UnsafePointer<UInt8>, _ start: Int, _ limit: Int) -> (value: Double, end: Int)? {
        guard start &+ 25 <= limit else { return prefixLoop(p, start, limit) }
        var i = start
        let sign = p[i]
        let negative = sign == UInt8(ascii: "-")
        if negative || sign == UInt8(ascii: "+") { i &+= 1 }
        let (x, low) = marks(UnsafeRawPointer(p + i))
        let v: Double
        if low == 0 {
            // 8 or more integer digits (epoch times): the next 8 bytes end them, no fraction.
            let (y, lowY) = marks(UnsafeRawPointer(p + (i &+ 8)))
            let k = lowY.trailingZeroBitCount &>> 3
            i &+= 8 &+ k
            guard lowY != 0 && p[i] != UInt8(ascii: ".") else { return prefixLoop(p, start, limit) }
            // The integer times 10^(8 − k): y's digits with zeros after them.
            let scaled = eightDigits(x) &* 100_000_000 &+ eightDigits(y & (lowY &>> 7 &- 1))
            guard scaled <= 1 << 53 else { return prefixLoop(p, start, limit) }
            v = Double(Int64(bitPattern: scaled)) / powerOfTen(8 &- k)
        } else {
            let k = low.trailingZeroBitCount &>> 3                       // integer digits, 0...7
            let shifted = x &<< UInt64(64 &- 8 &* k)                     // the digits last, zeros before
            let integer = k == 0 ? 0 : k <= 4 ? fourDigits(shifted &>> 32) : eightDigits(shifted)
            i &+= k
            if p[i] != UInt8(ascii: ".") {
                guard k > 0 else { return nil }
                v = Double(Int64(bitPattern: integer))
            } else {
                let (f, lowF) = marks(UnsafeRawPointer(p + (i &+ 1)))
                guard lowF != 0 else { return prefixLoop(p, start, limit) }   // 8 or more fraction digits
                let kf = lowF.trailingZeroBitCount &>> 3
                guard k &+ kf > 0 else { return nil }
                i &+= 1 &+ kf
                // integer·10^8 + fraction·10^(8 − kf) < 10^15: exact.
                let scaled = integer &* 100_000_000 &+ eightDigits(f & (lowF &>> 7 &- 1))
                v = Double(Int64(bitPattern: scaled)) / 1e8
            }
        }
        return (negative ? -v : v, i)
    }

    /// The `count` (1...4) numbers at `p[first...]`, each followed right there by `delimiter` but
    /// the last, into `values[0..<count]`: the offset from `first` of the byte after the last
    /// number, or 0 when this path does not decide (what follows the last is the caller's to
    /// check). `16 · count + 16` bytes must be readable from `first`.
    ///
    /// First through `geofence_plain_decimals_direct` (C: with SSSE3, per number one 16-byte load
    /// whose digit and point masks give its end, the digits moved last in 16 lanes by one
    /// shuffle, multiply-adds down to two 8-digit halves, and one division; with AVX2 or
    /// AVX-512, the run's numbers bounded together from its masks and converted side by side,
    /// their quotients as products by 1 / 10^k in two parts, exact to the same bits), in one
    /// call for the run; it decides every plain number of at most 15 bytes. What it declines,
    /// or a CPU without SSSE3, takes ``wide(_:_:)`` number by number. Either way a value is the
    /// correctly rounded double of its text, as ``DecimalParser/parse(_:_:)`` gives it.
    @inline(always)
    static func wideRun(_ p: UnsafePointer<UInt8>, _ first: Int, _ count: Int, _ delimiter: UInt8,
                        _ values: UnsafeMutablePointer<Double>) -> Int {
        // The C function of the CPU's path, called without the dispatch (count is 1...4).
        let length = geofence_plain_decimals_direct(p + first, Int32(truncatingIfNeeded: count), delimiter, values)
        return length > 0 ? Int(length) : wideRunScalar(p, first, count, delimiter, values)
    }

    /// ``wideRun(_:_:_:_:_:)`` through ``wide(_:_:)``, out of line.
    @inline(never)
    static func wideRunScalar(_ p: UnsafePointer<UInt8>, _ first: Int, _ count: Int, _ delimiter: UInt8,
                              _ values: UnsafeMutablePointer<Double>) -> Int {
        var i = first
        for k in 0..<count {
            guard let (v, end) = wide(p, i) else { return 0 }
            values[k] = v
            if k == count &- 1 { return end &- first }
            guard p[end] == delimiter else { return 0 }
            i = end &+ 1
        }
        return 0
    }

    /// ``prefix(_:_:_:)`` where at least 32 bytes are readable from `start` (the caller checks
    /// once per row): no bounds checks, the sign without a branch, the integer part through one
    /// ``eightDigits(_:)`` whatever its length, and an integer of 9 to 15 digits converted
    /// exactly as an integer (below 10^15 < 2^53, so `Double` of it is the value itself). Nil
    /// where this straight line does not decide (a `+`, no digit, 16 or more integer digits,
    /// 8 or more fraction digits, a point after 8 or more integer digits): the caller then
    /// takes the checked path, which decides those.
    @inline(always)
    static func wide(_ p: UnsafePointer<UInt8>, _ start: Int) -> (value: Double, end: Int)? {
        let negative = p[start] == UInt8(ascii: "-")
        var i = start &+ (negative ? 1 : 0)
        let (x, low) = anyMarks(UnsafeRawPointer(p + i))
        let v: Double
        if low == 0 {
            // 8 to 15 integer digits (epoch times), no fraction.
            guard let (integer, end) = epochInteger(p, i) else { return nil }
            (v, i) = (integer, end)
        } else {
            let k = low.trailingZeroBitCount &>> 3                       // integer digits, 0...7
            let integer = digitsLast(x, k)
            i &+= k
            if p[i] != UInt8(ascii: ".") {
                guard k > 0 else { return nil }
                v = Double(Int64(bitPattern: integer))
            } else {
                let (f, lowF) = anyMarks(UnsafeRawPointer(p + (i &+ 1)))
                guard lowF != 0 else { return nil }                      // 8 or more fraction digits
                let kf = lowF.trailingZeroBitCount &>> 3
                guard k &+ kf > 0 else { return nil }
                i &+= 1 &+ kf
                // integer·10^8 + fraction·10^(8 − kf) < 10^15: exact; over 10^8 as in prefix.
                let scaled = integer &* 100_000_000 &+ eightDigits(f & (lowF ^ (lowF &- 1)) &>> 8)
                v = Double(Int64(bitPattern: scaled)) / 1e8
            }
        }
        return (v * (negative ? -1.0 : 1.0), i)                         // exact, -0 for "-0"; no branch
    }

    /// The integer of 8 to 15 digits at `p[start...]` (an epoch time in seconds or milliseconds),
    /// without sign or point, and the offset after it; nil for anything else (fewer or more
    /// digits, a sign, a point after the digits), which the caller reads as any number. 16
    /// bytes must be readable from `start`. Below 10^15 < 2^53, so its `Double` is exact: the
    /// value ``DecimalParser/parse(_:_:)`` gives.
    @inline(always)
    static func epochInteger(_ p: UnsafePointer<UInt8>, _ start: Int) -> (value: Double, end: Int)? {
        let (x, low) = anyMarks(UnsafeRawPointer(p + start))
        guard low == 0 else { return nil }                              // fewer than 8 digits
        let (y, lowY) = anyMarks(UnsafeRawPointer(p + (start &+ 8)))
        guard lowY != 0 else { return nil }                             // 16 digits or more
        let k = lowY.trailingZeroBitCount &>> 3                         // 0...7 more digits
        let end = start &+ 8 &+ k
        guard p[end] != UInt8(ascii: ".") else { return nil }
        return (Double(Int64(bitPattern: eightDigits(x) &* scale(k) &+ digitsLast(y, k))), end)
    }

    /// The number whose `k` digits (0...7) are the first `k` bytes of `x` (0...9 each, the
    /// bytes above ignored): they are shifted last, zeros before (two shifts, so that `k` = 0
    /// never shifts by 64), then converted by ``fourDigits(_:)`` when they fit in 4 bytes (the
    /// integer part of a coordinate, the last digits of an epoch time), else ``eightDigits(_:)``.
    @inline(always)
    static func digitsLast(_ x: UInt64, _ k: Int) -> UInt64 {
        let shifted = (x &<< 8) &<< UInt64(truncatingIfNeeded: 56 &- 8 &* k)
        return k <= 4 ? fourDigits(shifted &>> 32) : eightDigits(shifted)
    }

    /// The 8 bytes at `q` minus `"0"` each (first byte lowest) and a mark (0x80) on the first
    /// byte that is not a digit, and maybe on later ones; no mark when all 8 are digits. A byte
    /// minus `"0"` is a digit when below 10, which adding 0x76 tests in its high bit; a borrow or
    /// carry only moves up, past the first non-digit. The lowest mark is the one that counts.
    @inline(always)
    static func marks(_ q: UnsafeRawPointer) -> (digits: UInt64, marks: UInt64) {
        let x = UInt64(littleEndian: word(q)) &- 0x3030_3030_3030_3030
        let m = (x | (x &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
        return (x, m & (0 &- m))                                       // the lowest mark only
    }

    /// ``marks(_:)`` with every mark kept: the lowest still marks the first byte that is not a
    /// digit (its trailing zeros count the digits), and `m ^ (m − 1)` shifted down a byte masks
    /// the digits before it; one isolation fewer where only those are used.
    @inline(always)
    static func anyMarks(_ q: UnsafeRawPointer) -> (digits: UInt64, marks: UInt64) {
        let x = UInt64(littleEndian: word(q)) &- 0x3030_3030_3030_3030
        return (x, (x | (x &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080)
    }

    /// The 8 bytes at `q` as one word. A function of its own, so that the generic unaligned load
    /// is specialized and inlined here, not left a call in a large caller.
    @inline(__always)
    static func word(_ q: UnsafeRawPointer) -> UInt64 {
        q.loadUnaligned(as: UInt64.self)
    }

    /// The 8-digit number whose digits are the bytes of `x` (0...9 each, first byte most
    /// significant), as `DecimalParser.eightDigits` computes it: three multiplications.
    @inline(always)
    static func eightDigits(_ x: UInt64) -> UInt64 {
        let d = x &* 10 &+ (x >> 8)                                    // bytes 0, 2, 4, 6: pairs
        let pairs: UInt64 = 0x0000_00FF_0000_00FF
        return ((d & pairs) &* (100 &+ (1_000_000 << 32)) &+ ((d >> 16) & pairs) &* (1 &+ (10_000 << 32))) >> 32
    }

    /// ``eightDigits(_:)`` of 4 digits in the low 4 bytes of `x` (the rest zero): two
    /// multiplications. Coordinates have up to 3 integer digits.
    @inline(always)
    static func fourDigits(_ x: UInt64) -> UInt64 {
        let d = x &* 10 &+ (x >> 8)                                    // bytes 0 and 2: pairs
        return ((d & 0x00FF_00FF) &* (1 &+ (100 << 16))) >> 16 & 0xFFFF
    }

    /// The leading run of decimal digits in the 8 bytes at `q`: its value and length (0...8).
    @inline(always)
    static func digits(_ q: UnsafeRawPointer) -> (value: UInt64, count: Int) {
        let (x, low) = marks(q)
        let k = low.trailingZeroBitCount &>> 3                         // 8 when all are digits
        if k == 0 { return (0, 0) }
        return (eightDigits(x &<< UInt64(64 &- 8 &* k)), k)
    }

    /// ``prefix(_:_:_:)`` for any length, a run of 8 digits at a time.
    @inline(never)
    static func prefixLoop(_ p: UnsafePointer<UInt8>, _ start: Int, _ limit: Int) -> (value: Double, end: Int)? {
        var i = start
        guard i < limit else { return nil }
        let sign = p[i]
        let negative = sign == UInt8(ascii: "-")
        if negative || sign == UInt8(ascii: "+") { i &+= 1 }
        var m: UInt64 = 0
        let intStart = i
        digitRun(p, &i, limit, &m)
        let intDigits = i &- intStart
        var fracDigits = 0
        if i < limit && p[i] == UInt8(ascii: ".") {
            i &+= 1
            let fracStart = i
            digitRun(p, &i, limit, &m)
            fracDigits = i &- fracStart
        }
        let count = intDigits &+ fracDigits
        // Past 19 digits m may have wrapped; past 2^53 Clinger's operand is not exact.
        guard count > 0 && count <= 19 && m <= 1 << 53 else { return nil }
        var v = Double(m)
        if fracDigits > 0 { v /= powerOfTen(fracDigits) }
        return (negative ? -v : v, i)
    }

    /// Accumulates the run of decimal digits at `p[i...]` into `m` (wrapping), advancing `i`
    /// past it; reads up to `limit`: 8 bytes at a time (``digits(_:)``), then one by one.
    @inline(always)
    static func digitRun(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ limit: Int, _ m: inout UInt64) {
        while i &+ 8 <= limit {
            let (v, k) = digits(UnsafeRawPointer(p + i))
            m = m &* scale(k) &+ v
            i &+= k
            if k < 8 { return }
        }
        while i < limit {
            let d = p[i] &- UInt8(ascii: "0")
            if d > 9 { return }
            m = m &* 10 &+ UInt64(d)
            i &+= 1
        }
    }

    /// 10^k for 1 ≤ k ≤ 22, exact (as `DecimalParser.exactPowerOfTen`, here to be inlined).
    @inline(always)
    static func powerOfTen(_ k: Int) -> Double {
        switch k {
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

    /// 10^k for 0 ≤ k ≤ 8.
    @inline(always)
    static func scale(_ k: Int) -> UInt64 {
        switch k {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        default: return 100_000_000
        }
    }
}
