import GeofenceBase
import Dispatch
import Glibc
import Synchronization

/// The members of a gzip file (`cat a.gz b.gz`, `bgzip`), inflated ahead in parallel by worker
/// threads where the file has several, in file order otherwise (docs/logs.md#gzip).
///
/// A member's end is known only once it is inflated. So members are guessed, then proved:
/// a *candidate* is an offset whose bytes look like a gzip header (magic `1F 8B`, deflate, no
/// reserved flag, a known XFL and OS); a worker inflates the bytes from one candidate to the
/// next as one gzip member, with an output of the size its trailer would give (the last four
/// bytes before the next candidate). The result is used only when the member starts where
/// the previous one ended (the first at offset 0), parses to its end exactly at the next
/// candidate, and its CRC and size check. Anything else (a candidate inside deflate data, a
/// member larger than ``memberLimit``, a corrupt or truncated member, bytes after a member
/// that are not one) is inflated in file order from the proven start, with the errors of a
/// serial read.
///
/// Runs on the inflating thread of an ``InflatePipe`` (``produce(into:max:)``); the workers
/// touch only their own member. Memory: at most ``window`` members ahead, each at most
/// ``memberLimit`` bytes compressed and as many inflated.
final class GzipMembers: @unchecked Sendable {
    /// The default of ``memberLimit``.
    static let defaultMemberLimit = 4 << 20
    /// The largest member (compressed or inflated) a worker inflates ahead.
    let memberLimit: Int
    /// Bytes read at a time to look for candidates and to inflate in file order.
    static let readSize = 1 << 20

    let path: String
    private let fd: Int32
    private let size: Int
    /// Members inflated ahead at most (two per thread).
    let window: Int

    /// Members read so far, and how many of them a worker inflated.
    private let memberCount = Atomic<Int>(0)
    private let parallelCount = Atomic<Int>(0)
    /// Compressed bytes consumed (for progress).
    private let consumedBytes = Atomic<Int64>(0)

    // The inflating thread's state.
    /// Where the member being read (or the next one) starts.
    private var pos = 0
    private var current: Current = .between
    /// Members handed to workers, in file order, chained (each starts where the one before ends).
    private var ahead: [Member] = []
    /// Candidates found in `scanFrom..<scanTo`, ascending.
    private var candidates: [Int] = []
    private var candidateHead = 0
    private var scanTo = 0
    private var scanBuffer: UnsafeMutablePointer<UInt8>
    /// Inflating in file order: the stream, its input buffer, and the next offset to read.
    private var stream: GzipStream?
    private var input: UnsafeMutablePointer<UInt8>
    private var inputPos = 0

    private enum Current {
        /// At `pos`, nothing started.
        case between
        /// Copying a worker's output.
        case ahead(Member, offset: Int)
        /// Inflating in file order from `pos`.
        case serial
    }

    /// One member a worker inflates: `start..<end` expected to inflate to `expected` bytes.
    final class Member: @unchecked Sendable {
        let start: Int, end: Int, expected: Int
        /// Written by the worker before `done` is signalled; read by the inflating thread after.
        var output: UnsafeMutablePointer<UInt8>? = nil
        var proved = false
        let done = Completion()

        init(start: Int, end: Int, expected: Int) {
            self.start = start
            self.end = end
            self.expected = expected
        }

        /// Whether the worker is done (without waiting).
        var isDone: Bool { done.isDone }

        /// Waits until the worker is done.
        func wait() { done.wait() }

        deinit { output?.deallocate() }
    }

    /// Over the regular file `fd` of `size` bytes (which must stay open until ``stop()`` returns).
    init(path: String, fd: Int32, size: Int, threads: Int, memberLimit: Int = GzipMembers.defaultMemberLimit) {
        self.path = path
        self.memberLimit = memberLimit
        self.fd = fd
        self.size = size
        window = Swift.max(2, 2 * threads)
        scanBuffer = .allocate(capacity: Self.readSize + 16)
        input = .allocate(capacity: Self.readSize)
    }

    deinit {
        scanBuffer.deallocate()
        input.deallocate()
    }

    /// Members read so far and how many were inflated ahead by a worker (exact once the end is
    /// reached).
    var members: (count: Int, inParallel: Int) { (memberCount.load(ordering: .relaxed), parallelCount.load(ordering: .relaxed)) }

    /// Compressed bytes consumed so far.
    var bytesRead: Int64 { consumedBytes.load(ordering: .relaxed) }

    /// Waits for every worker (before the file is closed).
    func stop() {
        for m in ahead { m.wait() }
        ahead.removeAll()
        if case .ahead(let m, _) = current { m.wait() }
    }

