import GeofenceBase
import Dispatch
import Glibc

/// The line format a ``ParallelReader`` parses: a copy of the reader's parser, set up (CSV
/// header read, NDJSON keys chosen), handed to every worker.
enum LineParser: @unchecked Sendable {
    case csv(CSVLogParser)
    case ndjson(NDJSONLogParser)

    /// Whether a `"` can hide a newline (CSV quoting); NDJSON strings cannot hold one.
    var quotesHideNewlines: Bool { if case .csv = self { return true } else { return false } }

    mutating func read(into batch: inout [Fix], max: Int, _ core: inout ReadCore, _ devices: inout DeviceState) throws(GeofenceError) {
        switch self {
        case .csv(var p):
            defer { self = .csv(p) }
            try p.read(into: &batch, max: max, &core, &devices)
        case .ndjson(var p):
            defer { self = .ndjson(p) }
            try p.read(into: &batch, max: max, &core, &devices)
        }
    }
}

/// What a worker made of one chunk of the window: the fixes in file order with their lines,
/// device indices local to the chunk (``devices``), the rows it skipped, and how it ended.
struct ChunkResult: @unchecked Sendable {
    var fixes: [Fix] = []
    var lines: [Int] = []
    var devices = DeviceState()
    var skipped: [SkipReason: Int] = [:]
    var firstMessages: [SkipReason: String] = [:]
    /// Strict mode: the first bad row (every fix before it is in `fixes`).
    var error: GeofenceError? = nil
    /// The record that ran past the chunk (offset, line before it); nothing after it was read.
    var straddle: (pos: Int, line: Int)? = nil
    /// The chunk started with the time unit unresolved and resolved it: the unit and the value.
    var resolvedUnit: (unit: TimeUnit, first: Double)? = nil
    /// Lines read up to the end of the chunk.
    var endLine = 0
}

/// Reads a CSV or NDJSON log with several threads, giving the same fixes, devices, skip counts,
/// messages and errors as a serial read (docs/logs.md#parallel-reading).
///
/// Round by round: the window of decoded bytes is filled to a few chunks per thread; the
/// workers count its newlines (and, for CSV, quotes) in equal parts; record boundaries are
/// found from the quote parity (a newline after an even number of quotes since the window's
/// start, which is a record boundary, ends a record); the chunks between boundaries are parsed
/// at once, each worker with its own device table and skip counts; then one thread joins them
/// in file order: device indices mapped to the shared table (devices by first appearance),
/// time order and duplicates checked, skips and first messages added. A chunk whose last
/// record runs past its end (a quote that is not RFC 4180 quoting made the parity wrong) ends
/// the round there, and the next record is read serially; so is a record longer than the
/// window, and the rest of a file whose source failed.
struct ParallelReader {
    let threads: Int
    /// Bytes per chunk.
    let chunkBytes: Int
    /// The end of input was reached.
    var done = false

