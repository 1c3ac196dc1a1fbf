import GeofenceBase
import Glibc

/// Streams the fixes of one location log (CSV, NDJSON or GPX, plain or gzip, a file or stdin)
/// in batches, with bounded memory (docs/logs.md, docs/errors.md).
///
/// ```swift
/// let reader = try LogReader(path: "data/virginia_beach_ais.csv")
/// var batch: [Fix] = []
/// while try reader.next(into: &batch) {
///     for fix in batch { ... reader.devices.name(fix.device) ... }
/// }
/// print(reader.skipped)          // [:] unless options.skipInvalid
/// ```
///
/// - Memory: about two read chunks (``LogReaderOptions/chunkSize``, 1 MiB) plus the longest
///   line, one compressed chunk for gzip, the caller's batch, and the ``DeviceTable`` (names and
///   the previous fix of each device). Nothing grows with the log's length.
/// - Bad input: strict by default, the first bad row throws ``GeofenceError/input(_:)`` with
///   kind ``InputError/Kind/invalidRecord(reason:)`` (the reason is the ``SkipReason`` raw
///   value) and the message `path:line: what is wrong`; with ``LogReaderOptions/skipInvalid``
///   bad rows are dropped and counted in ``skipped``. Whole-file problems always throw, even
///   with `skipInvalid`: missing CSV columns, not GPX, a bad gzip stream, an over-long line
///   (``InputError/Kind/malformed``), a file that cannot be opened or read.
/// - Order: fixes come in file order. Each device's fixes are checked to be in non-decreasing
///   time, and a fix identical in time and position to its device's previous fix is a
///   duplicate (see ``SkipReason``).
/// - Threads: with ``LogReaderOptions/threads`` above 1, CSV and NDJSON are parsed by that
///   many threads at once, in rounds of a few chunks per thread read ahead (``reading`` says
///   so); with ``LogReaderOptions/readAhead``, the next round is parsed in the background
///   while the caller works on a batch. The
///   fixes, batches, devices, skips, messages and errors are those of a serial read, but
///   ``line`` and ``bytesRead`` run ahead of the batches delivered. A gzip file of several
///   members has them inflated by the threads in parallel (``gzipMembers``).
/// - Not thread-safe: one reader per thread; a ``DeviceTable`` is shared only between readers
///   used one after the other.
public final class LogReader {
    /// The path as given (`-` for stdin); the prefix of every error message.
    public let path: String
    /// The format being read: `options.format`, else the one the file name implies, else the
    /// one the first bytes suggest.
    public let format: LogFormat
    /// The options the reader was opened with (`chunkSize` and `maxLineLength` at least 1).
    public let options: LogReaderOptions
    /// Device names by ``Fix/device`` index, in order of first appearance.
    public let devices: DeviceTable
    /// With several threads: whether the next round is parsed in the background as soon as a
    /// batch is handed out (``LogReaderOptions/readAhead`` at first). The caller may change it
    /// between batches, as it shares the cores between reading and its own work; the fixes and
    /// errors do not depend on it.
    public var readAhead: Bool

    private let source: ByteSource
    private var core: ReadCore
    private var csv: CSVLogParser?
    private var ndjson: NDJSONLogParser?
    private var gpx: GPXLogParser?
    private var finished = false
    /// Parallel reading: the rounds, the parser they copy, fixes read ahead, and the error
    /// met after them.
    private var parallel: ParallelReader?
    private var lineParser: LineParser?
    private var warmedUp = false
    private var ready: [Fix] = []
    private var readyPos = 0
    private var pendingError: GeofenceError?

    /// Whether the log is read by several threads at once, or serially and why.
    public let reading: LogReading

    /// Fixes delivered so far.
    public private(set) var fixesRead = 0

