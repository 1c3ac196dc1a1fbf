import GeofenceBase

/// CSV rows to fixes (docs/logs.md).
///
/// - The first non-blank line is the header (a UTF-8 BOM before it is skipped); it must name
///   the device, time, lat and lon columns (``LogColumns``); accuracy is optional. A missing
///   column is an error for the whole file, even with `skipInvalid`.
/// - Every row must have as many fields as the header. Fields are trimmed of spaces and tabs.
///   LF or CRLF line ends; blank lines are skipped (and counted as lines).
/// - A row is first tried in one pass (``readSerial(into:max:roles:bounds:_:_:)``, CSVFastRow.swift)
///   that parses the numbers while it walks the fields; a row it declines (a quote, a wrong
///   field count, a bad field) takes the general path. There, rows without `"` are split into
///   byte ranges of the read buffer, parsed in place; a row with a `"` is parsed by RFC 4180
///   rules (`""` escapes, quoted fields may hold commas and newlines) into a scratch buffer.
/// - The last line, when it has no newline and fewer fields than the header, is a
///   ``SkipReason/truncatedLastLine`` (a file cut off mid-row), not ``SkipReason/tooFewFields``.
struct CSVLogParser {
    let columns: LogColumns
    /// The field separator: given (``LogReaderOptions/delimiter``) or found in the header.
    var delimiter: UInt8
    /// Whether ``delimiter`` was given (else it is sniffed from the header line).
    let delimiterGiven: Bool
    /// Per header column: the role it fills (0 device, 1 time, 2 lat, 3 lon, 4 accuracy) or -1.
    var roles: [Int8] = []
    var fieldCount = 0
    var hasAccuracy = false
    var headerRead = false
    /// Unquoted field bytes of the current slow-path row.
    var scratch: [UInt8] = []

    init(columns: LogColumns, delimiter: UInt8? = nil) {
        self.columns = columns
        self.delimiter = delimiter ?? UInt8(ascii: ",")
        delimiterGiven = delimiter != nil
    }

