import GeofenceBase
import Glibc

/// Events moved to disk when they outgrow a memory budget (docs/evaluation.md#memory).
///
/// A run's held events come out grouped by device in index order (`takeAllEvents`), each
/// device's in time order; each spill writes them as one sorted run to its own temporary
/// file. `merge` reads every run back, device by device, and hands the events out in the
/// output order: for each device, its events of the first run, then of the second, ...,
/// then those still held in memory. Runs hold raw event records and live only as long as
/// the process: `removeAll` deletes them (on success, on failure, on a signal).
public final class EventSpill {
    /// The temporary files written so far, in order.
    public private(set) var paths: [String] = []
    let prefix: String
    /// Events spilled so far.
    public internal(set) var spilledEvents = 0

    /// Spill files are named `prefix + n` (e.g. `/out/.events.ndjson.spill-4711-0`).
    public init(prefix: String) { self.prefix = prefix }

    /// The file the next `write` creates (for callers that register it for removal first).
    public var nextPath: String { prefix + String(paths.count) }

    /// Bytes one held event costs in memory (what a budget counts).
    public static let eventBytes = MemoryLayout<EvaluationEvent>.stride

    /// Writes events (grouped by device in index order) as the next sorted run.
    /// - Throws: `GeofenceError.output` when the file cannot be created or written.
    /// - Complexity: O(events).
    public func write(_ events: [EvaluationEvent]) throws(GeofenceError) {
        guard !events.isEmpty else { return }
        let run = try begin()
        try run.append(events[...])
        try run.finish()
    }

    /// Starts the next sorted run; append events in order, then `finish()` it.
    /// - Throws: `GeofenceError.output` when the file cannot be created.
    public func begin() throws(GeofenceError) -> RunWriter {
        let path = nextPath
        TemporaryFiles.shared.add(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .output(OutputError(path: path, .create, errno: errno)) }
        paths.append(path)
        return RunWriter(fd: fd, path: path, spill: self)
    }

    /// Appends events to one run file through a small buffer.
    public final class RunWriter {
        let fd: Int32
        let path: String
        unowned let spill: EventSpill
        var buffer: [EvaluationEvent] = []
        var closed = false

        init(fd: Int32, path: String, spill: EventSpill) {
            self.fd = fd; self.path = path; self.spill = spill
            buffer.reserveCapacity(8192)
        }

        deinit { if !closed { close(fd) } }

        /// Appends events (the run's order: device, then time).
        /// - Throws: `GeofenceError.output` when writing fails.
        public func append(_ events: ArraySlice<EvaluationEvent>) throws(GeofenceError) {
            var rest = events
            while !rest.isEmpty {
                let n = min(rest.count, 8192 - buffer.count)
                buffer.append(contentsOf: rest.prefix(n))
                rest = rest.dropFirst(n)
                if buffer.count == 8192 { try flush() }
            }
        }

        /// Writes what is buffered and closes the file.
        /// - Throws: `GeofenceError.output` when writing or closing fails.
        public func finish() throws(GeofenceError) {
            try flush()
            closed = true
            guard close(fd) == 0 else { throw .output(OutputError(path: path, .close, errno: errno)) }
        }

        func flush() throws(GeofenceError) {
            guard !buffer.isEmpty else { return }
            let fd = self.fd
            let failed = buffer.withUnsafeBytes { AtomicFile.writeAll(fd, $0) }
            if failed != 0 { throw .output(OutputError(path: path, .write, errno: failed)) }
            spill.spilledEvents += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Hands out every spilled event and then `held` (the events still in memory, grouped by
    /// device in index order) in the output order, for devices `0..<deviceCount`.
    /// - Throws: `GeofenceError.input` (`readFailed`) when a spill file cannot be read back,
    ///   and whatever `body` throws.
    /// - Complexity: O(events + devices × runs); memory: one buffer of `bufferEvents` per run.
    public func merge(held: [EvaluationEvent], deviceCount: Int, bufferEvents: Int = 8192,
                      _ body: (EvaluationEvent) throws(GeofenceError) -> Void) throws(GeofenceError) {
        var readers: [RunReader] = []
        for p in paths { readers.append(try RunReader(path: p, capacity: max(1, bufferEvents))) }
        defer { for r in readers { r.close() } }
        var h = 0
        for d in 0..<Int32(clamping: deviceCount) {
            for r in readers {
                while let e = try r.peek(), e.device == d {
                    try body(e)
                    r.advance()
                }
            }
            while h < held.count && held[h].device == d {
                try body(held[h])
                h += 1
            }
        }
    }

    /// Deletes every spill file (also after a failure; unlink errors are ignored).
    public func removeAll() {
        for p in paths { unlink(p); TemporaryFiles.shared.remove(p) }
        paths.removeAll()
    }

    /// Sequential reader of one run file.
    final class RunReader {
        let fd: Int32
        let path: String
        var buffer: [EvaluationEvent]
        var count = 0
        var index = 0
        var eof = false

        init(path: String, capacity: Int) throws(GeofenceError) {
            self.path = path
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw .input(InputError(SourceLocation(file: path), .cannotOpen(errno: errno), "cannot reopen a spill file"))
            }
            buffer = [EvaluationEvent](repeating: EvaluationEvent(device: 0, fence: 0, type: .enter, initial: false, time: 0, lat: 0, lon: 0),
                                       count: capacity)
        }

        func close() { Glibc.close(fd) }

        /// The next event, nil at the end.
        func peek() throws(GeofenceError) -> EvaluationEvent? {
            if index < count { return buffer[index] }
            if eof { return nil }
            try fill()
            return index < count ? buffer[index] : nil
        }

        func advance() { index += 1 }

        private func fill() throws(GeofenceError) {
            let size = EventSpill.eventBytes
            var got = 0
            let failed: Int32 = buffer.withUnsafeMutableBytes { b in
                while got < b.count {
                    // returns the byte count, 0 at end of file, -1 with errno
                    let n = read(fd, b.baseAddress! + got, b.count - got)
                    if n > 0 { got += n; continue }
                    if n == 0 { eof = true; return 0 }
                    if errno == EINTR { continue }
                    return errno
                }
                return 0
            }
            if failed != 0 {
                throw .input(InputError(SourceLocation(file: path), .readFailed(errno: failed), "cannot read a spill file back"))
            }
            guard got % size == 0 else {
                throw .input(InputError(SourceLocation(file: path), .readFailed(errno: 0), "spill file ends inside a record"))
            }
            count = got / size
            index = 0
        }
    }
}