    // MARK: Producing

    /// Writes up to `max` inflated bytes to `p`, in file order; 0 only at the end of the file.
    /// Members inflated ahead fill `p` one after the other while the next one is ready; a
    /// member inflated in file order is written on its own (so a failure drops none of the
    /// bytes before it in `p`).
    /// - Throws: ``ByteSourceError/gzip(_:)`` as a serial read does, ``ByteSourceError/io(_:)``.
    func produce(into p: UnsafeMutablePointer<UInt8>, max: Int) throws(ByteSourceError) -> Int {
        var written = 0
        while written < max {
            switch current {
            case .ahead(let m, let offset):
                let n = Swift.min(max - written, m.expected - offset)
                if n > 0, let out = m.output { (p + written).update(from: out + offset, count: n) }
                written += n
                if offset + n == m.expected {
                    pos = m.end
                    current = .between
                    consumedBytes.store(Int64(pos), ordering: .relaxed)
                } else {
                    current = .ahead(m, offset: offset + n)
                }
            case .serial:
                if written > 0 { return written }
                let n = try inflateInOrder(into: p, max: max)
                if n > 0 { return n }
            case .between:
                if pos >= size { return written }
                if written > 0 {
                    // More only when it is there already.
                    guard let m = ahead.first, m.start == pos, m.isDone, m.proved else { return written }
                } else {
                    try plan(from: pos)
                }
                if let m = ahead.first, m.start == pos {
                    ahead.removeFirst()
                    m.wait()
                    try plan(from: m.end)
                    memberCount.add(1, ordering: .relaxed)
                    if m.proved {
                        parallelCount.add(1, ordering: .relaxed)
                        current = .ahead(m, offset: 0)
                        continue
                    }
                    // Not a member that ends at the next candidate: read it in file order.
                    for later in ahead { later.wait() }
                    ahead.removeAll()
                } else {
                    memberCount.add(1, ordering: .relaxed)
                }
                try startInOrder()
            }
        }
        return written
    }

    /// Hands members to workers until `window` are ahead: each from the end of the one before
    /// (from `from`, a proven start, when none is), up to the next candidate, when both the
    /// bytes and the size the trailer gives are within ``memberLimit``.
    private func plan(from: Int) throws(ByteSourceError) {
        if let first = ahead.first, first.start != from {
            // The chain does not start here (the member before was read in file order and
            // ended elsewhere): drop it.
            for m in ahead { m.wait() }
            ahead.removeAll()
        }
        while ahead.count < window {
            let start = ahead.last?.end ?? from
            guard start < size, try isCandidate(start) else { return }
            let end = try nextCandidate(after: start, limit: start + memberLimit) ?? size
            guard end - start <= memberLimit, end - start >= 18 else { return }
            var trailer: UInt32 = 0
            guard try readAt(&trailer, 4, end - 4) else { return }
            let expected = Int(UInt32(littleEndian: trailer))
            guard expected <= memberLimit else { return }
            let m = Member(start: start, end: end, expected: expected)
            ahead.append(m)
            let fd = fd
            DispatchQueue.global().async { Self.inflateAhead(m, fd: fd) }
        }
    }