    /// Opens a log. The format is `options.format`, else the file name's (``LogFormat/detect(path:)``),
    /// else guessed from the first bytes (`<` GPX, `{` NDJSON, otherwise CSV).
    /// - Parameters:
    ///   - path: a file, or `-` for standard input.
    ///   - devices: the device table to intern into; pass the previous reader's to read several
    ///     logs as one (same indices, time order checked across them).
    /// - Throws: ``GeofenceError/input(_:)`` with kind ``InputError/Kind/notFound`` (no such
    ///   file), ``InputError/Kind/notAFile`` (a directory), ``InputError/Kind/cannotOpen(errno:)``,
    ///   ``InputError/Kind/readFailed(errno:)`` (the first read failed), or
    ///   ``InputError/Kind/malformed`` (zlib cannot start; when the format has to be guessed
    ///   from the content, also a bad gzip stream or a first line over
    ///   ``LogReaderOptions/maxLineLength``). Header problems (missing CSV columns, not GPX)
    ///   come from the first ``next(into:max:)``.
    public init(path: String, options given: LogReaderOptions = LogReaderOptions(), devices: DeviceTable = DeviceTable()) throws(GeofenceError) {
        // Sizes set after the options' init (public fields) are raised to 1 here as there: a
        // chunk of 0 bytes would be a buffer too small for the first read.
        var options = given
        options.chunkSize = Swift.max(1, options.chunkSize)
        options.maxLineLength = Swift.max(1, options.maxLineLength)
        self.path = path
        self.options = options
        self.readAhead = options.readAhead
        self.devices = devices
        source = try ByteSource(path: path, chunkSize: options.chunkSize, pipelined: options.threads > 1, threads: options.threads,
                                memberLimit: options.gzipMemberLimit, mapThreshold: options.mapThreshold)
        let fileIndex = Int32(devices.state.files.count)
        devices.state.files.append(path)
        core = ReadCore(source: source, path: path, strict: !options.skipInvalid,
                        maxLineLength: options.maxLineLength, fileIndex: fileIndex)
        core.timeUnit = options.timeUnit
        core.timeRange = options.timeRange
        if let f = options.format ?? LogFormat.detect(path: path) {
            format = f
        } else {
            while core.end < 64 {
                guard try core.refill(keeping: 0) else { break }
            }
            format = LogFormat.sniff(core.base, core.end)
        }
        switch format {
        case .csv: csv = CSVLogParser(columns: options.columns, delimiter: options.delimiter)
        case .ndjson: ndjson = NDJSONLogParser(columns: options.columns)
        case .gpx: gpx = GPXLogParser(deviceName: options.device ?? Self.defaultDeviceName(path), kinds: options.gpxPoints)
        }
        if options.threads <= 1 {
            reading = .serial(reason: "one thread")
        } else if format == .gpx {
            reading = .serial(reason: "GPX is read serially")
        } else {
            reading = .parallel(threads: options.threads)
            parallel = ParallelReader(threads: options.threads, chunkBytes: Swift.max(1, options.parallelChunkSize))
            parallel!.quickStart = options.quickStart
            lineParser = csv.map { .csv($0) } ?? ndjson.map { .ndjson($0) }
            csv = nil
            ndjson = nil
        }
    }

    /// The GPX device id for a path: the file name without directory and extensions
    /// (`.gz`, then one more), `stdin` for `-`.
    public static func defaultDeviceName(_ path: String) -> String {
        if path == "-" { return "stdin" }
        var name = Substring(path)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if name.lowercased().hasSuffix(".gz") { name = name.dropLast(3) }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return String(name)
    }

    /// Replaces the contents of `batch` with the next fixes, at most `max` (the array's
    /// capacity is kept, so a reused batch does not allocate). Returns false, with `batch`
    /// empty, at the end of the log; after an error the reader is finished too. `max` below 1
    /// counts as 1.
    /// - Throws: ``GeofenceError/input(_:)``: ``InputError/Kind/invalidRecord(reason:)`` for a
    ///   bad row in strict mode (reason = ``SkipReason`` raw value); ``InputError/Kind/malformed``
    ///   for whole-file problems (no usable CSV header: empty, malformed, a required column
    ///   missing or twice; not a GPX file; a bad gzip stream; a line longer than
    ///   ``LogReaderOptions/maxLineLength``);
    ///   ``InputError/Kind/readFailed(errno:)`` when reading fails.
    /// - Complexity: O(bytes read).
    public func next(into batch: inout [Fix], max: Int = 8192) throws(GeofenceError) -> Bool {
        guard source.isGuarded else { return try nextBatch(into: &batch, max: max) }
        // A mapped file (plain, or gzip inflated whole from its mapping): what was read of it is
        // valid unless it shrank meanwhile (the pages it lost read as zeros), whatever the
        // batch or the error says.
        let more: Bool
        do {
            more = try nextBatch(into: &batch, max: max)
        } catch {
            if source.shrank { throw shrankError(&batch) }
            throw error
        }
        if source.shrank { throw shrankError(&batch) }
        source.consumed(upTo: core.pos)
        return more
    }

