extension LogTime {
    /// The commonest time of a log, `YYYY-MM-DDThh:mm:ssZ` (exactly 20 bytes; `T`, `t` or a
    /// space between date and time, `Z` or `z` at the end), read without a branch per digit:
    /// the same value as ``parseISOZoned(_:_:)`` (which takes every other form), or nil when the
    /// bytes are not that shape or not a valid date and time (then the general parser decides).
    /// - Precondition: `p[0..<20]` is readable.
    @inline(__always)
    static func parseUTCSeconds(_ p: UnsafePointer<UInt8>) -> Double? {
        guard utcShape(p) else { return nil }
        guard let date = utcDate(p), let clock = utcClock(p) else { return nil }
        return Double(date &+ clock)
    }

    /// Seconds from 1970-01-01 to the midnight of the valid date `p[0..<10]` (`YYYY-MM-DD`, the
    /// separators checked by the caller), or nil.
    @inline(__always)
    static func utcDate(_ p: UnsafePointer<UInt8>) -> Int? {
        @inline(__always) func d(_ i: Int) -> UInt8 { p[i] &- UInt8(ascii: "0") }
        let y0 = d(0), y1 = d(1), y2 = d(2), y3 = d(3), mo0 = d(5), mo1 = d(6), d0 = d(8), d1 = d(9)
        // Every byte a digit: none of them above 9 once '0' is taken away (a byte below '0' wraps).
        guard Swift.max(Swift.max(Swift.max(y0, y1), Swift.max(y2, y3)), Swift.max(Swift.max(mo0, mo1), Swift.max(d0, d1))) <= 9 else {
            return nil
        }
        let year = Int(y0) &* 1000 &+ Int(y1) &* 100 &+ Int(y2) &* 10 &+ Int(y3)
        let month = Int(mo0) &* 10 &+ Int(mo1), day = Int(d0) &* 10 &+ Int(d1)
        guard month >= 1, month <= 12, day >= 1, day <= daysInMonth(year, month) else { return nil }
        return daysFromCivil(year, month, day) &* 86_400
    }

    /// Seconds since midnight of the valid clock `p[11..<19]` (`hh:mm:ss`, the separators checked
    /// by the caller; a leap second 60 accepted), or nil.
    @inline(__always)
    static func utcClock(_ p: UnsafePointer<UInt8>) -> Int? {
        @inline(__always) func d(_ i: Int) -> UInt8 { p[i] &- UInt8(ascii: "0") }
        let h0 = d(11), h1 = d(12), mi0 = d(14), mi1 = d(15), s0 = d(17), s1 = d(18)
        guard Swift.max(Swift.max(Swift.max(h0, h1), Swift.max(mi0, mi1)), Swift.max(s0, s1)) <= 9 else { return nil }
        let hour = Int(h0) &* 10 &+ Int(h1), minute = Int(mi0) &* 10 &+ Int(mi1), second = Int(s0) &* 10 &+ Int(s1)
        guard hour <= 23, minute <= 59, second <= 60 else { return nil }
        return hour &* 3_600 &+ minute &* 60 &+ second
    }

    /// Whether `p[0..<20]` has the separators of `YYYY-MM-DDThh:mm:ssZ` (`T`, `t` or a space;
    /// `Z` or `z`).
    @inline(__always)
    static func utcShape(_ p: UnsafePointer<UInt8>) -> Bool {
        let sep = p[10] | 0x20, zone = p[19] | 0x20
        return p[4] == UInt8(ascii: "-") && p[7] == UInt8(ascii: "-") && (sep == UInt8(ascii: "t") || p[10] == UInt8(ascii: " "))
            && p[13] == UInt8(ascii: ":") && p[16] == UInt8(ascii: ":") && zone == UInt8(ascii: "z")
    }

    /// The date of the last `YYYY-MM-DD` read by ``parseUTCSeconds(_:day:)``: consecutive
    /// rows of a log nearly always share it, so it is converted once.
    struct UTCDay {
        /// The date's first 8 bytes and its last 2 (never all zeros for a valid date).
        var head: UInt64 = 0
        var tail: UInt16 = 0
        /// Seconds from 1970-01-01 to the date's midnight.
        var seconds = 0
    }

    /// ``parseUTCSeconds(_:)`` with the date's conversion kept in `day` and reused while the
    /// date's bytes are the same: the same value, or nil, as there.
    /// - Precondition: `p[0..<20]` is readable.
    @inline(__always)
    static func parseUTCSeconds(_ p: UnsafePointer<UInt8>, day: inout UTCDay) -> Double? {
        guard utcShape(p) else { return nil }
        let raw = UnsafeRawPointer(p)
        let head = raw.loadUnaligned(as: UInt64.self), tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        if head != day.head || tail != day.tail {
            guard let date = utcDate(p) else { return nil }
            day = UTCDay(head: head, tail: tail, seconds: date)
        }
        guard let clock = utcClock(p) else { return nil }
        return Double(day.seconds &+ clock)
    }
}