    /// A worker: reads `m`'s bytes and inflates them as one gzip member; `proved` when the
    /// member ends exactly at `m.end` with `m.expected` bytes and its checks pass.
    static func inflateAhead(_ m: Member, fd: Int32) {
        defer { m.done.signal() }
        let count = m.end - m.start
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        defer { bytes.deallocate() }
        var got = 0
        while got < count {
            // returns the byte count, 0 at end of file, -1 with errno on error
            let n = pread(fd, bytes + got, count - got, off_t(m.start + got))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            got += n
        }
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: Swift.max(1, m.expected))
        let s = GzipStream()
        s.setInput(bytes, count)
        // The member, whole, into an output of exactly the size its trailer gives.
        var made = 0, ended = false
        while !ended {
            guard let (n, end) = try? s.inflate(into: out + made, max: m.expected - made), n > 0 || end else { break }
            made += n
            ended = end
        }
        let proved = ended && made == m.expected && s.availableInput == 0
        if proved {
            m.output = out
            m.proved = true
        } else {
            out.deallocate()
        }
    }

    // MARK: In file order

    /// Starts inflating the member at `pos` in file order.
    private func startInOrder() throws(ByteSourceError) {
        // The stream of the member before (its state reset), or a new one; input from `pos`.
        if let stream { stream.nextMember() } else { stream = GzipStream() }
        stream!.setInput(input, 0)
        inputPos = pos
        current = .serial
    }

    /// Inflates the member at `pos` into `p[0..<max]`; at its end, `pos` moves past it.
    private func inflateInOrder(into p: UnsafeMutablePointer<UInt8>, max: Int) throws(ByteSourceError) -> Int {
        guard let s = stream else { return 0 }
        while true {
            if s.availableInput == 0 && inputPos < size {
                let n = try readInput()
                s.setInput(input, n)
            }
            let (produced, ended) = try s.inflateLog(into: p, max: max)
            if ended {
                pos = inputPos - s.availableInput
                consumedBytes.store(Int64(pos), ordering: .relaxed)
                current = .between
                return produced
            }
            if produced > 0 { return produced }
            if s.availableInput == 0 && inputPos >= size { throw .gzip("unexpected end of file") }
        }
    }

    /// The next bytes of the file at `inputPos` into `input`.
    private func readInput() throws(ByteSourceError) -> Int {
        while true {
            // returns the byte count, 0 at end of file, -1 with errno on error
            let n = pread(fd, input, Swift.min(Self.readSize, size - inputPos), off_t(inputPos))
            if n > 0 {
                inputPos += n
                consumedBytes.store(Int64(inputPos), ordering: .relaxed)
                return n
            }
            if n == 0 { throw .gzip("unexpected end of file") }
            if errno == EINTR { continue }
            throw .io(errno)
        }
    }

    // MARK: Candidates

    /// Reads `count` bytes at `offset` into `p`; false when the file is shorter.
    private func readAt(_ p: UnsafeMutableRawPointer, _ count: Int, _ offset: Int) throws(ByteSourceError) -> Bool {
        var got = 0
        while got < count {
            // returns the byte count, 0 at end of file, -1 with errno on error
            let n = pread(fd, p + got, count - got, off_t(offset + got))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .io(errno) }
            if n == 0 { return false }
            got += n
        }
        return true
    }

    /// Whether the 10 bytes at `p` look like a gzip member header.
    @inline(__always)
    static func looksLikeHeader(_ p: UnsafePointer<UInt8>) -> Bool {
        p[0] == 0x1F && p[1] == 0x8B && p[2] == 8 && p[3] & 0xE0 == 0
            && (p[8] == 0 || p[8] == 2 || p[8] == 4) && (p[9] <= 13 || p[9] == 255)
    }

    /// The first offset in `from..<count` of `p` where a header to the eye starts (the 10
    /// bytes within `count`).
    static func firstCandidate(_ p: UnsafePointer<UInt8>, _ from: Int, _ count: Int) -> Int? {
        var i = from
        while i + 10 <= count {
            guard let hit = memchr(p + i, 0x1F, count - 10 + 1 - i) else { return nil }
            i = p.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if looksLikeHeader(p + i) { return i }
            i += 1
        }
        return nil
    }

    private func isCandidate(_ offset: Int) throws(ByteSourceError) -> Bool {
        var header = (UInt64(0), UInt16(0))
        return try withUnsafeMutableBytes(of: &header) { (b) throws(ByteSourceError) -> Bool in
            guard try readAt(b.baseAddress!, 10, offset) else { return false }
            return Self.looksLikeHeader(b.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The first candidate after `offset` and before `limit`; nil when there is none before
    /// `limit` or the end of the file.
    private func nextCandidate(after offset: Int, limit: Int) throws(ByteSourceError) -> Int? {
        while true {
            while candidateHead < candidates.count && candidates[candidateHead] <= offset { candidateHead += 1 }
            if candidateHead > 1024 {
                candidates.removeFirst(candidateHead)
                candidateHead = 0
            }
            if candidateHead < candidates.count {
                let c = candidates[candidateHead]
                return c < limit ? c : nil
            }
            if scanTo <= offset { scanTo = offset + 1 }
            guard scanTo < Swift.min(limit, size) else { return nil }
            // A block and the 9 bytes a header at its end needs.
            let from = scanTo
            let count = Swift.min(Self.readSize, size - from)
            let readable = Swift.min(count + 9, size - from)
            guard try readAt(scanBuffer, readable, from) else { return nil }
            var i = 0
            while i + 10 <= readable && i < count {
                guard let hit = memchr(scanBuffer + i, 0x1F, count - i) else { break }
                i = scanBuffer.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if i + 10 <= readable && Self.looksLikeHeader(scanBuffer + i) { candidates.append(from + i) }
                i += 1
            }
            scanTo = from + count
        }
    }
}
