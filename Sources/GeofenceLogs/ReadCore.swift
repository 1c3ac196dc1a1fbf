import GeofenceBase
import Glibc

/// The state every format's parser works on during a batch, passed `inout` so that the hot
/// loop touches struct fields, not class properties: the window of decoded bytes
/// (`base[pos..<end]`), the line counter, the skip counts, and the checks and messages shared
/// by all formats (docs/errors.md).
struct ReadCore {
    /// Where more bytes come from; nil for a parse worker's core, whose window is all it reads.
    let source: ByteSource?
    /// The path as given, the prefix of every message.
    let path: String
    let strict: Bool
    let maxLineLength: Int
    /// This file's index in ``DeviceState/files``.
    let fileIndex: Int32

    var base: UnsafeMutablePointer<UInt8>
    var pos = 0
    var end: Int
    /// No more bytes will come after `end`.
    var eof = false
    /// 1-based physical line of the line being parsed (0 before the first).
    var line = 0
    /// What to add to `line` for the line the next bytes belong to: 1 for the line formats
    /// (`line` is the last line returned), 0 for GPX (`line` is where the scanner is).
    var lineAhead = 1

    /// The unit of numeric times: as given, or (``TimeUnit/auto``) resolved at the first one.
    var timeUnit: TimeUnit = .auto
    /// Whether ``timeUnit`` was resolved from a value (for the reader's notice).
    var timeUnitDetected = false
    /// The first numeric time of the file, as read (for the notice).
    var firstNumericTime: Double? = nil
    /// The times accepted.
    var timeRange: TimeRange = .plausible
    /// The UTC offset (minutes east) of the last time read, for the fix the parser builds next.
    var lastOffset: Int16 = 0
    /// The date of the last `YYYY-MM-DDThh:mm:ssZ` time read by the fast row path.
    var utcDay = LogTime.UTCDay()
    /// Rows taken from blocks read by `geofence_standard_rows` (``CSVLogParser/readSerial(into:max:roles:bounds:_:_:)``; tests).
    var rowsInBlocks = 0
    /// Of those, rows read by `geofence_run_rows` (runs of one device past a block; tests).
    var rowsInRuns = 0
    /// GPX waypoints without `<time>`: points of interest, not fixes; counted, not errors.
    var untimedWaypoints = 0
    var skipped: [SkipReason: Int] = [:]
    var firstMessages: [SkipReason: String] = [:]

    /// A parse worker's core (ParallelReader): ``accept(_:line:_:_:)`` appends every fix with
    /// its line to ``output`` unchecked (the time order is checked when the chunks are joined),
    /// and a quoted CSV field still open at the end of the window sets ``straddle`` instead of
    /// being an error (unless the window ends the file).
    var deferOrder = false
    /// With ``deferOrder``: the fixes and their lines (the chunk's storage, lent while it is
    /// parsed); the batch passed to the parsers stays empty.
    var output = ChunkFixes()
    /// With ``deferOrder``: the line of each first message (which then has no `path:line:`).
    var firstLines: [SkipReason: Int] = [:]
    /// With ``deferOrder``: whether the end of the window is the end of the file.
    var windowEndsFile = true
    /// With ``deferOrder``: the offset and the line before the record that runs past the
    /// window (the window's split was inside a quoted field).
    var straddle: (pos: Int, line: Int)? = nil
    /// With ``deferOrder``: the reader's own device table, read-only while this core parses; a
    /// device found there gets its encoded index (``KnownDevices``) instead of a local one.
    var knownDevices: KnownDevices? = nil

    init(source: ByteSource, path: String, strict: Bool, maxLineLength: Int, fileIndex: Int32) {
        self.source = source
        self.path = path
        self.strict = strict
        self.maxLineLength = maxLineLength
        self.fileIndex = fileIndex
        base = source.base
        end = source.prefilled
    }

