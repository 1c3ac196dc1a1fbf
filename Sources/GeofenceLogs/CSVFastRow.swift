import GeofenceBase

extension CSVLogParser {
    /// Whether rows try ``fastRow(_:_:_:roles:delimiter:line:_:_:_:)`` before the general path; tests
    /// turn it off to compare the two.
    nonisolated(unsafe) static var fastRows = true

    /// One pass over the row `p[s..<e]`: walks its fields in order, parsing each number as it
    /// scans (``PlainDecimal/prefix(_:_:_:)``, which may read ahead up to `core.end`; blanks
    /// around it skipped), and hands the fix on. A field that is not a plain number ending at
    /// its delimiter (an exponent, an ISO time, an empty accuracy, many digits) is found with
    /// ``findDelimiterOrQuote(_:_:_:_:)`` and parsed as the general path would. Returns false,
    /// having changed nothing but the time unit the general path would choose from the same
    /// value, for a row the general path must take: a quote, a wrong field count, or any field
    /// that is not good (the general path then reports it with its message).
    @inline(always)
    static func fastRow(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int, roles: UnsafeBufferPointer<Int8>, delimiter: UInt8,
                        line: Int, _ core: inout ReadCore, _ devices: inout DeviceState, _ batch: inout [Fix]) throws(GeofenceError) -> Bool {
        let limit = core.end
        let last = roles.count &- 1
        var time = 0.0, numeric = true, offset: Int16 = 0
        var lat = 0.0, lon = 0.0, accuracy = 0.0
        var ds = s, de = s
        var i = s
        var col = 0
        while true {
            let role = roles[col]
            var stop: Int
            if role > 0 {
                if let (v, end) = Self.number(p, i, e, limit, delimiter, last: col == last) {
                    stop = end
                    if role == 1 {
                        time = v
                    } else if role == 2 {
                        guard v >= -90 && v <= 90 else { return false }
                        lat = v
                    } else if role == 3 {
                        guard v >= -180 && v <= 180 else { return false }
                        lon = v
                    } else {
                        guard v >= 0 else { return false }
                        accuracy = v
                    }
                } else {
                    stop = Self.findDelimiterOrQuote(p, i, e, delimiter)
                    if stop < e && p[stop] == UInt8(ascii: "\"") { return false }
                    var fs = i, fe = stop
                    trimBlanks(p, &fs, &fe)
                    let n = fe &- fs
                    if role == 1 {
                        guard let t = LogTime.parseZoned(p + fs, n) else { return false }
                        (time, numeric, offset) = t
                    } else if role == 4 && n == 0 {
                        accuracy = 0
                    } else {
                        guard let v = DecimalParser.parse(p + fs, n) else { return false }
                        switch role {
                        case 2: guard v >= -90 && v <= 90 else { return false }; lat = v
                        case 3: guard v >= -180 && v <= 180 else { return false }; lon = v
                        default: guard v >= 0 && v.isFinite else { return false }; accuracy = v
                        }
                    }
                }
            } else {
                stop = Self.findDelimiterOrQuote(p, i, e, delimiter)
                if stop < e && p[stop] == UInt8(ascii: "\"") { return false }
                if role == 0 { ds = i; de = stop }
            }
            if col == last {
                guard stop == e else { return false }                   // more fields than the header
                break
            }
            guard stop < e else { return false }                        // fewer fields than the header
            i = stop &+ 1
            col &+= 1
        }
        // As ReadCore.time, once the row is known to be whole.
        let t = numeric ? core.seconds(time) : time
        guard t >= core.timeRange.earliest && t <= core.timeRange.latest else { return false }
        core.lastOffset = offset
        trimBlanks(p, &ds, &de)
        guard let device = try core.device(p + ds, de &- ds, readable: limit &- ds, line: line, &devices) else { return true }
        try core.accept(Fix(device: device, time: t, lat: lat, lon: lon, accuracy: accuracy, offset: offset), line: line, &devices, &batch)
        return true
    }

    /// The plain number that is all of the field at `p[i...]` (blanks around it trimmed, as
    /// the general path trims a field) and where the field ends: at a delimiter, or at `e` for
    /// the row's last field. Nil when the field is anything else.
    @inline(always)
    static func number(_ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, _ limit: Int, _ delimiter: UInt8,
                       last: Bool) -> (value: Double, end: Int)? {
        var r = PlainDecimal.prefix(p, i, limit)
        if r == nil && i < e && (p[i] == 0x20 || p[i] == 0x09) { r = PlainDecimal.prefix(p, pastBlanks(p, i, e, delimiter), limit) }
        guard let r else { return nil }
        var end = r.end
        if end < e && p[end] != delimiter { end = pastBlanks(p, end, e, delimiter) }
        guard end < e ? p[end] == delimiter && !last : last else { return nil }
        return (r.value, end)
    }

    /// The first offset from `i` on that is not a space or a tab (other than the delimiter),
    /// or `e`.
    @inline(always)
    static func pastBlanks(_ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, _ delimiter: UInt8) -> Int {
        var j = i
        while j < e && (p[j] == 0x20 || p[j] == 0x09) && p[j] != delimiter { j &+= 1 }
        return j
    }
}
