import GeofenceBase
import Glibc
import Synchronization

extension GzipStream {
    /// ``GzipStream/inflate(into:max:)`` failing as the byte source does.
    func inflateLog(into p: UnsafeMutablePointer<UInt8>, max: Int) throws(ByteSourceError) -> (count: Int, memberEnded: Bool) {
        do throws(GzipError) {
            return try inflate(into: p, max: max)
        } catch {
            throw .gzip(error.message)
        }
    }
}

/// A failure of the byte source; the reader adds the file and line.
enum ByteSourceError: Error {
    /// `read(2)` failed with this errno.
    case io(Int32)
    /// The gzip stream cannot be inflated: what is wrong in zlib's words (``GzipStream``), or
    /// "unexpected end of file".
    case gzip(String)
}

/// The bytes of one log, plain or gzip-compressed, read in chunks into one growable buffer.
///
/// Owns the file descriptor (unless it is stdin), the gzip stream and the buffers, and
/// releases them in `deinit`. Memory: the decoded buffer (about two chunks, more only while a
/// single line is longer than a chunk) plus one chunk of compressed input for gzip.
///
/// gzip is recognised by its magic bytes `1F 8B`, whatever the file is called; concatenated
/// members (`cat a.gz b.gz`, `bgzip`) are read one after the other (by ``GzipMembers`` when
/// pipelined from a regular file). Anything after a member
/// that is not another member is an error ("incorrect header check"), as is a stream that ends
/// before its trailer ("unexpected end of file").
final class ByteSource {
    let path: String
    private let fd: Int32
    private let ownsFD: Bool
    /// Size of the file in bytes when it is a regular file (nil for pipes and terminals).
    let totalBytes: Int64?
    /// Bytes taken from the file so far (compressed bytes for gzip): progress against `totalBytes`.
    var bytesRead: Int64 { members?.bytesRead ?? readCount.load(ordering: .relaxed) }
    /// (Written by the inflating thread when gzip is pipelined.)
    private let readCount = Atomic<Int64>(0)
    /// gzip read in parallel: the thread that inflates ahead.
    private var pipe: InflatePipe?
    /// gzip from a regular file read in parallel: its members, inflated ahead by the workers
    /// where there are several (docs/logs.md#gzip).
    private(set) var members: GzipMembers?
    let chunkSize: Int

    /// The decoded bytes: the reader's window is a range of `base[0..<capacity]`.
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// Bytes already at `base[0..<prefilled]` when the source opens (the first chunk, read to
    /// look for the gzip magic).
    private(set) var prefilled = 0

    private(set) var isGzip = false
    private var stream: GzipStream?
    private var input: UnsafeMutablePointer<UInt8>?
    private var rawEOF = false
    private var memberEnded = false
    /// The file was one gzip member small enough to be read whole: inflated into one buffer
    /// (``whole``) that the window moves through, as through a mapped file.
    private(set) var inflatedWhole = false
    /// The buffer a whole gzip file is inflated into (until its rest is handed over to the
    /// stream, which seldom happens: ``GzipWhole``).
    private var whole: GzipWhole?
    /// The mapped gzip file a whole buffer is inflated from (kept until the end: after a
    /// hand-over the stream goes on reading it).
    private var gzipMapping: MappedFile?
    /// A large plain regular file is mapped read-only instead of read (``MappedFile``):
    /// `base` points into the mapping, and moves forward where a read buffer would move bytes
    /// to its front.
    private var mapped: MappedFile?

    /// Gzip files of at most this many bytes are read whole and inflated into one buffer when
    /// they hold one member (``wholeGzip(fd:first:_:total:room:threaded:)``).
    nonisolated(unsafe) static var wholeGzipBytes = 8 << 20
    /// The most bytes such a file may inflate to (the output is held whole).
    static let wholeGzipInflated = 64 << 20

    /// A regular gzip file of `total` bytes (at most ``wholeGzipBytes``), its first `n` already
    /// read at `first`, read whole (`pread`, leaving the descriptor's offset at `n` unless it
    /// succeeds, then at the end), to be inflated into one buffer (``whole(_:_:owned:room:threaded:)``).
    /// Nil when a read fails or the file is not for one buffer: it is then read as a stream.
    static func wholeGzip(fd: Int32, first: UnsafeMutablePointer<UInt8>, _ n: Int, total: Int, room: Int, threaded: Bool) -> GzipWhole? {
        guard total >= 18, total <= wholeGzipBytes else { return nil }
        let all = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
        all.update(from: first, count: Swift.min(n, total))
        var done = Swift.min(n, total)
        while done < total {
            let got = pread(fd, all + done, total - done, off_t(done))
            if got > 0 { done += got; continue }
            if got < 0 && errno == EINTR { continue }
            all.deallocate()
            return nil
        }
        guard let whole = whole(all, total, owned: true, room: room, threaded: threaded) else {
            all.deallocate()
            return nil
        }
        // (Declined, the file is read as a stream from the offset `n`, where the first read left it.)
        guard lseek(fd, off_t(total), SEEK_SET) == off_t(total) else {
            whole.stop()      // and `all` goes with it
            return nil
        }
        return whole
    }