    /// A parse worker's core over `base[pos..<end]`, lines counted from `line` (the lines
    /// before `pos`); it never reads more.
    init(window base: UnsafeMutablePointer<UInt8>, pos: Int, end: Int, line: Int, endsFile: Bool,
         path: String, strict: Bool, fileIndex: Int32) {
        source = nil
        self.path = path
        self.strict = strict
        maxLineLength = Int.max
        self.fileIndex = fileIndex
        self.base = base
        self.pos = pos
        self.end = end
        self.line = line
        eof = true
        deferOrder = true
        windowEndsFile = endsFile
    }

    /// Keeps `base[keep..<end]` (moved to the front: subtract `keep` from any offset held) and
    /// reads more. Returns false at the end of input (nothing added).
    mutating func refill(keeping keep: Int) throws(GeofenceError) -> Bool {
        if eof { return false }
        if end - keep > maxLineLength {
            let what = lineAhead == 0 ? "a tag or text" : "line"
            throw .malformed(SourceLocation(file: path, line: line + lineAhead), "\(what) longer than \(maxLineLength) bytes")
        }
        guard let source else { eof = true; return false }
        let r: (end: Int, eof: Bool)
        let failedBefore = source.hasFailed
        do {
            r = try source.refill(keeping: keep, end: end)
        } catch {
            // A new failure comes after the kept bytes were moved to the front of the buffer,
            // which may be a new one: the window follows them (the old buffer may be freed).
            if !failedBefore {
                base = source.base
                pos -= keep
                end -= keep
            }
            throw ByteSource.geofenceError(error, path: path, line: line + lineAhead)
        }
        base = source.base
        pos -= keep
        end = r.end
        if r.eof { eof = true }
        return !r.eof
    }

    /// Skips a UTF-8 byte-order mark at the very start.
    mutating func skipBOM() throws(GeofenceError) {
        while end - pos < 3 && !eof { _ = try refill(keeping: pos) }
        if end - pos >= 3 && base[pos] == 0xEF && base[pos + 1] == 0xBB && base[pos + 2] == 0xBF { pos += 3 }
    }

    /// The next physical line as `base[start..<stop]` without its `\n` (and a `\r` before it);
    /// `terminated` is false for a last line without a newline. Returns false at the end.
    /// Offsets are valid until the next call that may refill.
    @inline(__always)
    mutating func nextLine(_ start: inout Int, _ stop: inout Int, _ terminated: inout Bool) throws(GeofenceError) -> Bool {
        while true {
            if pos < end, let nl = memchr(base + pos, 0x0A, end - pos) {
                let e = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                start = pos
                stop = e > pos && base[e - 1] == 0x0D ? e - 1 : e
                pos = e + 1
                line += 1
                terminated = true
                return true
            }
            let more = eof ? false : try refill(keeping: pos)
            if !more {
                guard pos < end else { return false }
                start = pos
                stop = base[end - 1] == 0x0D ? end - 1 : end
                pos = end
                line += 1
                terminated = false
                return true
            }
        }
    }

    // MARK: Bad input

    /// Strict: throws `path:line: message`. Lenient: counts the row under `reason` (keeping the
    /// first message of each reason) and returns, and the caller drops the row.
    @inline(never)
    mutating func report(_ reason: SkipReason, line: Int, _ message: () -> String) throws(GeofenceError) {
        if strict { throw .input(InputError(SourceLocation(file: path, line: line), .invalidRecord(reason: reason.rawValue), message())) }
        skipped[reason, default: 0] += 1
        if firstMessages[reason] == nil {
            if deferOrder {
                // A worker's lines count from its chunk: the join adds the path and the line.
                firstMessages[reason] = message()
                firstLines[reason] = line
            } else {
                firstMessages[reason] = "\(path):\(line): \(message())"
            }
        }
    }

    /// A field's text for a message, quoted, shortened past 60 bytes.
    static func quote(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
        let shown = min(n, 60)
        var s = String(decoding: UnsafeBufferPointer(start: p, count: shown), as: UTF8.self)
        if shown < n { s += "…" }
        return "\"" + s + "\""
    }

    // MARK: Field checks shared by the formats