    /// Reads at least one more record into `out` (unless the end comes first: then `done`).
    /// - Throws: what a serial read throws at the first bad row (strict) or a whole-file problem;
    ///   the fixes before it are in `out`.
    mutating func round(_ parser: inout LineParser, _ core: inout ReadCore, _ devices: inout DeviceState,
                        _ out: inout [Fix]) throws(GeofenceError) {
        guard let source = core.source else { done = true; return }
        let target = Swift.min(2 * threads * chunkBytes, core.maxLineLength)
        if core.end - core.pos < target && !core.eof {
            core.end = source.compact(keeping: core.pos, end: core.end)
            core.pos = 0
            core.base = source.base
            while core.end < target && !core.eof {
                // A failure is met again, at its line, by the serial step below.
                guard let r = try? source.refill(keeping: 0, end: core.end) else { break }
                core.base = source.base
                core.end = r.end
                if r.eof { core.eof = true }
            }
        }
        let s0 = core.pos, e0 = core.end
        if s0 >= e0 && core.eof { done = true; return }
        let quotes = parser.quotesHideNewlines
        let parts = Swift.max(1, Swift.min((e0 - s0 + chunkBytes - 1) / chunkBytes, 4 * threads))
        let counts = Self.count(core.base, s0, e0, parts: parts, quotes: quotes)
        let roundEnd: Int
        if core.eof {
            roundEnd = e0
        } else {
            var parity = counts.reduce(0) { $0 + $1.quotes } & 1
            var j = e0 - 1, found = -1
            while j >= s0 {
                let c = core.base[j]
                if c == 0x22 && quotes { parity ^= 1 } else if c == 0x0A && parity == 0 { found = j + 1; break }
                j -= 1
            }
            roundEnd = found
        }
        guard roundEnd > s0 else { return try serialStep(&parser, &core, &devices, &out) }

        // Chunk starts: the first boundary at or after each part's start.
        var starts = [(pos: s0, line: core.line)]
        var lines = core.line, parity = 0
        for k in 1..<parts {
            lines += counts[k - 1].lines
            parity ^= counts[k - 1].quotes & 1
            var j = s0 + (e0 - s0) * k / parts, q = parity, l = lines
            while j < roundEnd {
                let c = core.base[j]
                if c == 0x22 && quotes { q ^= 1 } else if c == 0x0A { l += 1; if q == 0 { j += 1; break } }
                j += 1
            }
            if j >= roundEnd { break }
            if j > starts[starts.count - 1].pos { starts.append((j, l)) }
        }
        let chunkCount = starts.count
        let base = UnsafeShared(base: core.base)
        let settings = ChunkSettings(path: core.path, strict: core.strict, fileIndex: core.fileIndex, timeUnit: core.timeUnit,
                                     timeUnitDetected: core.timeUnitDetected, firstNumericTime: core.firstNumericTime,
                                     timeRange: core.timeRange)
        let endsFile = core.eof
        var results = [ChunkResult?](repeating: nil, count: chunkCount)
        let sharedParser = parser
        results.withUnsafeMutableBufferPointer { rs in
            let slots = UnsafeShared(base: rs.baseAddress!)
            let bounds = starts
            DispatchQueue.concurrentPerform(iterations: chunkCount) { i in
                let to = i + 1 < bounds.count ? bounds[i + 1].pos : roundEnd
                slots.base[i] = Self.parse(sharedParser, base.base, from: bounds[i].pos, to: to, line: bounds[i].line,
                                           endsFile: endsFile && to == e0, settings)
            }
        }

        // Join in file order.
        for i in 0..<chunkCount {
            guard var r = results[i] else { continue }
            let to = i + 1 < chunkCount ? starts[i + 1].pos : roundEnd
            if let (unit, first) = r.resolvedUnit {
                if core.timeUnit == .auto {
                    core.timeUnit = unit
                    core.timeUnitDetected = true
                    core.firstNumericTime = first
                } else if core.timeUnit != unit {
                    // An earlier chunk of this round chose another unit: read this one with it.
                    let again = ChunkSettings(path: core.path, strict: core.strict, fileIndex: core.fileIndex, timeUnit: core.timeUnit,
                                              timeUnitDetected: core.timeUnitDetected, firstNumericTime: core.firstNumericTime,
                                              timeRange: core.timeRange)
                    r = Self.parse(parser, core.base, from: starts[i].pos, to: to, line: starts[i].line,
                                   endsFile: endsFile && to == e0, again)
                }
            }
            for (reason, n) in r.skipped {
                core.skipped[reason, default: 0] += n
                if core.firstMessages[reason] == nil, let m = r.firstMessages[reason] { core.firstMessages[reason] = m }
            }
            var global = [Int32](repeating: -1, count: r.devices.names.count)
            try r.devices.bytes.withUnsafeBufferPointer { (names) throws(GeofenceError) in
                let namesBase = names.baseAddress ?? UnsafePointer(bitPattern: 1)!
                for j in 0..<r.fixes.count {
                    var f = r.fixes[j]
                    let local = Int(f.device)
                    var g = global[local]
                    if g < 0 {
                        let s = r.devices.offsets[local], e = r.devices.offsets[local + 1]
                        guard let d = try core.device(namesBase + s, e - s, line: r.lines[j], &devices) else { continue }
                        g = d
                        global[local] = g
                    }
                    f.device = g
                    try core.accept(f, line: r.lines[j], &devices, &out)
                }
            }
            if let e = r.error { throw e }
            if let (pos, line) = r.straddle {
                core.pos = pos
                core.line = line
                return try serialStep(&parser, &core, &devices, &out)
            }
            core.pos = to
            core.line = r.endLine
        }
    }