    /// The gzip file `p[0..<n]` (at most ``wholeGzipBytes``), to be inflated into one buffer of
    /// the size its trailer gives (``GzipWhole``, which frees `p` if `owned`). Nil when the file
    /// has a second gzip header to the eye (its members are inflated in parallel) or the
    /// trailer gives no length up to ``wholeGzipInflated``.
    static func whole(_ p: UnsafeMutablePointer<UInt8>, _ n: Int, owned: Bool, room: Int, threaded: Bool) -> GzipWhole? {
        guard n >= 18, n <= wholeGzipBytes else { return nil }
        let size = Int(UInt32(littleEndian: UnsafeRawPointer(p + n - 4).loadUnaligned(as: UInt32.self)))
        guard size > 0, size <= wholeGzipInflated, GzipMembers.firstCandidate(p, 1, n) == nil else { return nil }
        return GzipWhole(input: p, count: n, owned: owned, expected: size, room: room, threaded: threaded)
    }

    /// Opens `path` (`-` = stdin) and reads the first chunk.
    /// - Throws: ``GeofenceError/input(_:)`` with kind ``InputError/Kind/notFound``,
    ///   ``InputError/Kind/cannotOpen(errno:)`` or ``InputError/Kind/notAFile`` when the file
    ///   cannot be opened or is a directory, ``InputError/Kind/readFailed(errno:)`` when reading
    ///   fails.
    /// With `pipelined`, gzip is inflated ahead on a thread of its own (``InflatePipe``), unless
    /// the file is no larger than one chunk; from a regular file, with its members inflated
    /// ahead by up to `threads` workers when it has several (``GzipMembers``).
    init(path: String, chunkSize: Int, pipelined: Bool = false, threads: Int = 1,
         memberLimit: Int = GzipMembers.defaultMemberLimit, mapThreshold: Int = Int.max) throws(GeofenceError) {
        self.path = path
        self.chunkSize = chunkSize
        if path == "-" {
            fd = 0
            ownsFD = false
        } else {
            let f = open(path, O_RDONLY | O_CLOEXEC)
            guard f >= 0 else {
                let e = errno
                if e == ENOENT { throw .input(InputError(SourceLocation(file: path), .notFound, "log file not found")) }
                throw .input(InputError(SourceLocation(file: path), .cannotOpen(errno: e), "cannot open log: \(String(cString: strerror(e)))"))
            }
            fd = f
            ownsFD = true
        }
        var st = stat()
        if fstat(fd, &st) == 0 {
            let kind = st.st_mode & S_IFMT
            if kind == S_IFDIR {
                if ownsFD { close(fd) }
                throw .input(InputError(SourceLocation(file: path), .notAFile, "is a directory, not a log file"))
            }
            totalBytes = kind == S_IFREG ? Int64(st.st_size) : nil
            if kind == S_IFREG { _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL)) }
        } else {
            totalBytes = nil
        }
        // Whether a gzip file was looked at for one buffer already (from its mapping).
        var wholeTried = false
        if ownsFD, let total = totalBytes, total >= Int64(mapThreshold), let m = MappedFile(fd: fd, size: Int(total)) {
            // Mapped, unless it is gzip (inflated as a stream below).
            if !(m.size >= 2 && m.base[0] == 0x1F && m.base[1] == 0x8B) {
                mapped = m
                base = m.base
                capacity = m.size
                prefilled = m.size
                readCount.store(total, ordering: .relaxed)
                return
            }
            // gzip of one member small enough: inflated into one buffer from the mapping (no
            // copy of the compressed bytes into fresh memory).
            wholeTried = true
            if let whole = Self.whole(m.base, m.size, owned: false, room: chunkSize, threaded: pipelined) {
                isGzip = true
                inflatedWhole = true
                self.whole = whole
                gzipMapping = m
                readCount.store(total, ordering: .relaxed)
                base = whole.bytes
                capacity = whole.capacity
                return
            }
        }
        capacity = 2 * chunkSize
        base = .allocate(capacity: capacity)

        // Read until there are two bytes to look at (a pipe may deliver fewer).
        var n = 0
        do {
            while n < 2 {
                let got = try readRaw(into: base + n, max: chunkSize - n > 0 ? chunkSize - n : 2 - n)
                if got == 0 { break }
                n += got
            }
        } catch {
            throw Self.geofenceError(error, path: path, line: 1)
        }
        if n >= 2 && base[0] == 0x1F && base[1] == 0x8B, ownsFD, !wholeTried, let total = totalBytes,
           let whole = Self.wholeGzip(fd: fd, first: base, n, total: Int(total), room: chunkSize, threaded: pipelined) {
            // One gzip member, small enough to be read whole: inflated into one buffer (when
            // pipelined, past the first round's bytes on a thread of its own).
            isGzip = true
            inflatedWhole = true
            self.whole = whole
            readCount.store(total, ordering: .relaxed)
            base.deallocate()
            base = whole.bytes
            capacity = whole.capacity
        } else if n >= 2 && base[0] == 0x1F && base[1] == 0x8B {
            isGzip = true
            let input = UnsafeMutablePointer<UInt8>.allocate(capacity: max(chunkSize, n))
            input.update(from: base, count: n)
            self.input = input
            let s = GzipStream()
            s.setInput(input, n)
            stream = s
            // A file of one chunk gains nothing from a thread of its own.
            // Members inflated ahead from a regular file: one larger than a chunk, or a file of
            // one chunk (all read already) with a second member to the eye.
            if pipelined, ownsFD, let total = totalBytes,
               total > Int64(n) || GzipMembers.firstCandidate(input, 1, n) != nil {
                let m = GzipMembers(path: path, fd: fd, size: Int(total), threads: threads, memberLimit: memberLimit)
                members = m
                pipe = InflatePipe(blockSize: max(chunkSize, 1 << 16)) { (p, max) throws(ByteSourceError) -> Int in
                    try m.produce(into: p, max: max)
                }
            } else if pipelined && (totalBytes ?? Int64.max) > Int64(chunkSize) {
                let source = UnsafeSource(self)
                pipe = InflatePipe(blockSize: max(chunkSize, 1 << 16)) { (p, max) throws(ByteSourceError) -> Int in
                    try source.base.inflateSome(into: p, max: max)
                }
            }
        } else {
            prefilled = n
        }
    }

    /// The source as the inflating thread sees it: it alone touches the gzip stream, the
    /// compressed input and the descriptor until ``InflatePipe/stop()`` returns.
    private struct UnsafeSource: @unchecked Sendable {
        unowned(unsafe) let base: ByteSource
        init(_ base: ByteSource) { self.base = base }
    }

    deinit {
        pipe?.stop()
        whole?.stop()
        // The workers read the file: wait for them before it is closed.
        members?.stop()
        input?.deallocate()
        if mapped == nil && whole == nil { base.deallocate() }
        if ownsFD { close(fd) }
    }

    /// Whether the file is mapped (``MappedFile``).
    var isMapped: Bool { mapped != nil }

    /// Whether bytes are read from a mapping (the plain file, or the gzip file inflated whole):
    /// then ``shrank`` says whether what was read is valid.
    var isGuarded: Bool { mapped != nil || gzipMapping != nil }

    /// Whether the mapped file shrank while it was read (what was read past its new end was
    /// zeros): the reader reports it (docs/logs.md#files-are-mapped).
    var shrank: Bool { (mapped?.shrank ?? false) || (gzipMapping?.shrank ?? false) }

    /// For a mapped file, the bytes from the last pages dropped to `base[pos]`; nil otherwise.
    func mappedBytesHeld(upTo pos: Int) -> Int? {
        mapped.map { UnsafePointer($0.base).distance(to: base + pos) - $0.released }
    }

    /// The reader is done with the bytes before `base[pos]`: a mapped file's pages before it
    /// may leave the process.
    func consumed(upTo pos: Int) {
        mapped?.release(below: base + pos)
    }

    /// The mapping of a mapped file (nil otherwise): its pages may be dropped from another thread
    /// (``MappedFile/drop(below:step:)``), which reads nothing of this source.
    var mapping: MappedFile? { mapped }

    /// The error a reader throws for a source failure at `line`.
    static func geofenceError(_ e: ByteSourceError, path: String, line: Int) -> GeofenceError {
        switch e {
        case .io(let e): return .input(InputError(SourceLocation(file: path, line: line), .readFailed(errno: e), "read failed: \(String(cString: strerror(e)))"))
        case .gzip(let m): return .malformed(SourceLocation(file: path, line: line), "bad gzip stream: \(m)")
        }
    }

    /// Moves `base[start..<end]` to the front, then appends at least one more byte unless the
    /// source is exhausted. Returns the new end of the data (the kept bytes are now at
    /// `0..<end - start`) and whether nothing more was added (end of input). `base` may move.
    func refill(keeping start: Int, end: Int) throws(ByteSourceError) -> (end: Int, eof: Bool) {
        if let failure { throw failure }
        do {
            return try refillOnce(keeping: start, end: end)
        } catch {
            failure = error
            throw error
        }
    }

    /// The first failure, thrown again by every later ``refill(keeping:end:)``: a reader that
    /// stops reading ahead at a failure meets the same one when it gets there.
    private var failure: ByteSourceError? = nil

    /// Whether a refill has failed. A refill that fails for the first time has already moved
    /// the kept bytes to the front of ``base`` (which may be a new buffer, the old one freed);
    /// a later one throws the same failure and touches nothing.
    var hasFailed: Bool { failure != nil }

    private func refillOnce(keeping start: Int, end: Int) throws(ByteSourceError) -> (end: Int, eof: Bool) {
        if mapped != nil {
            // All of the file is there already: the window moves, nothing is copied.
            base += start
            return (end - start, true)
        }
        if let whole {
            // The window moves through the buffer as the bytes come out; nothing is copied.
            base += start
            let from = whole.bytes.distance(to: base), kept = end - start
            let (count, progress) = whole.published(beyond: from + kept)
            switch progress {
            case .running: return (count - from, false)
            case .finished: return (count - from, count == from + kept)   // the end only once nothing is added, as a stream says it
            case .failed(let e):
                if count > from + kept { return (count - from, false) }
                throw e
            case .handedOver:
                if count > from + kept { return (count - from, false) }
                // The rest is read as a stream, into a buffer of our own.
                guard let (s, owned, ended) = whole.takeStream() else { throw .gzip("inflation stopped") }
                let newCapacity = Swift.max(2 * chunkSize, kept + chunkSize)
                let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
                newBase.update(from: base, count: kept)
                self.whole = nil
                base = newBase
                capacity = newCapacity
                stream = s
                self.input = owned   // (nil: the stream reads the mapping, kept to the end)
                rawEOF = true
                memberEnded = ended
                return try refillOnce(keeping: 0, end: kept)
            }
        }
        let kept = end - start
        if start > 0 && kept > 0 { (base).update(from: base + start, count: kept) }
        if capacity - kept < chunkSize {
            let newCapacity = max(capacity * 2, kept + chunkSize)
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: kept)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }
        // At most a chunk a refill, gzip too: the line limit is checked at each refill on the
        // bytes kept, so a refill that could fill a doubled buffer let a line of nearly twice
        // the limit through (docs/logs.md, whole-file errors).
        let room = min(capacity - kept, chunkSize)
        let n: Int
        if let pipe {
            n = try pipe.read(into: base + kept, max: room)
        } else {
            n = isGzip ? try inflateSome(into: base + kept, max: room) : try readRaw(into: base + kept, max: room)
        }
        return (kept + n, n == 0)
    }

    /// Moves `base[start..<end]` to the front without reading; returns the new end.
    func compact(keeping start: Int, end: Int) -> Int {
        if mapped != nil || whole != nil {
            base += start
            return end - start
        }
        if start > 0 && end > start { base.update(from: base + start, count: end - start) }
        return end - start
    }

    /// One `read(2)`, retried on EINTR; 0 only at end of file.
    private func readRaw(into p: UnsafeMutablePointer<UInt8>, max: Int) throws(ByteSourceError) -> Int {
        while true {
            // returns the byte count, 0 at end of file, -1 with errno on error
            let n = read(fd, p, max)
            if n >= 0 {
                readCount.add(Int64(n), ordering: .relaxed)
                return n
            }
            if errno == EINTR { continue }
            throw .io(errno)
        }
    }

    /// Decompresses into `p[0..<max]`; returns the byte count, 0 only at the end of the last member.
    private func inflateSome(into p: UnsafeMutablePointer<UInt8>, max: Int) throws(ByteSourceError) -> Int {
        guard let s = stream else { return 0 }
        while true {
            if s.availableInput == 0 && !rawEOF, let input {
                let n = try readRaw(into: input, max: chunkSize)
                if n == 0 { rawEOF = true } else { s.setInput(input, n) }
            }
            if memberEnded {
                if s.availableInput == 0 {
                    if rawEOF { return 0 }
                    continue
                }
                // Another member follows (or garbage, which the stream then reports).
                s.nextMember()
                memberEnded = false
            }
            let (produced, ended) = try s.inflateLog(into: p, max: max)
            if ended { memberEnded = true }
            if produced > 0 { return produced }
            if !ended && s.availableInput == 0 && rawEOF { throw .gzip("unexpected end of file") }
        }
    }
}