    /// A latitude in [-90, 90], or nil after reporting.
    @inline(__always)
    mutating func latitude(_ p: UnsafePointer<UInt8>, _ n: Int, line: Int) throws(GeofenceError) -> Double? {
        if let v = DecimalParser.parse(p, n), v >= -90, v <= 90 { return v }
        try badCoordinate(p, n, line: line, name: "latitude", limit: 90, reason: .latitudeOutOfRange)
        return nil
    }

    /// A longitude in [-180, 180], or nil after reporting.
    @inline(__always)
    mutating func longitude(_ p: UnsafePointer<UInt8>, _ n: Int, line: Int) throws(GeofenceError) -> Double? {
        if let v = DecimalParser.parse(p, n), v >= -180, v <= 180 { return v }
        try badCoordinate(p, n, line: line, name: "longitude", limit: 180, reason: .longitudeOutOfRange)
        return nil
    }

    @inline(never)
    mutating func badCoordinate(_ p: UnsafePointer<UInt8>, _ n: Int, line: Int, name: String, limit: Int,
                                reason: SkipReason) throws(GeofenceError) {
        let text = Self.quote(p, n)
        guard let v = DecimalParser.parse(p, n) else {
            return try report(.badNumber, line: line) { "\(name) \(text) is not a number" }
        }
        if !v.isFinite { return try report(.notFinite, line: line) { "\(name) \(text) is not finite" } }
        try report(reason, line: line) { "\(name) \(text) is out of range [-\(limit), \(limit)]" }
    }

    /// An accuracy ≥ 0 (0 for an empty field), or nil after reporting.
    @inline(__always)
    mutating func accuracy(_ p: UnsafePointer<UInt8>, _ n: Int, line: Int) throws(GeofenceError) -> Double? {
        if n == 0 { return 0 }
        if let v = DecimalParser.parse(p, n), v >= 0, v.isFinite { return v }
        try badAccuracy(p, n, line: line)
        return nil
    }

    @inline(never)
    mutating func badAccuracy(_ p: UnsafePointer<UInt8>, _ n: Int, line: Int) throws(GeofenceError) {
        let text = Self.quote(p, n)
        guard let v = DecimalParser.parse(p, n) else {
            return try report(.badNumber, line: line) { "accuracy \(text) is not a number" }
        }
        if !v.isFinite { return try report(.notFinite, line: line) { "accuracy \(text) is not finite" } }
        try report(.negativeAccuracy, line: line) { "accuracy \(text) is negative" }
    }

    /// A time (ISO 8601, or a number in ``timeUnit``), in Unix seconds within ``timeRange``,
    /// or nil after reporting.
    @inline(__always)
    mutating func time(_ p: UnsafePointer<UInt8>, _ n: Int, line: Int) throws(GeofenceError) -> Double? {
        if let (v, numeric, offset) = LogTime.parseZoned(p, n) {
            let t = numeric ? seconds(v) : v
            lastOffset = offset
            if t >= timeRange.earliest && t <= timeRange.latest { return t }
        }
        try badTime(p, n, line: line)
        return nil
    }

    /// Takes `unit` as the one numeric times are read in, chosen at the numeric time `first`
    /// (another reader's choice for the same log: a parse worker's).
    mutating func chooseUnit(_ unit: TimeUnit, first: Double) {
        timeUnit = unit
        timeUnitDetected = true
        firstNumericTime = first
    }

    /// A numeric time in seconds, resolving ``TimeUnit/auto`` at the first finite one.
    @inline(__always)
    mutating func seconds(_ v: Double) -> Double {
        if timeUnit == .auto, v.isFinite {
            timeUnit = TimeUnit.detect(v)
            timeUnitDetected = true
            firstNumericTime = v
        }
        if timeUnit == .seconds || timeUnit == .auto { return v }
        return v / timeUnit.perSecond
    }