    /// Reads serially until one more fix (or the end): for what the rounds do not split.
    mutating func serialStep(_ parser: inout LineParser, _ core: inout ReadCore, _ devices: inout DeviceState,
                             _ out: inout [Fix]) throws(GeofenceError) {
        let before = out.count
        try parser.read(into: &out, max: before + 1, &core, &devices)
        if out.count == before { done = true }
    }

    /// What a worker needs of the reader's state.
    struct ChunkSettings: Sendable {
        var path: String
        var strict: Bool
        var fileIndex: Int32
        var timeUnit: TimeUnit
        var timeUnitDetected: Bool
        var firstNumericTime: Double?
        var timeRange: TimeRange
    }

    /// Parses `base[from..<to]` (whole records; `line` lines before it) with a private core.
    static func parse(_ parser: LineParser, _ base: UnsafeMutablePointer<UInt8>, from: Int, to: Int, line: Int,
                      endsFile: Bool, _ s: ChunkSettings) -> ChunkResult {
        var parser = parser
        var core = ReadCore(window: base, pos: from, end: to, line: line, endsFile: endsFile,
                            path: s.path, strict: s.strict, fileIndex: s.fileIndex)
        core.timeUnit = s.timeUnit
        core.timeUnitDetected = s.timeUnitDetected
        core.firstNumericTime = s.firstNumericTime
        core.timeRange = s.timeRange
        var r = ChunkResult()
        do {
            try parser.read(into: &r.fixes, max: Int.max, &core, &r.devices)
        } catch {
            r.error = error
        }
        r.lines = core.lines
        r.skipped = core.skipped
        r.firstMessages = core.firstMessages
        r.straddle = core.straddle
        r.endLine = core.line
        if s.timeUnit == .auto && core.timeUnit != .auto, let first = core.firstNumericTime {
            r.resolvedUnit = (core.timeUnit, first)
        }
        return r
    }

    /// Newlines and (with `quotes`) `"` in each of `parts` equal parts of `base[s..<e]`, counted
    /// by the workers.
    static func count(_ base: UnsafeMutablePointer<UInt8>, _ s: Int, _ e: Int, parts: Int, quotes: Bool) -> [(lines: Int, quotes: Int)] {
        var out = [(lines: Int, quotes: Int)](repeating: (0, 0), count: parts)
        let shared = UnsafeShared(base: base)
        out.withUnsafeMutableBufferPointer { o in
            let slots = UnsafeShared(base: o.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: parts) { k in
                let from = s + (e - s) * k / parts, to = s + (e - s) * (k + 1) / parts
                let p = UnsafePointer(shared.base)
                slots.base[k] = (countByte(p, from, to, 0x0A), quotes ? countByte(p, from, to, 0x22) : 0)
            }
        }
        return out
    }

    /// How many bytes of `p[from..<to]` equal `c`, eight at a time.
    static func countByte(_ p: UnsafePointer<UInt8>, _ from: Int, _ to: Int, _ c: UInt8) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let pattern = ones &* UInt64(c)
        var n = 0, i = from
        while i + 8 <= to {
            let x = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) ^ pattern
            // A byte's high bit set exactly where the byte of x is zero.
            let zero = ~(((x & lows) &+ lows) | x | lows)
            n += zero.nonzeroBitCount
            i += 8
        }
        while i < to {
            if p[i] == c { n += 1 }
            i += 1
        }
        return n
    }
}