    /// The error for a mapped file that shrank while it was read (the reader is finished).
    private func shrankError(_ batch: inout [Fix]) -> GeofenceError {
        finished = true
        batch.removeAll(keepingCapacity: true)
        batchDevices = nil
        let size = source.totalBytes ?? 0
        return .input(InputError(SourceLocation(file: path), .readFailed(errno: EIO),
                                 "the file shrank while it was read (it had \(size) bytes when opened): read it again once it no longer changes"))
    }

    /// ``next(into:max:)`` but the checks of a mapped file.
    private func nextBatch(into batch: inout [Fix], max: Int) throws(GeofenceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        batchDevices = nil
        guard !finished else { return false }
        let limit = Swift.max(1, max)
        if parallel != nil { return try nextParallel(into: &batch, limit: limit) }
        do {
            switch format {
            case .csv: try csv!.read(into: &batch, max: limit, &core, &devices.state)
            case .ndjson: try ndjson!.read(into: &batch, max: limit, &core, &devices.state)
            case .gpx: try gpx!.read(into: &batch, max: limit, &core, &devices.state)
            }
        } catch {
            finished = true
            batch.removeAll(keepingCapacity: true)
            throw error
        }
        if batch.isEmpty {
            finished = true
            return false
        }
        fixesRead += batch.count
        return true
    }

    /// ``next(into:max:)`` for parallel reading: rounds until `limit` fixes are ready. An error
    /// comes when the batch would reach the row that caused it, as in a serial read (the fixes
    /// of that batch are dropped).
    private func nextParallel(into batch: inout [Fix], limit: Int) throws(GeofenceError) -> Bool {
        var joined = false
        // The batch's devices are those joined now when nothing was left over before it and
        // the batch takes all that is joined (``batchDevices``).
        let leftover = ready.count > readyPos
        parallel!.joinedDevices.clear()
        // Nothing left over: the rounds are joined into the caller's array (emptied above, its
        // capacity kept), which goes back to the caller on every way out below. One array is
        // written batch after batch, not the caller's and this reader's in turn: half the fresh
        // pages.
        let borrowed = ready.isEmpty && ready.capacity < batch.capacity
        if borrowed { swap(&batch, &ready) }
        while ready.count - readyPos < limit && pendingError == nil && !parallel!.done {
            // With quickStart, what a round made goes out at once (the caller works on it while
            // the next round is parsed); rounds then hold about a batch (``ParallelReader/batchFixes``).
            // The header's first fix waits for the first round (alone it would be a batch of one);
            // a round is begun only once the reader is warmed up. A round begun ahead while this
            // one was joined waits for the next call.
            if options.quickStart && parallel!.roundsBegun > 0 && ready.count > readyPos && (parallel!.pending == nil || joined) { break }
            if readyPos > 0 {
                ready.removeSubrange(0..<readyPos)
                readyPos = 0
            }
            do {
                if warmedUp {
                    // With readAhead, the workers begin the next round as soon as this one's chunks are
                    // all taken (docs/logs.md#parallel-reading).
                    joined = true
                    try parallel!.round(&lineParser!, &core, &devices.state, &ready, ahead: readAhead)
                } else {
                    // The header (or the first object's keys) and the first fix, serially.
                    warmedUp = true
                    try parallel!.serialStep(&lineParser!, &core, &devices.state, &ready)
                }
            } catch {
                pendingError = error
            }
        }
        let available = ready.count - readyPos
        if let e = pendingError, available < limit {
            finished = true
            if borrowed {
                swap(&batch, &ready)
                batch.removeAll(keepingCapacity: true)
            }
            ready = []
            throw e
        }
        guard available > 0 else {
            finished = true
            if borrowed { swap(&batch, &ready) }                       // both empty
            return false
        }
        let n = Swift.min(limit, available)
        if !leftover && n == available && pendingError == nil { batchDevices = parallel!.joinedDevices.members }
        if borrowed {
            // The caller's array back, with every fix joined (readyPos is 0: nothing was left
            // over before); past `n`, the rest waits here for the next call.
            swap(&batch, &ready)
            if n < available {
                ready.removeAll(keepingCapacity: true)
                ready.append(contentsOf: batch[n...])
                batch.removeSubrange(n...)
            }
        } else if readyPos == 0 && n == available && batch.capacity < n {
            // All of it, and no room in the caller's array: the joined fixes become the batch,
            // and the batch's storage the next round's (no copy).
            swap(&batch, &ready)
        } else {
            // Into the caller's array, which keeps its storage.
            batch.append(contentsOf: ready[readyPos..<readyPos + n])
            readyPos += n
            if readyPos == ready.count {
                ready.removeAll(keepingCapacity: true)
                readyPos = 0
            }
        }
        fixesRead += n
        if options.quickStart { parallel!.batchFixes = limit }
        // With readAhead, the next round is parsed while the caller works on this batch
        // (joined when needed).
        // The small first rounds are always read ahead.
        if (readAhead || (options.quickStart && parallel!.ramping)) && warmedUp && pendingError == nil { parallel!.begin(lineParser!, &core, known: devices.state) }
        return true
    }