    @inline(never)
    mutating func badTime(_ p: UnsafePointer<UInt8>, _ n: Int, line: Int) throws(GeofenceError) {
        let text = Self.quote(p, n)
        if let (v, numeric) = LogTime.parseKind(p, n) {
            if !v.isFinite { return try report(.notFinite, line: line) { "time \(text) is not finite" } }
            let t = numeric ? seconds(v) : v
            let unit = numeric ? " (read as epoch \(timeUnit.name)\(timeUnitDetected ? ", chosen from the file's first numeric time" : ""))" : ""
            let range = timeRange
            let span = range == .plausible ? "1970 to 2100 (--time-range any accepts the years 0001 to 9999)"
                : "\(LogTime.format(range.earliest)) to \(LogTime.format(range.latest))"
            return try report(.badTime, line: line) {
                "time \(text)\(unit) is \(t.isFinite && t.magnitude < 1e14 ? LogTime.format(t) + ", " : "")outside \(span)"
            }
        }
        try report(.badTime, line: line) { "time \(text) is not ISO 8601 or an epoch number" }
    }

    /// The device index of a name, or nil after reporting (empty, not UTF-8). `readable` as
    /// for ``DeviceState/intern(_:_:readable:)``. A parse worker's core gives a device of the
    /// reader's own table its encoded index there (``knownDevices``).
    @inline(always)
    mutating func device(_ p: UnsafePointer<UInt8>, _ n: Int, readable: Int = 0, key: (hash: UInt64, tail: UInt64)? = nil, line: Int,
                         _ devices: inout DeviceState) throws(GeofenceError) -> Int32? {
        if n > 0, let key {
            // The name's key already made (a row block's: printable ASCII, never refused).
            if let known = knownDevices, let d = known.lookup(p, n, hash: key.hash, tail: key.tail) { return d }
            return devices.internAfterPrevious(p, n, hash: key.hash, tail: key.tail)
        }
        if n > 0, let known = knownDevices, let d = known.lookup(p, n) { return d }
        if n > 0, let d = devices.intern(p, n, readable: readable) { return d }
        if n == 0 {
            try report(.emptyDevice, line: line) { "empty device id" }
        } else {
            try report(.malformedRow, line: line) { "device id is not valid UTF-8" }
        }
        return nil
    }

    /// Checks a fix against its device's previous one (docs/logs.md: non-decreasing time; a
    /// duplicate is the same time and the same latitude and longitude, accuracy not compared),
    /// records it as the device's last fix and appends it to `batch`. A fix at the same time
    /// with another position is accepted (it is not a duplicate).
    @inline(__always)
    mutating func accept(_ fix: Fix, line: Int, _ devices: inout DeviceState, _ batch: inout [Fix]) throws(GeofenceError) {
        if deferOrder {
            output.append(fix, line: line)
            return
        }
        let d = Int(fix.device)
        let last = devices.last[d]
        if last.isFollowed(by: fix.time, fix.lat, fix.lon) {
            devices.last[d] = DeviceState.LastFix(time: fix.time, lat: fix.lat, lon: fix.lon, line: line, file: fileIndex)
            batch.append(fix)
            return
        }
        try outOfOrder(fix, line: line, devices)
    }

    @inline(never)
    mutating func outOfOrder(_ fix: Fix, line: Int, _ devices: DeviceState) throws(GeofenceError) {
        let d = Int(fix.device)
        let name = devices.name(d)
        let record = devices.last[d]
        let previous = record.line == 0 ? "its last fix in the saved state"
            : record.file == fileIndex ? "line \(record.line)" : "\(devices.files[Int(record.file)]):\(record.line)"
        let last = record.time
        if fix.time < last {
            try report(.timeBackwards, line: line) {
                "time goes backwards for device \"\(name)\": \(LogTime.format(fix.time)) after \(LogTime.format(last)) (\(previous))"
            }
        } else {
            try report(.duplicateFix, line: line) {
                "duplicate fix for device \"\(name)\": same time \(LogTime.format(fix.time)) and position as \(previous)"
            }
        }
    }
}

/// Trims ASCII blanks (space, tab) from both ends of `p[s..<e]`.
@inline(__always)
func trimBlanks(_ p: UnsafePointer<UInt8>, _ s: inout Int, _ e: inout Int) {
    while s < e && (p[s] == 0x20 || p[s] == 0x09) { s += 1 }
    while e > s && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
}