    /// The delimiters sniffed, in order of preference on a tie: comma, semicolon, tab, bar.
    static let sniffed: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]

    /// The candidate delimiter occurring most often outside quotes in a header line (comma
    /// when none occurs); ties go to the earlier in ``sniffed``.
    static func sniff(_ line: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var counts = [0, 0, 0, 0]
        var quoted = false
        for c in line {
            if c == UInt8(ascii: "\"") { quoted.toggle(); continue }
            if !quoted, let k = sniffed.firstIndex(of: c) { counts[k] += 1 }
        }
        var best = 0
        for k in 1..<4 where counts[k] > counts[best] { best = k }
        return sniffed[best]
    }

    /// Appends up to `max - batch.count` fixes; returns at the end of input or a full batch.
    mutating func read(into batch: inout [Fix], max: Int, _ core: inout ReadCore, _ devices: inout DeviceState) throws(GeofenceError) {
        if !headerRead {
            try readHeader(&core)
            if !headerRead { return }
        }
        var s = 0, e = 0, terminated = true
        let roles = self.roles          // read-only from here; a local so `self` stays free to mutate
        // bounds[2 * role] ..< bounds[2 * role + 1]: a role's field in the row being parsed.
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: 10) { (bounds) throws(GeofenceError) in
            bounds.initialize(repeating: 0)
            let b = bounds.baseAddress!
            try roles.withUnsafeBufferPointer { (r) throws(GeofenceError) in
                if Self.fastRows { return try readSerial(into: &batch, max: max, roles: r, bounds: b, &core, &devices) }
                while batch.count < max {
                    guard try core.nextLine(&s, &e, &terminated) else { return }
                    if s == e { continue }                                     // blank line
                    let line = core.line
                    try generalRow(s, e, terminated: &terminated, line: line, roles: r, bounds: b, &core, &devices, &batch)
                }
            }
        }
    }

    /// The row `base[s..<e]` by the general path: split into fields (or, at a quote, parsed by
    /// the quoting rules from the row's start, maybe over several lines), then checked field by
    /// field with the messages of docs/errors.md. Out of line, so that the one-pass loop around
    /// the fast path stays small.
    @inline(never)
    mutating func generalRow(_ s: Int, _ e: Int, terminated: inout Bool, line: Int, roles r: UnsafeBufferPointer<Int8>,
                                     bounds b: UnsafeMutablePointer<Int>, _ core: inout ReadCore, _ devices: inout DeviceState,
                                     _ batch: inout [Fix]) throws(GeofenceError) {
        let p = UnsafePointer(core.base)
        let roleCount = r.count
        // Split on commas; leave for the quoted path at the first quote.
        var col = 0
        var i = s
        var fieldStart = s
        var quoted = false
        while true {
            i = Self.findDelimiterOrQuote(p, i, e, delimiter)
            if i < e && p[i] == UInt8(ascii: "\"") { quoted = true; break }
            if col < roleCount {
                let role = Int(r[col])
                if role >= 0 { b[2 * role] = fieldStart; b[2 * role + 1] = i }
            }
            col += 1
            if i >= e { break }
            i += 1
            fieldStart = i
        }
        if quoted {
            // Back up to the row start and parse it by the quoting rules.
            core.pos = s
            core.line -= 1
            guard let count = try quotedRow(&core, bounds: b, terminated: &terminated) else { return }
            try scratch.withUnsafeBufferPointer { (sp) throws(GeofenceError) in
                try row(sp.baseAddress ?? p, bounds: b, fields: count, terminated: terminated, line: line, &core, &devices, &batch)
            }
        } else {
            try row(p, bounds: b, fields: col, terminated: terminated, line: line, &core, &devices, &batch)
        }
    }

    /// The offset of the first `delimiter` or `"` in `p[i..<e]`, or `e`. Eight bytes at a time:
    /// a byte equal to the target becomes zero after the XOR, and `(x - 0x01…) & ~x & 0x80…`
    /// marks the lowest zero byte exactly (higher marks may be false positives, never lower ones).
    @inline(__always)
    static func findDelimiterOrQuote(_ p: UnsafePointer<UInt8>, _ start: Int, _ e: Int, _ delimiter: UInt8) -> Int {
        var i = start
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let delimiters = ones &* UInt64(delimiter), quotes = ones &* 0x22
        while i + 8 <= e {
            let w = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            let comma = w ^ delimiters, quote = w ^ quotes
            let marks = ((comma &- ones) & ~comma | (quote &- ones) & ~quote) & highs
            if marks != 0 { return i + marks.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < e {
            let c = p[i]
            if c == delimiter || c == UInt8(ascii: "\"") { return i }
            i += 1
        }
        return e
    }

    /// Checks the field count, parses the role fields at `p[bounds...]` and hands the fix on.
    @inline(__always)
    private func row(_ p: UnsafePointer<UInt8>, bounds b: UnsafeMutablePointer<Int>, fields: Int, terminated: Bool,
                     line: Int, _ core: inout ReadCore, _ devices: inout DeviceState, _ batch: inout [Fix]) throws(GeofenceError) {
        if fields != fieldCount {
            try wrongFieldCount(fields, terminated: terminated, line: line, &core)
            return
        }
        var ts = b[2], te = b[3]
        trimBlanks(p, &ts, &te)
        guard let time = try core.time(p + ts, te - ts, line: line) else { return }
        var las = b[4], lae = b[5]
        trimBlanks(p, &las, &lae)
        guard let lat = try core.latitude(p + las, lae - las, line: line) else { return }
        var los = b[6], loe = b[7]
        trimBlanks(p, &los, &loe)
        guard let lon = try core.longitude(p + los, loe - los, line: line) else { return }
        var accuracy = 0.0
        if hasAccuracy {
            var acs = b[8], ace = b[9]
            trimBlanks(p, &acs, &ace)
            guard let a = try core.accuracy(p + acs, ace - acs, line: line) else { return }
            accuracy = a
        }
        // The device last: it is interned (and counted) only with a fix whose other fields are good.
        var ds = b[0], de = b[1]
        trimBlanks(p, &ds, &de)
        guard let device = try core.device(p + ds, de - ds, line: line, &devices) else { return }
        try core.accept(Fix(device: device, time: time, lat: lat, lon: lon, accuracy: accuracy, offset: core.lastOffset), line: line, &devices, &batch)
    }

    @inline(never)
    private func wrongFieldCount(_ fields: Int, terminated: Bool, line: Int, _ core: inout ReadCore) throws(GeofenceError) {
        let header = fieldCount
        if fields < header && !terminated {
            try core.report(.truncatedLastLine, line: line) {
                "truncated last line: \(fields) of \(header) fields and no newline at the end of the file"
            }
        } else if fields < header {
            try core.report(.tooFewFields, line: line) { "row has \(fields) fields, the header has \(header)" }
        } else {
            try core.report(.tooManyFields, line: line) { "row has \(fields) fields, the header has \(header)" }
        }
    }

    // MARK: Quoted rows

    /// Parses the row starting at `core.pos` by RFC 4180 rules into `scratch`, setting the role
    /// bounds (offsets into `scratch`), advancing `core.pos` and `core.line` past it. Returns the
    /// field count, or nil after reporting a malformed row.
    private mutating func quotedRow(_ core: inout ReadCore, bounds b: UnsafeMutablePointer<Int>,
                                    terminated: inout Bool) throws(GeofenceError) -> Int? {
        scratch.removeAll(keepingCapacity: true)
        core.line += 1
        let line = core.line
        var i = core.pos
        var fieldStart = 0          // in scratch
        var col = 0
        var inQuotes = false
        var wasQuoted = false       // the current field had a quoted part
        var atFieldStart = true
        var problem: String? = nil
        terminated = false
        func finishField(_ scratchEnd: Int) {
            var stop = scratchEnd
            if !wasQuoted, stop > fieldStart, scratch[stop - 1] == 0x0D { stop -= 1 }
            if col < roles.count {
                let role = Int(roles[col])
                if role >= 0 { b[2 * role] = fieldStart; b[2 * role + 1] = stop }
            }
            col += 1
        }
        scan: while true {
            if i >= core.end {
                let keep = core.pos
                let more = try core.refill(keeping: keep)
                i -= keep - core.pos
                if !more && i >= core.end {
                    // End of input inside the row.
                    if inQuotes && !core.windowEndsFile {
                        // A parse worker's window split a quoted field: not this row's fault.
                        core.straddle = (core.pos, line - 1)
                        core.pos = i
                        return nil
                    }
                    if inQuotes { problem = "unterminated quoted field (the file ends inside it)" }
                    finishField(scratch.count)
                    break scan
                }
                continue
            }
            let c = core.base[i]
            if inQuotes {
                if c == UInt8(ascii: "\"") {
                    if i + 1 >= core.end && !core.eof {
                        // Need the next byte to tell `""` from a closing quote.
                        let keep = core.pos
                        _ = try core.refill(keeping: keep)
                        i -= keep - core.pos
                        continue
                    }
                    if i + 1 < core.end && core.base[i + 1] == UInt8(ascii: "\"") {
                        scratch.append(c); i += 2
                    } else {
                        inQuotes = false; i += 1
                    }
                } else {
                    if c == 0x0A { core.line += 1 }
                    scratch.append(c); i += 1
                }
                continue
            }
            if c == delimiter {
                finishField(scratch.count)
                fieldStart = scratch.count
                wasQuoted = false
                atFieldStart = true
                i += 1
                continue scan
            }
            switch c {
            case 0x0A:
                finishField(scratch.count)
                terminated = true
                i += 1
                break scan
            case UInt8(ascii: "\""):
                if atFieldStart || scratch[fieldStart...].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) && !wasQuoted {
                    scratch.removeSubrange(fieldStart...)
                    inQuotes = true
                    wasQuoted = true
                    atFieldStart = false
                    i += 1
                    continue scan
                }
                if problem == nil { problem = "unexpected quote in field \(col + 1)" }
            case 0x0D where wasQuoted:
                i += 1                                                       // CRLF after a closing quote
                continue scan
            default:
                if wasQuoted && c != 0x20 && c != 0x09 && problem == nil {
                    problem = "unexpected character after the closing quote of field \(col + 1)"
                }
            }
            atFieldStart = false
            scratch.append(c)
            i += 1
        }
        // Consumed up to i (relative to the current window).
        core.pos = i
        if let problem {
            try core.report(.malformedRow, line: line) { problem }
            return nil
        }
        return col
    }

    // MARK: Header

    private mutating func readHeader(_ core: inout ReadCore) throws(GeofenceError) {
        try core.skipBOM()
        var s = 0, e = 0, terminated = true
        var names: [String] = []
        while true {
            guard try core.nextLine(&s, &e, &terminated) else {
                throw .malformed(SourceLocation(file: core.path, line: Swift.max(core.line, 1)), "empty file, expected a CSV header naming the columns \(requiredList)")
            }
            if s == e { continue }
            let bytes = Array(UnsafeBufferPointer(start: core.base + s, count: e - s))
            if !delimiterGiven { delimiter = bytes.withUnsafeBufferPointer { Self.sniff($0) } }
            guard let fields = try? CSVReader(delimiter: delimiter).records(bytes).first?.fields else {
                throw .malformed(SourceLocation(file: core.path, line: core.line), "malformed CSV header")
            }
            names = fields.map { $0.trimmingBlanks() }
            break
        }
        let line = core.line
        roles = Array(repeating: -1, count: names.count)
        fieldCount = names.count
        switch columns.resolve(names) {
        case .failure(let problem):
            throw .malformed(SourceLocation(file: core.path, line: line), problem.message)
        case .success(let chosen):
            for (role, index) in chosen.enumerated() {
                guard let index else { continue }
                roles[index] = Int8(role)
                if role == 4 { hasAccuracy = true }
            }
        }
        headerRead = true
    }

    private var requiredList: String { [columns.device, columns.time, columns.lat, columns.lon].joined(separator: ", ") }
}

extension String {
    fileprivate func trimmingBlanks() -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