    /// Whether the log is a mapped file (docs/logs.md#files-are-mapped).
    var isMapped: Bool { source.isMapped }

    /// Whether the log was one gzip member read and inflated at once (docs/logs.md#gzip).
    var isInflatedWhole: Bool { source.inflatedWhole }

    /// The devices of the fixes of the batch just handed out, each once (in the order the
    /// reader met them), when the reader knows them without looking at every fix: a parallel
    /// read's batch that holds every fix joined for it and none from before
    /// (docs/logs.md#the-devices-of-a-batch); nil otherwise. An evaluation takes them instead
    /// of a pass over the batch.
    public private(set) var batchDevices: [Int32]? = nil

    /// Whether a round of a parallel read is being parsed ahead (tests).
    var roundPending: Bool { parallel?.pending != nil }

    /// Whether other threads are parsing the log's next round while the caller works on the
    /// batch just handed out (``readAhead``): false when nothing is (the log's last fixes, or
    /// the rest of the last round, are handed out; a round that could not be split waits for a
    /// serial step; a read error stopped the reading), or the log is read on one thread.
    public var isParsingAhead: Bool {
        if case .parse = parallel?.pending { return true }
        return false
    }

    /// Rounds of a parallel read begun while the one before was joined (tests).
    var roundsBegunAhead: Int { parallel?.roundsBegunAhead ?? 0 }

    /// Rounds of a parallel read whose workers did not look devices up in the reader's table
    /// (most devices were new), and whether the next one will (tests).
    var roundsWithoutLookUp: Int { parallel?.roundsWithoutLookUp ?? 0 }
    var looksUpKnownDevices: Bool { parallel?.lookUpKnown ?? false }

    deinit {
        // A round parsed in the background reads the source's buffer.
        parallel?.waitIdle()
    }

    /// All remaining fixes in one array (tests and small files; large logs should use ``next(into:max:)``).
    /// - Throws: as ``next(into:max:)``; the fixes read before the error are lost.
    /// - Complexity: O(bytes read); memory O(fixes).
    public func readAll() throws(GeofenceError) -> [Fix] {
        var all: [Fix] = []
        var batch: [Fix] = []
        while try next(into: &batch) { all.append(contentsOf: batch) }
        return all
    }

