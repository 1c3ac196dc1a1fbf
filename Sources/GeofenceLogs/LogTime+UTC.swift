extension LogTime {
    /// The commonest time of a log, `YYYY-MM-DDThh:mm:ssZ` (exactly 20 bytes; `T`, `t` or a
    /// space between date and time, `Z` or `z` at the end), read without a branch per digit:
    /// the same value as ``parseISOZoned(_:_:)`` (which takes every other form), or nil when the
    /// bytes are not that shape or not a valid date and time (then the general parser decides).
    /// - Precondition: `p[0..<20]` is readable.
    @inline(__always)
    static func parseUTCSeconds(_ p: UnsafePointer<UInt8>) -> Double? {
        guard utcShape(p, head: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)), let date = utcDate(p),
              let clock = utcClockWord(p) else { return nil }
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

    /// Whether `p[0..<20]` has the separators of `YYYY-MM-DDThh:mm:ssZ` (`T`, `t` or a space;
    /// `Z` or `z`), read as words: `-` at 4 and 7, `:` at 13 and 16 and the zone by three masked
    /// compares, then the date and time separator. `head`: `p[0..<8]` as loaded.
    @inline(__always)
    static func utcShape(_ p: UnsafePointer<UInt8>, head: UInt64) -> Bool {
        let raw = UnsafeRawPointer(p)
        let first = UInt64(littleEndian: head)                                                      // p[0..<8]
        let middle = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))   // p[8..<16]
        let last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 12, as: UInt64.self))    // p[12..<20]
        guard first & 0xFF00_00FF_0000_0000 == 0x2D00_002D_0000_0000,
              middle & 0x0000_FF00_0000_0000 == 0x0000_3A00_0000_0000,
              (last | 0x2000_0000_0000_0000) & 0xFF00_00FF_0000_0000 == 0x7A00_003A_0000_0000 else { return false }
        let separator = (middle >> 16) & 0xFF
        return separator | 0x20 == 0x74 || separator == 0x20
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
    /// date's bytes are the same: the same value, or nil, as there. Read as words: the
    /// separators (``utcShape(_:head:)``), the clock's six digits checked and
    /// paired in one word (``utcClockWord(_:)``), a new date converted out of line
    /// (``utcNewDay(_:head:tail:_:)``), so that the common row, a date seen on the row before,
    /// costs a few dozen instructions and no call (one at a time, with the date converted in
    /// the same function, it took 99).
    /// - Precondition: `p[0..<20]` is readable.
    @inline(__always)
    static func parseUTCSeconds(_ p: UnsafePointer<UInt8>, day: inout UTCDay) -> Double? {
        let raw = UnsafeRawPointer(p)
        let head = raw.loadUnaligned(as: UInt64.self), tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        guard utcShape(p, head: head) else { return nil }
        if head != day.head || tail != day.tail {
            guard utcNewDay(p, head: head, tail: tail, &day) else { return nil }
        }
        guard let clock = utcClockWord(p) else { return nil }
        return Double(day.seconds &+ clock)
    }

    /// Converts the date `p[0..<10]` into `day` (false when it is not a valid date).
    @inline(never)
    static func utcNewDay(_ p: UnsafePointer<UInt8>, head: UInt64, tail: UInt16, _ day: inout UTCDay) -> Bool {
        guard let date = utcDate(p) else { return false }
        day = UTCDay(head: head, tail: tail, seconds: date)
        return true
    }

    /// Seconds since midnight of the valid clock `p[11..<19]` (`hh:mm:ss`, the colons checked
    /// by the caller; a leap second 60 accepted), or nil, read as one word: loaded at once, the colons' lanes set to `0`, every lane checked to be a digit
    /// (a byte below `0` borrows and one above `9` carries into its own top bit: exact for a
    /// lane that is checked, whatever the lanes around it), then each digit times ten plus the
    /// next, which leaves the hours, minutes and seconds in lanes 0, 3 and 6.
    @inline(__always)
    static func utcClockWord(_ p: UnsafePointer<UInt8>) -> Int? {
        let w = UInt64(littleEndian: UnsafeRawPointer(p + 11).loadUnaligned(as: UInt64.self))
        let c = (w & 0xFFFF_00FF_FF00_FFFF) | 0x0000_3000_0030_0000
        guard ((c &- 0x3030_3030_3030_3030) | (c &+ 0x4646_4646_4646_4646)) & 0x8080_8080_8080_8080 == 0 else { return nil }
        let d = c &- 0x3030_3030_3030_3030
        let pairs = d &* 10 &+ (d >> 8)
        let hour = Int(pairs & 0xFF), minute = Int((pairs >> 24) & 0xFF), second = Int((pairs >> 48) & 0xFF)
        guard hour <= 23, minute <= 59, second <= 60 else { return nil }
        return hour &* 3_600 &+ minute &* 60 &+ second
    }
}
