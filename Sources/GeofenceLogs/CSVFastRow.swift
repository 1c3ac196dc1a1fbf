import CFastDecimal
import CSystem
import GeofenceBase

extension CSVLogParser {
    /// Whether rows are read by the one-pass loop (``readSerial(into:max:roles:bounds:_:_:)``),
    /// which leaves to the general path only the rows it cannot take; tests turn it off to
    /// compare the two.
    nonisolated(unsafe) static var fastRows = true

    /// What ``fastFields(_:_:_:roles:delimiter:open:_:_:)`` reads of a row: the fix but its
    /// device, where the device's field is (trimmed), and, for an open row, the offset after
    /// its `\n`.
    struct FastFields {
        var time = 0.0, lat = 0.0, lon = 0.0, accuracy = 0.0
        var offset: Int16 = 0
        var deviceStart = 0, deviceEnd = 0
        var next = 0
    }

    /// The fields of a row for ``readSerial(into:max:roles:bounds:_:_:)``, without the device's
    /// interning and the order check: false for a row the general path must take (`core`
    /// changed only in the time unit, as there).
    ///
    /// `open`: the row's end is not known yet (`e` is the end of the window); it is the `\n`
    /// (a `\r` before it not part of the last field, as ``ReadCore/nextLine(_:_:_:)`` cuts
    /// a line) that ends the last field, found while the fields are walked. False also when no
    /// `\n` ends the row in the window, or one comes before the last field: the caller then
    /// cuts the line itself and tries again with `open` false.
    @inline(always)
    static func fastFields(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int, roles: UnsafeBufferPointer<Int8>, delimiter: UInt8,
                           open: Bool, _ core: inout ReadCore, _ f: inout FastFields) -> Bool {
        let limit = core.end
        let last = roles.count &- 1
        var time = 0.0, numeric = true, offset: Int16 = 0
        var lat = 0.0, lon = 0.0, accuracy = 0.0
        var ds = s, de = s
        var i = s
        var col = 0
        var next = 0
        while true {
            let role = roles[col]
            var stop: Int
            if role > 0, let (v, end) = Self.number(p, i, e, limit, delimiter, last: col == last, open: open) {
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
                if open && col == last { next = p[end] == 0x0A ? end &+ 1 : end &+ 2 }
            } else {
                stop = open ? Self.findDelimiterQuoteOrNewline(p, i, e, delimiter) : Self.findDelimiterOrQuote(p, i, e, delimiter)
                guard stop < e || !open else { return false }                  // no newline in the window
                if stop < e && p[stop] == UInt8(ascii: "\"") { return false }
                var fe = stop
                if open && p[stop] == 0x0A {
                    guard col == last else { return false }                     // fewer fields than the header
                    next = stop &+ 1
                    if stop > i && p[stop &- 1] == 0x0D { fe = stop &- 1 }
                    stop = e
                } else if open && col == last {
                    return false                                                // more fields than the header
                }
                if role == 0 {
                    ds = i; de = fe
                } else if role > 0 {
                    var fs = i
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
            }
            if col == last {
                guard open || stop == e else { return false }           // more fields than the header
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
        f = FastFields(time: t, lat: lat, lon: lon, accuracy: accuracy, offset: offset, deviceStart: ds, deviceEnd: de, next: next)
        return true
    }

    /// ``fastFields(_:_:_:roles:delimiter:open:_:_:)`` of an open row for the usual layout,
    /// `device, time, lat, lon[, accuracy]` (``standardLayout``) with plain numbers: the fields
    /// straight-line, no dispatch on the column's role. False for anything else (an ISO time,
    /// an empty accuracy, a quote...): the caller then takes the general fast pass. Out of
    /// line: inlined, its four numbers would make the loop too large for the optimizer to
    /// inline the small calls around it.
    @inline(never)
    static func standardFields(_ p: UnsafePointer<UInt8>, _ s: Int, accuracy hasAccuracy: Bool, delimiter: UInt8,
                               _ core: inout ReadCore, _ f: inout FastFields) -> Bool {
        let e = core.end
        let de = findDelimiterQuoteOrNewline(p, s, e, delimiter)
        guard de < e && p[de] == delimiter else { return false }
        guard let (time, te) = field(p, de &+ 1, e, delimiter, last: false) else { return false }
        guard let (lat, ae) = field(p, te &+ 1, e, delimiter, last: false), lat >= -90 && lat <= 90 else { return false }
        guard let (lon, oe) = field(p, ae &+ 1, e, delimiter, last: !hasAccuracy), lon >= -180 && lon <= 180 else { return false }
        var accuracy = 0.0, end = oe
        if hasAccuracy {
            guard let (a, ce) = field(p, oe &+ 1, e, delimiter, last: true), a >= 0 else { return false }
            accuracy = a
            end = ce
        }
        // As ReadCore.time, once the row is known to be whole.
        let t = core.seconds(time)
        guard t >= core.timeRange.earliest && t <= core.timeRange.latest else { return false }
        core.lastOffset = 0
        var ds = s, dend = de
        trimBlanks(p, &ds, &dend)
        f = FastFields(time: t, lat: lat, lon: lon, accuracy: accuracy, offset: 0, deviceStart: ds, deviceEnd: dend,
                       next: p[end] == 0x0A ? end &+ 1 : end &+ 2)
        return true
    }

    /// ``standardFields(_:_:accuracy:delimiter:_:_:)`` for a row that starts at least
    /// ``wideMargin`` bytes before the window's end, and that also takes a time in the form
    /// `YYYY-MM-DDThh:mm:ssZ` (``LogTime/parseUTCSeconds(_:)``): one check for the whole row, then no
    /// bounds checks (the device field is at most 64 bytes, the time at most 22 with its
    /// delimiter, then up to 4 numbers read from 80 bytes). Numbers through
    /// ``PlainDecimal/wideRun(_:_:_:_:_:)``, each followed right there by its delimiter (the last by
    /// `\n` or `\r\n`); the device as ``wideDevice(_:_:_:)`` finds it. False for anything
    /// else: the caller then takes ``standardFields(_:_:accuracy:delimiter:_:_:)``.
    @inline(never)
    static func wideFields(_ p: UnsafePointer<UInt8>, _ s: Int, accuracy hasAccuracy: Bool, delimiter: UInt8,
                           _ core: inout ReadCore, _ f: inout FastFields) -> Bool {
        guard s &+ wideMargin <= core.end else { return false }
        let de = wideDevice(p, s, delimiter)
        guard de > s && p[de] == delimiter else { return false }
        // The time: a plain number, or `YYYY-MM-DDThh:mm:ssZ` (the commonest ISO 8601 form).
        var time = 0.0, first = de &+ 1, numeric = true, timeRead = false
        if p[de &+ 5] == UInt8(ascii: "-") {
            // No number has a '-' there.
            guard p[de &+ 21] == delimiter, let v = LogTime.parseUTCSeconds(p + (de &+ 1), day: &core.utcDay) else { return false }
            (time, first, numeric, timeRead) = (v, de &+ 22, false, true)
        } else if let (v, end) = PlainDecimal.epochInteger(p, first), p[end] == delimiter {
            // An integer epoch time (seconds or milliseconds): two word loads, not a run slot.
            (time, first, timeRead) = (v, end &+ 1, true)
        }
        // The row's end, found apart from its fields: the next row's start waits for this scan
        // only, not for the numbers (which the processor then reads for several rows at once).
        let lineEnd = first &+ Int(geofence_line_end(p + first))
        // The numbers that follow, in one call: (time,) lat, lon (, accuracy).
        var n = (0.0, 0.0, 0.0, 0.0)
        let count = (timeRead ? 2 : 3) &+ (hasAccuracy ? 1 : 0)
        let length = withUnsafeMutablePointer(to: &n) {
            $0.withMemoryRebound(to: Double.self, capacity: 4) { PlainDecimal.wideRun(p, first, count, delimiter, $0) }
        }
        guard length > 0 else { return false }
        let (lat, lon, accuracy) = timeRead ? (n.0, n.1, n.2) : (n.1, n.2, n.3)
        if !timeRead { time = n.0 }
        guard lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 && accuracy >= 0 else { return false }
        // The numbers end the row: at its `\n`, or at a `\r` just before it. A scan that found
        // no `\n` in its 64 bytes gives 64, which is no line end: a run of 63 bytes and a `\r`
        // would otherwise end there, and the row's next byte be skipped unread.
        let last = first &+ length
        guard lineEnd &- first < 64, last == lineEnd || (last &+ 1 == lineEnd && p[last] == 0x0D) else { return false }
        let next = lineEnd &+ 1
        // As ReadCore.time, once the row is known to be whole.
        let t = numeric ? core.seconds(time) : time
        guard t >= core.timeRange.earliest && t <= core.timeRange.latest else { return false }
        core.lastOffset = 0
        f = FastFields(time: t, lat: lat, lon: lon, accuracy: accuracy, offset: 0, deviceStart: s, deviceEnd: de, next: next)
        return true
    }

    /// Where the device field at `p[s...]` ends for ``wideFields(_:_:accuracy:delimiter:_:_:)``
    /// (64 bytes readable): at the first delimiter or byte below `#` (a quote, a blank, a line
    /// end, a control byte) among its first 8 bytes; else as
    /// ``findDelimiterQuoteOrNewline(_:_:_:_:)`` within 64 bytes, the last byte not a blank
    /// or a control byte. The caller takes the row only when this is a delimiter after at
    /// least one byte: a device without a quote, a line end, or blanks at its ends.
    @inline(always)
    static func wideDevice(_ p: UnsafePointer<UInt8>, _ s: Int, _ delimiter: UInt8) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let w = UInt64(littleEndian: PlainDecimal.word(UnsafeRawPointer(p + s)))
        let d = w ^ (ones &* UInt64(delimiter))
        // The lowest mark is exact (a borrow only moves up, past it).
        let marks = ((d &- ones) & ~d | (w &- ones &* 0x23) & ~w) & highs
        if marks != 0 { return s &+ marks.trailingZeroBitCount &>> 3 }
        let de = findDelimiterQuoteOrNewline(p, s &+ 8, s &+ 64, delimiter)
        return de < s &+ 64 && p[de &- 1] > 0x20 ? de : s
    }

    /// The bytes ``wideFields(_:_:accuracy:delimiter:_:_:)`` needs readable from a row's start:
    /// a 64-byte device field, a time of up to 22 bytes with its delimiter, and the 80 bytes
    /// ``PlainDecimal/wideRun(_:_:_:_:_:)`` may read for four numbers (their line end within).
    static let wideMargin = 192

    /// ``number(_:_:_:_:_:last:open:)`` of an open row, `e` the window's end: one check of the
    /// byte after a plain number when it ends the field right there (a delimiter, or the line
    /// end for the last field), the full checks out of line otherwise.
    @inline(always)
    static func field(_ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, _ delimiter: UInt8, last: Bool) -> (value: Double, end: Int)? {
        if let r = PlainDecimal.prefix(p, i, e), r.end < e {
            let c = p[r.end]
            if last ? c == 0x0A || (c == 0x0D && r.end &+ 1 < e && p[r.end &+ 1] == 0x0A) : c == delimiter { return r }
        }
        return openNumber(p, i, e, delimiter, last: last)
    }

    /// ``number(_:_:_:_:_:last:open:)`` of an open row, out of line.
    @inline(never)
    static func openNumber(_ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, _ delimiter: UInt8, last: Bool) -> (value: Double, end: Int)? {
        number(p, i, e, e, delimiter, last: last, open: true)
    }

    /// Whether `roles` are ``standardFields(_:_:accuracy:delimiter:_:_:)``'s: device, time,
    /// lat, lon and maybe accuracy, in this order and nothing else.
    static func standardLayout(_ roles: UnsafeBufferPointer<Int8>) -> Bool {
        roles.elementsEqual([0, 1, 2, 3]) || roles.elementsEqual([0, 1, 2, 3, 4])
    }

    /// ``fastFields(_:_:_:roles:delimiter:open:_:_:)`` of an open row at `p[s...]`: out of
    /// line, as ``lineFields(_:_:_:roles:delimiter:_:_:)``.
    @inline(never)
    static func openFields(_ p: UnsafePointer<UInt8>, _ s: Int, roles: UnsafeBufferPointer<Int8>, delimiter: UInt8,
                           _ core: inout ReadCore, _ f: inout FastFields) -> Bool {
        fastFields(p, s, core.end, roles: roles, delimiter: delimiter, open: true, &core, &f)
    }

    /// ``fastFields(_:_:_:roles:delimiter:open:_:_:)`` of a line already cut: out of line, so
    /// that the open pass, inlined in the loop, keeps it small.
    @inline(never)
    static func lineFields(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int, roles: UnsafeBufferPointer<Int8>, delimiter: UInt8,
                           _ core: inout ReadCore, _ f: inout FastFields) -> Bool {
        fastFields(p, s, e, roles: roles, delimiter: delimiter, open: false, &core, &f)
    }

    /// The plain number that is all of the field at `p[i...]` (blanks around it trimmed, as
    /// the general path trims a field) and where the field ends: at a delimiter, or at `e` for
    /// the row's last field; for an `open` row's last field, at the `\n` or the `\r\n` after
    /// it. Nil when the field is anything else.
    @inline(always)
    static func number(_ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, _ limit: Int, _ delimiter: UInt8,
                       last: Bool, open: Bool) -> (value: Double, end: Int)? {
        var r = PlainDecimal.prefix(p, i, limit)
        if r == nil && i < e && (p[i] == 0x20 || p[i] == 0x09) { r = PlainDecimal.prefix(p, pastBlanks(p, i, e, delimiter), limit) }
        guard let r else { return nil }
        var end = r.end
        if end < e && p[end] != delimiter { end = pastBlanks(p, end, e, delimiter) }
        guard end < e || !open else { return nil }
        if open && last {
            let c = p[end]
            guard c == 0x0A || (c == 0x0D && end &+ 1 < e && p[end &+ 1] == 0x0A) else { return nil }
            return (r.value, end)
        }
        guard end < e ? p[end] == delimiter && !last : last else { return nil }
        return (r.value, end)
    }

    /// ``findDelimiterOrQuote(_:_:_:_:)`` that also stops at a `\n`.
    @inline(always)
    static func findDelimiterQuoteOrNewline(_ p: UnsafePointer<UInt8>, _ start: Int, _ e: Int, _ delimiter: UInt8) -> Int {
        var i = start
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let delimiters = ones &* UInt64(delimiter), quotes = ones &* 0x22, newlines = ones &* 0x0A
        while i &+ 8 <= e {
            let w = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            let a = w ^ delimiters, b = w ^ quotes, c = w ^ newlines
            let marks = ((a &- ones) & ~a | (b &- ones) & ~b | (c &- ones) & ~c) & highs
            if marks != 0 { return i &+ marks.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < e {
            let c = p[i]
            if c == delimiter || c == UInt8(ascii: "\"") || c == 0x0A { return i }
            i &+= 1
        }
        return e
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

extension CSVLogParser {
    /// ``read(into:max:_:_:)`` for a reader's own core (not a parse worker's): rows through
    /// ``fastFields(_:_:_:roles:delimiter:open:_:_:)`` (first open, finding the line end as it
    /// goes; else after ``ReadCore/nextLine(_:_:_:)``) and the order check of ``ReadCore/accept(_:line:_:_:)``
    /// done here through pointers held for the batch: fixes go to a staging buffer appended to
    /// `batch` when full, before a row the general path takes, at the end and on an error; each
    /// device's last fix is written through ``DeviceState/lastFixes()``, fetched again whenever a
    /// new device may have moved it (a new index here, any row of the general path). No array
    /// uniqueness check per row. A parse worker's core (``ReadCore/deferOrder``) takes the same
    /// path without the order check, keeping each fix's line instead, and stages its rows where
    /// they stay (``ReadCore/output``): its flush only counts them.
    mutating func readSerial(into batch: inout [Fix], max: Int, roles r: UnsafeBufferPointer<Int8>,
                             bounds b: UnsafeMutablePointer<Int>, _ core: inout ReadCore, _ devices: inout DeviceState) throws(GeofenceError) {
        // Rows staged between flushes (read serially, small copies: vector moves, not `rep movsb`;
        // a parse worker looks their devices up together).
        let room = Swift.max(1, Swift.min(max &- batch.count, 32))
        try withUnsafeTemporaryAllocation(of: geofence_row.self, capacity: Self.blockRows) { (blockRows) throws(GeofenceError) in
        try withUnsafeTemporaryAllocation(of: Fix.self, capacity: room) { (staging) throws(GeofenceError) in
          try withUnsafeTemporaryAllocation(of: PendingDevice.self, capacity: room) { (pendingDevices) throws(GeofenceError) in
           try withUnsafeTemporaryAllocation(of: Int.self, capacity: room) { (lineStaging) throws(GeofenceError) in
            // A parse worker stages its rows where they stay, in `core.output` (ChunkFixes), with
            // their lines; read serially, in `staging`, copied to `batch` when full.
            let deferred = core.deferOrder
            var out = staging.baseAddress!
            var stagedLines = lineStaging.baseAddress!
            var staged = 0, flushed = deferred ? core.output.count : batch.count
            /// A parse worker's staging moved on past the fixes written (none staged): room made
            /// for `room` more.
            func restage() {
                guard deferred else { return }
                (out, stagedLines) = core.output.room(room)
            }
            restage()
            // A parse worker looks the devices of its staged rows up in the reader's table
            // together, before they leave the staging buffer: each row's first slot is asked
            // for (prefetched) when the row is read, the key it holds `keyLead` rows later,
            // then the probes run on lines already on their way (docs/logs.md, "Parallel
            // reading"). pending[j].count > 0: staged fix j still has no device; -1: it has the
            // device of fix j - 1 (the row before, whose device is the same name); `waiting`:
            // some has none.
            let keyLead = 8
            let pending = pendingDevices.baseAddress!
            var waiting = false
            // A parse worker: the previous row's device name and key when it was staged here
            // with a name found ASCII (count 0: none), for a row of the same device to take its
            // device without a look-up. Read serially: the name and key of the previous block
            // row when it had the device of the block row before it (as `inRun` says).
            var previous = PendingDevice(name: UnsafePointer(core.base), count: 0, hash: 0, tail: 0)
            // Read serially, the previous row's device when it was a block row (else -1).
            var previousDevice: Int32 = -1
            // The row before, taken one row at a time (not in a run below), had the device of
            // the row before it: a run of the device may follow (tried then only, so that a log
            // whose devices change from row to row does not pay for the try).
            var inRun = false
            func resolve() {
                waiting = false
                let known = core.knownDevices.unsafelyUnwrapped
                for j in Swift.max(0, staged &- keyLead)..<staged where pending[j].count > 0 {
                    if let key = known.firstKey(pending[j].hash) { geofence_prefetch(key) }
                }
                for j in 0..<staged where pending[j].count != 0 {
                    let d = pending[j]
                    pending[j].count = 0
                    // An ASCII name is valid UTF-8: interning it never refuses it.
                    out[j].device = d.count < 0 ? out[j &- 1].device
                                                : known.lookup(d.name, d.count, hash: d.hash, tail: d.tail)
                                                  ?? devices.intern(d.name, d.count, readable: d.count)!
                }
            }
            // The device of the last fix flushed, once one is (`hasFlushed`): a run may go on past
            // a flush (`previous` then names that fix's row; a row the general path appends
            // directly to the batch clears `previous` first).
            var flushedDevice: Int32 = 0, hasFlushed = false
            func flush(_ batch: inout [Fix]) {
                if waiting { resolve() }
                if staged > 0 {
                    flushedDevice = out[staged &- 1].device
                    hasFlushed = true
                }
                if deferred {
                    // Written in place: counted, and the staging moved on.
                    core.output.count &+= staged
                    flushed = core.output.count
                    staged = 0
                    restage()
                    return
                }
                batch.append(contentsOf: UnsafeBufferPointer(start: out, count: staged))
                flushed = batch.count
                out.deinitialize(count: staged)
                staged = 0
            }
            // The device of a run going on from the row before: that row's (read serially), the
            // last staged fix's or the last flushed one's (a parse worker, whose staged rows are
            // resolved first).
            func runDevice() -> Int32 {
                !deferred ? previousDevice : staged > 0 ? out[staged &- 1].device : flushedDevice
            }
            // Whether the row before a run has a fix to go on from: read serially, or a parse
            // worker's staged or flushed one. (Neither it nor `hasFlushed` is read on the right
            // of `&&` or `||`, an autoclosure: that made the compiler check the accesses to
            // `staged` and `hasFlushed` at run time, about 90 instructions each time round the
            // loop below, 4 M on the AIS trace at 2 threads; the SIL showed `[dynamic]`. The
            // conditions that call it are listed with commas.)
            func rowBeforeTaken() -> Bool {
                if staged > 0 || !deferred { return true }
                return hasFlushed
            }
            // A parse worker looks the device of the row before a run up first, if it still waits
            // for it: every row of the run then takes it as is.
            func resolveRowBefore() {
                if deferred && staged > 0 && pending[staged &- 1].count != 0 { resolve() }
            }
            var last = deferred ? nil : devices.lastFixes(), known = deferred ? 0 : devices.last.count
            let fileIndex = core.fileIndex
            let delimiter = self.delimiter
            let standard = Self.standardLayout(r), hasAccuracy = self.hasAccuracy
            var s = 0, e = 0, terminated = true
            var f = FastFields()
            // Row blocks (the usual layout at a wide level): rows read by geofence_standard_rows
            // into `block`, taken from it one by one; after a block that could not start, the
            // next `skipBlocks` lines are read one at a time before the next try.
            let blocks = standard && Self.rowBlocksEnabled && geofence_plain_decimals_level(-1) >= 2
            let block = blockRows.baseAddress!, accuracyFlag: Int32 = hasAccuracy ? 1 : 0
            var blockCount = 0, blockIndex = 0, skipBlocks = 0
            // Runs past a block: read by geofence_run_rows straight into fixes; `runEnded`: the
            // row at the reader's position ended one (the block path reads it next).
            let runs = blocks && Self.runRowsEnabled && Self.fixLayoutMatches
            var runEnded = false
            // Rows read by the runs since the last one ended; after a long run the next block
            // is short (a device's first rows, then its run again): a block's rows of the run
            // would each take the slower way below.
            var runLength = 0, shortBlock = false
            do throws(GeofenceError) {
                while flushed &+ staged < max {
                    var p = UnsafePointer(core.base)
                    let line: Int
                    var key: (hash: UInt64, tail: UInt64)? = nil
                    // A run of the device of the rows before, once a block is taken (docs/logs.md,
                    // "Row blocks"): its rows read on by geofence_run_rows, each checked as the run
                    // loop below checks it (device, time range, order when read serially) and its
                    // fix written straight into the staging buffer; the run's device looked up
                    // first by a parse worker if the row before still waits for it.
                    if runs && inRun && blockIndex == blockCount && skipBlocks == 0 && !runEnded && previous.count > 0,
                       rowBeforeTaken() {
                        let lastStart = core.end &- Self.wideMargin &- core.pos
                        // A parse worker's run goes straight into its chunk's storage after the
                        // rows staged before it (flushed first, their devices resolved), up to
                        // ``runCallRows`` rows a call, each row at least `minimumRunRowBytes`
                        // bytes; read serially, into the staging buffer.
                        if deferred && lastStart >= 0 && staged > 0 { flush(&batch) }
                        let want = deferred ? Swift.min(Self.runCallRows, lastStart / Self.minimumRunRowBytes &+ 1)
                                            : Swift.min(room &- staged, max &- flushed &- staged)
                        if lastStart >= 0 && want > 0 {
                            resolveRowBefore()
                            let d = Int(previousDevice)
                            // A parse worker's row before is the last fix written: the run's rows
                            // are checked against it as a serial read checks them against the
                            // device's last fix, and take its device settled, so that marking the
                            // chunk's runs passes over them (ChunkFixes.runRanges).
                            let l = deferred ? core.output.last : last.unsafelyUnwrapped[d]
                            let device = runDevice()
                            var run = geofence_run(name: previous.name, name_length: Int32(truncatingIfNeeded: previous.count),
                                                   device: deferred ? ParallelReader.settled(device) : device,
                                                   order: 1, unused: 0, time: l.time, lat: l.lat, lon: l.lon,
                                                   day: Double(core.utcDay.seconds),
                                                   per_second: core.timeUnit == .auto ? 0 : core.timeUnit.perSecond,
                                                   earliest: core.timeRange.earliest, latest: core.timeRange.latest, line: core.line)
                            var consumed = 0, lastRow = 0, stopped: Int32 = 0
                            // The rows' lines are not written: a parse worker's chunk keeps the
                            // first line of the range (ChunkFixes.line).
                            let into = deferred ? core.output.room(want).fixes : out + staged
                            let k = Int(into.withMemoryRebound(to: geofence_fix.self, capacity: want) { f in
                                geofence_run_rows(p + core.pos, lastStart, accuracyFlag, delimiter, core.utcDay.head, core.utcDay.tail,
                                                  &run, f, nil, Int32(truncatingIfNeeded: want), &consumed, &lastRow, &stopped)
                            })
                            runEnded = stopped != 0
                            runLength &+= k
                            if runEnded {
                                shortBlock = runLength >= Self.longRun
                                runLength = 0
                            }
                            if k > 0 {
                                if deferred {
                                    // Counted where they are; the staging moves on past them.
                                    core.output.count &+= k
                                    core.output.noteRun(from: flushed, line: core.line &+ 1)
                                    flushed = core.output.count
                                    flushedDevice = device
                                    hasFlushed = true
                                    restage()
                                } else {
                                    last.unsafelyUnwrapped[d] = DeviceState.LastFix(time: run.time, lat: run.lat, lon: run.lon,
                                                                                    line: run.line, file: fileIndex)
                                    staged &+= k
                                }
                                previous.name = p + (core.pos &+ lastRow)
                                core.line = run.line
                                core.pos &+= consumed
                                core.rowsInBlocks &+= k
                                core.rowsInRuns &+= k
                                core.lastOffset = 0
                                if staged == room { flush(&batch) }
                                continue
                            }
                            if deferred { restage() }
                        }
                    }
                    if blocks && blockIndex == blockCount && skipBlocks == 0 {
                        let lastStart = core.end &- Self.wideMargin &- core.pos
                        if lastStart >= 0 {
                            var newDay: Int32 = 0
                            let want = Swift.min(shortBlock ? Self.shortBlockRows : Self.blockRows, max &- flushed &- staged)
                            shortBlock = false
                            blockCount = Int(geofence_standard_rows(p + core.pos, lastStart, accuracyFlag, delimiter, core.utcDay.head,
                                                                    core.utcDay.tail, block, Int32(truncatingIfNeeded: want), &newDay))
                            blockIndex = 0
                            runEnded = false
                            core.rowsInBlocks &+= blockCount
                            if blockCount == 0 {
                                // A new date: converted (and checked) as LogTime converts it, then
                                // the block again; any other row is read one at a time.
                                if newDay != 0 {
                                    let t = p + (core.pos &+ Int(block[0].device_end) &+ 1), raw = UnsafeRawPointer(t)
                                    if LogTime.utcNewDay(t, head: raw.loadUnaligned(as: UInt64.self),
                                                         tail: raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self), &core.utcDay) {
                                        continue
                                    }
                                }
                                skipBlocks = newDay != 0 ? 1 : Self.blockBackoff
                            }
                        }
                    }
                    // A run of block rows of the device of the row before it: each takes that
                    // row's device (a parse worker looks it up first if it is still waiting) and is
                    // staged here, as the rows below would be one by one, without their general
                    // steps; read serially, each is checked against the one before (time order,
                    // duplicates), and the device's last fix written once, at the run's end. The
                    // run stops at a row of another device, a numeric time while the unit is not
                    // chosen yet, a time out of range, a row out of order, or a full staging buffer.
                    if inRun && blockIndex < blockCount, rowBeforeTaken(), (block + blockIndex).pointee.hash == previous.hash {
                        let first = blockIndex
                        let earliest = core.timeRange.earliest, latest = core.timeRange.latest
                        let unit = core.timeUnit
                        let day = Double(core.utcDay.seconds)
                        let d = Int(previousDevice)
                        var l = deferred ? DeviceState.LastFix() : last.unsafelyUnwrapped[d]
                        // (None of the run's rows then waits, so none is visited again when the
                        // staged rows are resolved.)
                        resolveRowBefore()
                        let device = runDevice()
                        while blockIndex < blockCount && staged < room {
                            let b = block + blockIndex
                            let name = p + core.pos
                            guard Int(b.pointee.device_end) == previous.count && b.pointee.hash == previous.hash
                                    && b.pointee.tail == previous.tail && DeviceState.sameHead(previous.name, name, previous.count)
                            else { break }
                            let numeric = b.pointee.clock < 0
                            let t: Double
                            if numeric {
                                guard unit != .auto else { break }
                                t = core.seconds(b.pointee.numbers.0)
                            } else {
                                t = day + Double(b.pointee.clock)
                            }
                            guard t >= earliest && t <= latest else { break }
                            let (lat, lon, accuracy) = b.pointee.position(accuracy: hasAccuracy)
                            if !deferred {
                                guard l.isFollowed(by: t, lat, lon) else { break }
                                l = DeviceState.LastFix(time: t, lat: lat, lon: lon, line: core.line &+ 1, file: fileIndex)
                            } else {
                                pending[staged].count = 0
                            }
                            previous.name = name
                            core.line &+= 1
                            if deferred { stagedLines[staged] = core.line }
                            (out + staged).initialize(to: Fix(device: device, time: t, lat: lat, lon: lon, accuracy: accuracy))
                            staged &+= 1
                            core.pos &+= Int(b.pointee.next)
                            blockIndex &+= 1
                        }
                        if blockIndex > first {
                            if !deferred { last.unsafelyUnwrapped[d] = l }
                            core.lastOffset = 0
                            if staged == room { flush(&batch) }
                            continue
                        }
                    }
                    if blockIndex < blockCount {
                        let b = block[blockIndex]
                        let numeric = b.clock < 0
                        // As ReadCore.time.
                        let t = numeric ? core.seconds(b.numbers.0) : Double(core.utcDay.seconds &+ Int(b.clock))
                        guard t >= core.timeRange.earliest && t <= core.timeRange.latest else {
                            // Read again one at a time, which reports it; the block's rows from
                            // this one on are dropped (and read again after it).
                            core.rowsInBlocks &-= blockCount &- blockIndex
                            blockIndex = 0
                            blockCount = 0
                            skipBlocks = 1
                            continue
                        }
                        blockIndex &+= 1
                        let (lat, lon, accuracy) = b.position(accuracy: hasAccuracy)
                        core.lastOffset = 0
                        f = FastFields(time: t, lat: lat, lon: lon, accuracy: accuracy, offset: 0, deviceStart: core.pos,
                                       deviceEnd: core.pos &+ Int(b.device_end), next: core.pos &+ Int(b.next))
                        key = (b.hash, b.tail)
                        core.pos = f.next
                        core.line &+= 1
                        line = core.line
                    } else if standard && (Self.wideFields(p, core.pos, accuracy: hasAccuracy, delimiter: delimiter, &core, &f)
                                    || Self.standardFields(p, core.pos, accuracy: hasAccuracy, delimiter: delimiter, &core, &f))
                        || Self.openFields(p, core.pos, roles: r, delimiter: delimiter, &core, &f) {
                        core.pos = f.next                                       // the row and its line end, in one pass
                        core.line &+= 1
                        line = core.line
                        if skipBlocks > 0 { skipBlocks &-= 1 }
                    } else {
                        if skipBlocks > 0 { skipBlocks &-= 1 }
                        if waiting { resolve() }                         // before the window may move
                        previous.count = 0
                        previousDevice = -1
                        inRun = false
                        guard try core.nextLine(&s, &e, &terminated) else { break }
                        if s == e { continue }                                 // blank line
                        line = core.line
                        p = UnsafePointer(core.base)
                        guard Self.lineFields(p, s, e, roles: r, delimiter: delimiter, &core, &f) else {
                            flush(&batch)
                            try generalRow(s, e, terminated: &terminated, line: line, roles: r, bounds: b, &core, &devices, &batch)
                            if !deferred { last = devices.lastFixes(); known = devices.last.count }   // it may have added a device
                            flushed = deferred ? core.output.count : batch.count
                            restage()                   // the row may have grown the storage
                            continue
                        }
                    }
                    let name = p + f.deviceStart, count = f.deviceEnd &- f.deviceStart
                    let device: Int32
                    if deferred, let known = core.knownDevices, count > 0,
                       let (hash, tail) = key ?? DeviceState.asciiKey(name, count, readable: core.end &- f.deviceStart) {
                        // A parse worker, a non-empty ASCII name: the device of the staged row
                        // before when the name is the same (at once, or when that row's is
                        // resolved), else looked up with the staged rows' (resolve()).
                        // (The row before may have been flushed: its device is then resolved.)
                        let same = rowBeforeTaken() && previous.count == count && previous.hash == hash && previous.tail == tail
                            && DeviceState.sameHead(previous.name, name, count)
                        previous = PendingDevice(name: name, count: count, hash: hash, tail: tail)
                        inRun = same
                        if same && (staged == 0 || pending[staged &- 1].count == 0) {
                            device = staged > 0 ? out[staged &- 1].device : flushedDevice
                            pending[staged].count = 0
                        } else if same {
                            pending[staged].count = -1
                            device = -1
                        } else {
                            geofence_prefetch(known.slot(hash))
                            if staged >= keyLead && pending[staged &- keyLead].count > 0,
                               let key = known.firstKey(pending[staged &- keyLead].hash) { geofence_prefetch(key) }
                            pending[staged] = previous
                            waiting = true
                            device = -1
                        }
                    } else {
                        previous.count = 0
                        inRun = false
                        if waiting { resolve() }                                // devices in row order
                        guard let d = try core.device(name, count, readable: core.end &- f.deviceStart, key: key, line: line, &devices) else {
                            previousDevice = -1
                            continue
                        }
                        device = d
                        if deferred {
                            pending[staged].count = 0
                        } else if d == previousDevice, let key {
                            // A block row read serially, of the device of the row before: more
                            // rows of the device may follow in a run.
                            previous = PendingDevice(name: name, count: count, hash: key.hash, tail: key.tail)
                            inRun = true
                        }
                        previousDevice = key != nil ? d : -1
                    }
                    if deferred {
                        // A parse worker: no order check here (the join does it), the line kept.
                        stagedLines[staged] = line
                        (out + staged).initialize(to: Fix(device: device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy, offset: f.offset))
                        staged &+= 1
                        if staged == room { flush(&batch) }
                        continue
                    }
                    let d = Int(device)
                    if d >= known { last = devices.lastFixes(); known = devices.last.count }
                    let prior = last.unsafelyUnwrapped[d]             // d < known: not empty
                    guard prior.isFollowed(by: f.time, f.lat, f.lon) else {
                        try core.outOfOrder(Fix(device: device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy, offset: f.offset),
                                            line: line, devices)
                        continue
                    }
                    last.unsafelyUnwrapped[d] = DeviceState.LastFix(time: f.time, lat: f.lat, lon: f.lon, line: line, file: fileIndex)
                    (out + staged).initialize(to: Fix(device: device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy, offset: f.offset))
                    staged &+= 1
                    if staged == room { flush(&batch) }
                }
            } catch {
                flush(&batch)
                throw error
            }
            flush(&batch)
           }
          }
        }
        }
    }

    /// Rows read per call of `geofence_standard_rows` (at most).
    static let blockRows = 32
    /// Rows of a run a parse worker reads per call of `geofence_run_rows` (at most), straight
    /// into its chunk's storage: a call's own steps (the run's template, the storage made
    /// room for, the rows counted) then weigh on a thousand rows rather than on the staging
    /// buffer's 32 (docs/logs.md#parallel-reading).
    static let runCallRows = 1024
    /// The fewest bytes a row of a run takes (a device, a time and two numbers of one byte
    /// each, three delimiters, a newline), so that a call's rows fit the room made for them.
    static let minimumRunRowBytes = 8
    /// Rows read by the block after a long run (a run of at least ``longRun`` rows): the next
    /// device's first two, after which its own run may begin.
    static let shortBlockRows = 2
    /// A run of this many rows or more is long (``shortBlockRows``).
    static let longRun = 16
    /// Lines read one at a time after a block that could not start (the row the block path
    /// did not read among them, blank lines too), before the next try: a log it never suits
    /// pays a try per this many lines.
    static let blockBackoff = 64
    /// Whether ``readSerial(into:max:roles:bounds:_:_:)`` reads rows in blocks where it can;
    /// tests turn it off to compare.
    nonisolated(unsafe) static var rowBlocksEnabled = true
    /// Whether runs of one device past a block are read by `geofence_run_rows` (with row
    /// blocks); tests turn it off to compare.
    nonisolated(unsafe) static var runRowsEnabled = true
    /// Whether ``Fix`` has the memory layout of `geofence_fix`, which `geofence_run_rows` writes
    /// (the order in which Swift lays out a struct's stored properties is not promised).
    static let fixLayoutMatches = MemoryLayout<Fix>.size == MemoryLayout<geofence_fix>.size
        && MemoryLayout<Fix>.stride == MemoryLayout<geofence_fix>.stride
        && MemoryLayout<Fix>.offset(of: \Fix.device) == 0 && MemoryLayout<Fix>.offset(of: \Fix.offset) == 4
        && MemoryLayout<Fix>.offset(of: \Fix.time) == 8 && MemoryLayout<Fix>.offset(of: \Fix.lat) == 16
        && MemoryLayout<Fix>.offset(of: \Fix.lon) == 24 && MemoryLayout<Fix>.offset(of: \Fix.accuracy) == 32

    /// A staged row's device name, its hash and tail made, waiting for ``readSerial(into:max:roles:bounds:_:_:)``'s
    /// lookup (count 0: none waiting).
    struct PendingDevice {
        var name: UnsafePointer<UInt8>
        var count: Int
        var hash: UInt64
        var tail: UInt64
    }
}

extension geofence_row {
    /// The row's latitude, longitude and accuracy (0 without the column): its numbers after
    /// the time when that is numeric (a negative `clock`), from the first one otherwise.
    @inline(__always) func position(accuracy: Bool) -> (lat: Double, lon: Double, accuracy: Double) {
        clock < 0 ? (numbers.1, numbers.2, accuracy ? numbers.3 : 0) : (numbers.0, numbers.1, accuracy ? numbers.2 : 0)
    }
}