    /// The unit numeric times were read in when ``LogReaderOptions/timeUnit`` is
    /// ``TimeUnit/auto`` and the file has a numeric time (nil otherwise), with the first such
    /// value as read: the CLI says it in one line when it is not seconds.
    public var detectedTimeUnit: (unit: TimeUnit, first: Double)? {
        guard core.timeUnitDetected, let first = core.firstNumericTime else { return nil }
        return (core.timeUnit, first)
    }

    /// Whether CSV rows may take the one-pass path (docs/logs.md, "Numbers"); off, every row
    /// takes the general one. A switch for the whole process, which the fuzz targets turn off
    /// to compare the two paths on the same bytes.
    package static var oneCheckCSVRows: Bool {
        get { CSVLogParser.fastRows }
        set { CSVLogParser.fastRows = newValue }
    }

    /// GPX waypoints without `<time>` met so far: points of interest, not fixes, so neither
    /// read nor a bad row (docs/logs.md#gpx).
    public var untimedWaypoints: Int { core.untimedWaypoints }

    /// The CSV field separator in use (given or sniffed from the header); nil for other formats
    /// or before the header was read.
    public var csvDelimiter: UInt8? {
        if case .csv(let p)? = lineParser { return p.headerRead ? p.delimiter : nil }
        return csv?.headerRead == true ? csv?.delimiter : nil
    }

    /// Rows skipped so far, by reason (empty in strict mode).
    public var skipped: [SkipReason: Int] { core.skipped }

    /// Total rows skipped.
    /// - Complexity: O(number of distinct skip reasons), at most 15.
    public var skippedTotal: Int { core.skipped.values.reduce(0, +) }

    /// The first message of each skip reason (`path:line: what`), for the summary.
    public var firstSkipMessages: [SkipReason: String] { core.firstMessages }

    /// Bytes taken from the file so far (compressed bytes for gzip), for progress.
    public var bytesRead: Int64 { source.bytesRead }

    /// The file's size when it is a regular file; nil for pipes.
    public var totalBytes: Int64? { source.totalBytes }

    /// Whether the content is gzip-compressed.
    public var isCompressed: Bool { source.isGzip }

    /// A gzip file read by members (docs/logs.md#gzip): the members read so far and how many of
    /// them the workers inflated ahead in parallel; nil when the file is not read that way
    /// (plain, one thread, a pipe or stdin, or a file of one chunk).
    public var gzipMembers: GzipMemberCount? {
        source.members.map { GzipMemberCount(members: $0.members.count, inParallel: $0.members.inParallel) }
    }

    /// The physical line reached (1-based).
    public var line: Int { core.line }
    /// Rows this reader's own core read in blocks (a serial read; tests).
    var rowsInBlocks: Int { core.rowsInBlocks }
    /// Of those, rows read as runs of one device past a block (a serial read; tests).
    var rowsInRuns: Int { core.rowsInRuns }

    /// Bytes held by the reader's own buffers (decoded window and compressed input), the
    /// quantity that must stay bounded whatever the log's size. For a mapped file, the bytes
    /// of the mapping from the last pages dropped to the reader's position (at most about
    /// 16 MiB, docs/logs.md#files-are-mapped).
    public var bufferCapacity: Int {
        if let held = source.mappedBytesHeld(upTo: core.pos) { return held }
        return source.capacity + (source.isGzip ? source.chunkSize : 0)
    }
}

/// The members of a gzip log (``LogReader/gzipMembers``).
public struct GzipMemberCount: Sendable, Hashable {
    /// Members read.
    public var members: Int
    /// Members the workers inflated ahead, in parallel; the others were inflated in file order.
    public var inParallel: Int

    /// A count of `members`, `inParallel` of them inflated in parallel.
    public init(members: Int, inParallel: Int) {
        self.members = members
        self.inParallel = inParallel
    }
}

/// How a log is read (`--summary` says it).
public enum LogReading: Sendable, Hashable {
    /// By this many threads at once (docs/logs.md#parallel-reading).
    case parallel(threads: Int)
    /// By one thread, for this reason.
    case serial(reason: String)

    /// `parallel` or `serial`.
    public var name: String {
        switch self {
        case .parallel: return "parallel"
        case .serial: return "serial"
        }
    }
}
