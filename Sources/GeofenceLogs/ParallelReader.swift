import CSystem
import GeofenceBase
import Dispatch
import Synchronization
import Glibc

/// The arrays of the reader's device table that the parse workers read, taken when a round
/// begins (shared, not copied), kept until every chunk of the round is parsed. The join runs
/// meanwhile and may add devices: the arrays it then changes are copied on its side (the
/// table's other arrays, such as each device's last fix, are not held here, so the join's
/// writes to them copy nothing), and the addresses taken here stay valid while this lives.
final class KnownSnapshot: @unchecked Sendable {
    private let slotArray: [Int32]
    private let keyArray: [DeviceState.Key]
    private let offsetArray: [Int]
    private let byteArray: [UInt8]
    let slots: UnsafePointer<Int32>
    let mask: Int
    let keys: UnsafePointer<DeviceState.Key>
    let offsets: UnsafePointer<Int>
    let bytes: UnsafePointer<UInt8>

    init(_ state: DeviceState) {
        slotArray = state.slots
        keyArray = state.keys
        offsetArray = state.offsets
        byteArray = state.bytes
        slots = slotArray.withUnsafeBufferPointer { $0.baseAddress! }
        mask = slotArray.count - 1
        keys = keyArray.withUnsafeBufferPointer { $0.baseAddress ?? UnsafePointer(bitPattern: 8)! }
        offsets = offsetArray.withUnsafeBufferPointer { $0.baseAddress! }
        bytes = byteArray.withUnsafeBufferPointer { $0.baseAddress ?? UnsafePointer(bitPattern: 8)! }
    }
}

/// The reader's device table as the parse workers see it: looked up, never changed, while a
/// round is parsed. A device found there is staged as `-2 - index` (the chunk's own indices are
/// ≥ 0 while it is parsed; ``ParallelReader/markRuns(_:)`` then settles both). The same probe
/// as ``DeviceState/find(_:_:)``, through the snapshot's addresses (no reference counting per
/// row on arrays the threads share).
struct KnownDevices: @unchecked Sendable {
    /// The table's addresses, copied out of the snapshot (which keeps them valid while the
    /// round is parsed): reading them through the class would retain and release it per row,
    /// an atomic write to one cache line that every parse worker shares.
    let slots: UnsafePointer<Int32>
    let mask: Int
    let keys: UnsafePointer<DeviceState.Key>
    let offsets: UnsafePointer<Int>
    let bytes: UnsafePointer<UInt8>

    init(snapshot: KnownSnapshot) {
        slots = snapshot.slots
        mask = snapshot.mask
        keys = snapshot.keys
        offsets = snapshot.offsets
        bytes = snapshot.bytes
    }

    /// The encoded index of a known device, or nil. (Out of line: it would make the row loop
    /// it is called from too large to inline its own small calls.)
    @inline(never)
    func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int32? {
        let tail = DeviceState.tail(p, n, readable: n)
        return lookup(p, n, hash: DeviceState.hash(p, n, tail: tail), tail: tail)
    }

    /// Where the probe for `hash` starts (to prefetch).
    @inline(__always)
    func slot(_ hash: UInt64) -> UnsafePointer<Int32> { slots + (Int(truncatingIfNeeded: hash) & mask) }

    /// The key the probe for `hash` compares first, if its first slot is taken (to prefetch).
    @inline(__always)
    func firstKey(_ hash: UInt64) -> UnsafePointer<DeviceState.Key>? {
        let id = slot(hash).pointee
        return id >= 0 ? keys + Int(id) : nil
    }

    /// ``lookup(_:_:)`` with the name's hash and tail already made.
    @inline(__always)
    func lookup(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64, tail: UInt64) -> Int32? {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = slots[i]
            if id < 0 { return nil }
            let k = keys[Int(id)]
            if k.hash == h && k.tail == tail && k.count == n {
                if n <= 8 { return -2 - id }
                let head = (n &- 1) & ~7, q = UnsafeRawPointer(bytes + offsets[Int(id)])
                if memcmp(q, p, head) == 0 { return -2 - id }
            }
            i = (i &+ 1) & mask
        }
    }
}

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
/// each fix's device settled by the worker (``ParallelReader/markRuns(_:)``): the reader's own
/// index where the worker found the device in the reader's table, else `-1 - i` for index `i`
/// of the chunk's own table (``devices``); the rows it skipped, and how it ended.
/// Its storage is freed by ``deallocate()`` (``ChunkSlots`` does).
struct ChunkResult: @unchecked Sendable {
    /// The fixes and their lines.
    var output = ChunkFixes()
    /// Where the runs of the fixes start, then their count: a run is fixes of one device (as
    /// the chunk numbers it), each of which follows the one before it in time order
    /// (``DeviceState/follows(_:_:_:after:_:_:)``), so that the join checks only a run's first
    /// fix against the device's last one (``ParallelReader/markRuns(_:)``). Empty: no runs
    /// are marked (each fix is checked).
    var runStarts: [Int32] = []
    /// The join's device patches (``DevicePatch``), read by the copy of the chunk's fixes it
    /// leaves (``FixCopy``): not changed again until the slot's next round.
    var patches: [DevicePatch] = []
    var devices = DeviceState()
    var skipped: [SkipReason: Int] = [:]
    /// The first message of each reason, without `path:line:` (its line is in `firstLines`).
    var firstMessages: [SkipReason: String] = [:]
    var firstLines: [SkipReason: Int] = [:]
    /// Strict mode: the first bad row (every fix before it is in `fixes`).
    var error: GeofenceError? = nil
    /// The record that ran past the chunk (offset, line before it); nothing after it was read.
    var straddle: (pos: Int, line: Int)? = nil
    /// The chunk started with the time unit unresolved and resolved it: the unit and the value.
    var resolvedUnit: (unit: TimeUnit, first: Double)? = nil
    /// Lines in the chunk (the lines of fixes, messages, the error and `straddle` count from its start).
    var endLine = 0

    mutating func deallocate() { output.deallocate() }
}

/// The parse workers' results, one slot per chunk, at an address that stays put while a round
/// is parsed in the background (grown only between rounds).
final class ChunkSlots: @unchecked Sendable {
    private(set) var base: UnsafeMutablePointer<ChunkResult> = .allocate(capacity: 0)
    private(set) var capacity = 0

    /// At least `n` slots (the results already there are kept).
    func reserve(_ n: Int) {
        guard n > capacity else { return }
        let grown = UnsafeMutablePointer<ChunkResult>.allocate(capacity: n)
        grown.moveInitialize(from: base, count: capacity)
        (grown + capacity).initialize(repeating: ChunkResult(), count: n - capacity)
        base.deallocate()
        base = grown
        capacity = n
    }

    deinit {
        for i in 0..<capacity { base[i].deallocate() }
        base.deinitialize(count: capacity)
        base.deallocate()
    }
}

/// The chunks of one round, taken one at a time by the threads that parse them (background
/// workers, and the reader's own thread, which joins each chunk as soon as it is parsed).
final class RoundWork: Sendable {
    private let next = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    private let chunks: Int
    private let parse: @Sendable (Int) -> Void
    /// Every chunk is parsed.
    private let done = Completion()
    /// Per chunk, parsed.
    private let parsed: [Completion]

    init(chunks: Int, parse: @escaping @Sendable (Int) -> Void) {
        self.chunks = chunks
        self.parse = parse
        parsed = (0..<chunks).map { _ in Completion() }
    }

    /// The next chunk no thread has taken, if any.
    private func take() -> Int? {
        let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return i < chunks ? i : nil
    }

    private func parseOne(_ i: Int) {
        parse(i)
        parsed[i].signal()
        // The last chunk parsed, by whichever thread: the round is complete.
        if finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == chunks { done.signal() }
    }

    /// Every chunk has been taken by some thread (the last ones may still be being parsed).
    var allTaken: Bool { next.load(ordering: .relaxed) >= chunks }

    /// Parses chunks until none is left to take.
    func run() {
        while let i = take() { parseOne(i) }
    }

    /// Parses one chunk no thread has taken, if any is left (false: none was).
    func runOne() -> Bool {
        guard let i = take() else { return false }
        parseOne(i)
        return true
    }

    /// Returns once chunk `i` is parsed (its result may then be read), parsing the chunks no
    /// thread has taken meanwhile; when none is left, `idle` is asked for other work (it
    /// returns false when it has none: the thread then waits). Once per chunk. `lastTaken`
    /// is called when this thread takes the round's last chunk, before it parses it: the
    /// other threads have nothing left of the round, and the next one may be begun for them.
    func awaitChunk(_ i: Int, lastTaken: () -> Void = {}, idle: () -> Bool = { false }) {
        while !parsed[i].isDone {
            if let c = take() {
                if c == chunks - 1 { lastTaken() }
                parseOne(c)
            } else if !idle() {
                parsed[i].wait()
                return
            }
        }
    }

    /// Waits until every chunk is parsed.
    func wait() {
        done.wait()
    }
}

/// Fixes `from..<end` of a chunk's joined fixes, whose device the join left as the worker
/// staged it: each takes `device` as it is copied into the batch (``FixCopy``).
struct DevicePatch {
    let from: Int32
    let end: Int32
    let device: Int32
}

/// A chunk's joined fixes to be copied into the batch, where the join made room for them
/// (``ParseCrew/addCopy(_:)``), the devices of `patches` written on the way.
struct FixCopy: @unchecked Sendable {
    let from: UnsafePointer<Fix>
    let to: UnsafeMutablePointer<Fix>
    let count: Int
    /// In order, within `0..<count`; kept put by the chunk's result until the round is over.
    var patches = UnsafeBufferPointer<DevicePatch>(start: nil, count: 0)

    func run() {
        Self.copy(from: from, to: to, count: count, patches: patches)
    }

    /// Copies `count` fixes, each patch's range then given its device, while its lines are
    /// still in the nearest cache.
    static func copy(from: UnsafePointer<Fix>, to: UnsafeMutablePointer<Fix>, count: Int, patches: UnsafeBufferPointer<DevicePatch>) {
        let stride = MemoryLayout<Fix>.stride
        var at = 0
        for p in patches {
            let s = Int(p.from), e = Int(p.end)
            UnsafeMutableRawPointer(to + at).copyMemory(from: from + at, byteCount: (e &- at) &* stride)
            for k in s..<e { to[k].device = p.device }
            at = e
        }
        UnsafeMutableRawPointer(to + at).copyMemory(from: from + at, byteCount: (count &- at) &* stride)
    }
}

/// The background threads that parse a reader's rounds: each takes the chunks of the oldest
/// round that has some left, and goes on to the next round when one has been begun meanwhile
/// (a round begun ahead, ``ParallelReader/finish(_:_:_:_:ahead:)``), so that a round begun
/// while the last chunks of the one before are parsed adds no thread; a thread leaves (back to
/// the work team, docs/architecture.md#the-work-team) when no round has chunks left.
final class ParseCrew: @unchecked Sendable {
    /// Guards `rounds` and `active` (a pthread mutex, which ThreadSanitizer follows).
    private let lock: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    /// The rounds handed to the crew that may have chunks left, oldest first.
    private var rounds: [RoundWork] = []
    /// Threads working.
    private var active = 0
    /// Work for a thread that finds no chunk left (``whenIdle(_:)``), once.
    private var idleTask: (@Sendable () -> Void)? = nil
    /// Copies of joined fixes into the batch not begun yet (``addCopy(_:)``).
    private var copies: [FixCopy] = []
    /// Copies begun and not done.
    private let copying = Atomic<Int>(0)

    init() {
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Hands `work` to the crew, with up to `threads` threads working (new ones started when
    /// fewer are).
    func add(_ work: RoundWork, threads: Int) {
        pthread_mutex_lock(lock)
        while let first = rounds.first, first.allTaken { rounds.removeFirst() }
        rounds.append(work)
        let start = Swift.max(0, threads - active)
        active += start
        pthread_mutex_unlock(lock)
        for _ in 0..<start { WorkTeam.shared.async { self.work() } }
    }

    /// Sets the work that the next thread to find no chunk left does as it leaves (replacing
    /// any not yet taken), so that it is not idle while the reader joins; nil drops it. The
    /// thread no longer counts among the crew's while it does it: a round added meanwhile
    /// starts a thread of its own.
    func whenIdle(_ task: (@Sendable () -> Void)?) {
        pthread_mutex_lock(lock)
        idleTask = task
        pthread_mutex_unlock(lock)
    }

    /// Leaves a copy of joined fixes to whichever thread has nothing to parse (a crew thread
    /// before its idle task, the reader's while it waits for a chunk): ``finishCopies()`` must
    /// return before the batch is read or may grow.
    func addCopy(_ copy: FixCopy) {
        pthread_mutex_lock(lock)
        copies.append(copy)
        pthread_mutex_unlock(lock)
    }

    /// Makes one copy left by ``addCopy(_:)``, if any (false: none was left).
    func runOneCopy() -> Bool {
        pthread_mutex_lock(lock)
        guard let copy = copies.popLast() else {
            pthread_mutex_unlock(lock)
            return false
        }
        copying.wrappingAdd(1, ordering: .relaxed)
        pthread_mutex_unlock(lock)
        copy.run()
        copying.wrappingSubtract(1, ordering: .releasing)
        return true
    }

    /// Makes every copy left, and waits for those other threads are making: the batch then
    /// holds every fix joined.
    func finishCopies() {
        while runOneCopy() {}
        // A copy another thread took is a few microseconds from its end (at most a chunk's fixes).
        while copying.load(ordering: .acquiring) > 0 { sched_yield() }
    }

    /// A crew thread: parses chunks until no round handed to the crew has any left, then makes
    /// the copies left (``addCopy(_:)``) and does the idle task if one is set.
    private func work() {
        while true {
            pthread_mutex_lock(lock)
            while let first = rounds.first, first.allTaken { rounds.removeFirst() }
            let next = rounds.first
            var task: (@Sendable () -> Void)? = nil
            if next == nil {
                swap(&task, &idleTask)
                active -= 1
            }
            pthread_mutex_unlock(lock)
            guard let next else {
                while runOneCopy() {}
                task?()
                return
            }
            next.run()
        }
    }
}

/// Reads a CSV or NDJSON log with several threads, giving the same fixes, devices, skip counts,
/// messages and errors as a serial read (docs/logs.md#parallel-reading).
///
/// Round by round: the window of decoded bytes is filled to a few chunks per thread and cut
/// after the first newline past each of equal parts; the chunks are parsed at once, each worker
/// with its own device table, skip counts and line numbers from 0; one thread joins them in
/// file order, each as soon as it is parsed (the workers parse on meanwhile): lines offset,
/// device indices mapped to the shared table (devices by first appearance), time order and
/// duplicates checked, skips and first messages added. A chunk
/// whose last record runs past its end (the cut was inside a quoted CSV field) ends the round
/// there: that record is read serially, and from then on the cuts are made where the quote
/// parity is even. A record longer than the window, and the rest of a file whose source
/// failed, are read serially too.
///
/// A round is begun (window filled and cut, chunks handed to the workers in the background)
/// as soon as the reader has handed out a batch, or, with read-ahead, as soon as the chunks of
/// the round being joined are all taken; it is finished (parse awaited, chunks joined) when
/// the next batch needs it: the parse overlaps whatever the caller does with the batch, and
/// everything the join touches stays on the caller's thread, but for the copy of each chunk's
/// last fixes into the batch, which it leaves to a thread with nothing to parse
/// (``ParseCrew/addCopy(_:)``) and sees made before the batch goes out.
struct ParallelReader {
    let threads: Int
    /// Bytes per chunk.
    let chunkBytes: Int
    /// Find record boundaries by quote parity (after a split fell inside a quoted field).
    var quoteParity = false
    /// The join's device map, reused from round to round.
    var global: [Int32] = []
    /// The devices of the fixes joined (and read by serial steps) since the caller last
    /// cleared it (``JoinedDevices``).
    var joinedDevices = JoinedDevices()
    /// The end of input was reached.
    var done = false
    /// Whether the first rounds are small (``LogReaderOptions/quickStart``).
    var quickStart = false
    /// Rounds begun so far: with ``quickStart`` the first ones are smaller (``firstRoundBytes``,
    /// doubling), so that a caller gets its first fixes soon and works on them while the next
    /// round is parsed.
    var roundsBegun = 0
    /// The first round's bytes: a small log is one round, parsed by every thread and then
    /// evaluated by every thread, which measured faster than smaller rounds evaluated while
    /// the next is parsed (docs/logs.md#parallel-reading).
    static let firstRoundBytes = 1 << 20

    /// A round's bytes once the first, small ones are over: two chunks per thread, or fewer
    /// bytes when ``batchFixes`` is set (about that many fixes, at the bytes per fix joined so far).
    var fullRoundBytes: Int {
        let most = 2 * threads * chunkBytes
        guard let want = batchFixes, joinedFixes > 0 else { return most }
        let bytes = Double(joinedBytes) / Double(joinedFixes) * Double(want) * 0.95
        return Swift.max(Self.firstRoundBytes, Swift.min(most, Int(bytes)))
    }
    /// With quickStart, each round goes out as one batch: rounds of about the caller's batch
    /// size (its last `max`) then go out whole, without a copy.
    var batchFixes: Int? = nil
    /// Bytes and fixes of the rounds joined so far (the bytes per fix of the log).
    var joinedBytes = 0, joinedFixes = 0

    /// Whether the next round is one of the small first ones.
    var ramping: Bool { quickStart && roundsBegun < 30 && Self.firstRoundBytes << roundsBegun < fullRoundBytes }

    /// A round whose chunks are being parsed in the background (``begin(_:_:background:)``), or one that
    /// could not be split and is read serially when it is finished.
    var pending: Pending? = nil

    /// What ``finish(_:_:_:_:)`` completes.
    enum Pending {
        /// The chunks `starts` (the last ends at `end`) of the window, parsed into slot set
        /// `set` (``slotSets``) by whichever threads take them from `work`, looking devices up in
        /// ``knownSnapshots`` `[set]`.
        case parse(starts: [Int], end: Int, windowEnd: Int, endsFile: Bool, work: RoundWork, set: Int)
        /// The window holds no whole record: one serial step.
        case serial
    }

    /// The chunks' results, reused from round to round: a round takes set 0, but a round begun
    /// ahead (``finish(_:_:_:_:ahead:)``) the set not being joined. Written by the parse workers
    /// while their round is pending, by the joining thread otherwise. (Taken in turn, both sets
    /// had their pages touched for the first time when one would do: on a virtual machine a
    /// fresh page costs about 3 µs.)
    let slotSets = [ChunkSlots(), ChunkSlots()]
    /// The set being joined, while a round is joined.
    var joining: Int? = nil
    /// Per slot set, the device table as its round's workers read it (the table as it was when
    /// the round began), kept until every chunk of the round is parsed.
    var knownSnapshots: [KnownSnapshot?] = [nil, nil]
    /// The background threads that parse the rounds.
    let crew = ParseCrew()
    /// Whether a round's workers look devices up in the reader's table (``KnownDevices``):
    /// not while, in the last round joined, more than half the fixes came with a device new
    /// to the reader (a log whose devices seldom repeat), where a look-up mostly fails and
    /// each round's first new device copied the table's arrays that the workers shared.
    var lookUpKnown = true
    /// Rounds begun without it (tests).
    var roundsWithoutLookUp = 0
    /// Rounds begun ahead, while the one before was joined (tests).
    var roundsBegunAhead = 0

    /// Reads at least one more record into `out` (unless the end comes first: then `done`):
    /// the pending round, else a round begun and finished now.
    /// - Throws: what a serial read throws at the first bad row (strict) or a whole-file problem;
    ///   the fixes before it are in `out`.
    mutating func round(_ parser: inout LineParser, _ core: inout ReadCore, _ devices: inout DeviceState,
                        _ out: inout [Fix], ahead: Bool = false) throws(GeofenceError) {
        if pending == nil {
            // Parsed now, while nothing changes the shared table: the workers look devices up in it.
            begin(parser, &core, background: false, known: devices)
        }
        try finish(&parser, &core, &devices, &out, ahead: ahead)
    }

    /// Starts the next round: fills the window and hands its chunks to the parse workers, in
    /// the background (or, not `background`, with this thread among them, returning when they
    /// are parsed), to be joined by ``finish(_:_:_:_:)``. Touches nothing the join or the caller
    /// reads until then but `core`'s window, which must not move before the round is finished.
    /// With `known` (a copy of the reader's device table, its arrays shared until either side
    /// changes them), the workers give a device already in it its index there
    /// (``ReadCore/knownDevices``), so the join maps only the devices new in the round; the copy
    /// is dropped once the round is parsed.
    ///
    /// `from`: the round begins there, ahead of the reader (the round being joined ends there),
    /// and only if the window already holds its bytes (it must not move while the other round
    /// is joined); else nothing is begun.
    mutating func begin(_ parser: LineParser, _ core: inout ReadCore, background: Bool = true,
                        known: DeviceState? = nil, from: Int? = nil) {
        guard pending == nil, !done else { return }
        guard let source = core.source else { done = true; return }
        let small = ramping
        let target = Swift.min(small ? Self.firstRoundBytes << roundsBegun : fullRoundBytes, core.maxLineLength)
        if let from, from >= core.end || (core.end - from < target && !core.eof) { return }
        roundsBegun += 1
        if core.end - core.pos < target && !core.eof {
            core.end = source.compact(keeping: core.pos, end: core.end)
            core.pos = 0
            core.base = source.base
            while core.end < target && !core.eof {
                // A failure is met again, at its line, by the serial step below. The window
                // follows the buffer even then: the failed refill may have moved it (keeping
                // `core.end` bytes from 0, so the offsets stay).
                guard let r = try? source.refill(keeping: 0, end: core.end) else {
                    core.base = source.base
                    break
                }
                core.base = source.base
                core.end = r.end
                if r.eof { core.eof = true }
            }
        }
        let s0 = from ?? core.pos
        if s0 >= core.end && core.eof { done = true; return }
        // A round ends at the last newline of its bytes; the rest stays for the next (a mapped
        // file is all in the window).
        let shortened = core.end - s0 > target
        let e0 = shortened ? s0 + target : core.end, eof = shortened ? false : core.eof
        let base = core.base
        // Parts of at most a chunk, and of 64 KiB or less while that leaves a few per thread
        // (a small log is split too); a small first round in four parts per thread (16 KiB at
        // least): every thread has a part of it, the faster threads take more (a worker's
        // first part, in memory new to its thread, took twice as long as the reader's own),
        // and the first parts are joined while the last are parsed. 1M scattered rows × 10k
        // circles: the first batch of 23,392 fixes 11.6 → 10.8 ms (medians of 25 runs in turn).
        let part = small ? Swift.max(1 << 14, (e0 - s0 + 4 * threads - 1) / (4 * threads))
                         : Swift.min(chunkBytes, Swift.max(1 << 16, (e0 - s0) / (4 * threads)))
        let parts = Swift.max(1, Swift.min((e0 - s0 + part - 1) / part, 4 * threads))
        let guesses = (1..<parts).map { s0 + (e0 - s0) * $0 / parts }
        let cut = quoteParity ? Self.boundariesByParity(base, s0, e0, eof: eof, guesses: guesses)
                              : Self.boundaries(base, s0, e0, eof: eof, guesses: guesses)
        guard let roundEnd = cut.end, roundEnd > s0 else { pending = .serial; return }
        let starts = [s0] + cut.starts.filter { $0 < roundEnd }
        let chunkCount = starts.count

        let window = UnsafeShared(base: base)
        var roundSettings = ChunkSettings(core)
        let set = joining.map { 1 - $0 } ?? 0
        // While most rows bring a device new to the reader, a look-up in the table finds
        // little, and sharing it costs a copy of its arrays whenever the join adds one: the
        // workers then keep every device in their chunk's table.
        let snapshot = lookUpKnown ? known.map { KnownSnapshot($0) } : nil
        if known != nil && !lookUpKnown { roundsWithoutLookUp += 1 }
        knownSnapshots[set] = snapshot
        if let snapshot { roundSettings.known = KnownDevices(snapshot: snapshot) }
        let settings = roundSettings
        let endsFile = eof
        let slots = slotSets[set]
        slots.reserve(chunkCount)
        let results = UnsafeShared(base: slots.base)
        let sharedParser = parser
        let work = RoundWork(chunks: chunkCount) { i in
            let to = i + 1 < starts.count ? starts[i + 1] : roundEnd
            Self.parse(sharedParser, window.base, from: starts[i], to: to, endsFile: endsFile && to == e0, settings,
                       into: &results.base[i])
        }
        pending = .parse(starts: starts, end: roundEnd, windowEnd: e0, endsFile: endsFile, work: work, set: set)
        if let mapped = source.mapping {
            // Work for a worker with nothing left to parse (mostly while this round is joined):
            // the next round's pages mapped, otherwise the first touch of each (the next cut
            // first, on the reader's thread) waits for a page fault; and the pages the reader
            // has passed dropped, which would otherwise all be unmapped on the reader's thread
            // when the file is closed: every ``MappedFile/dropStep`` bytes, and in the file's
            // last round all of them (closing the file then unmaps this round's pages alone).
            // The task holds the mapping until it is done or dropped (``waitIdle()``), and
            // reads nothing of the source (the reader's thread changes it).
            let next = eof ? nil : UnsafeShared(base: base + roundEnd), count = Swift.min(target, core.end - roundEnd)
            let passed = UnsafeShared(base: base + core.pos)
            crew.whenIdle {
                if let next { MappedFile.populate(UnsafeMutableRawPointer(next.base), count) }
                mapped.drop(below: passed.base, step: next == nil ? 0 : MappedFile.dropStep)
            }
        }
        if background {
            // Half the threads (the caller's evaluation has the others); the caller takes the
            // chunks left when it needs the round.
            crew.add(work, threads: Swift.max(1, threads / 2))
        } else {
            // Needed now: the other threads start on it, and this one takes chunks too as it
            // joins them (``finish(_:_:_:_:)``).
            crew.add(work, threads: Swift.min(threads, chunkCount) - 1)
        }
    }

    /// Waits for the pending round's parse, if any (before the window or the reader goes away),
    /// parsing the chunks no thread has taken (the crew's threads may all be busy elsewhere),
    /// and drops the crew's idle task if no thread has taken it.
    mutating func waitIdle() {
        if case .parse(_, _, _, _, let work, _)? = pending {
            work.run()
            work.wait()
        }
        crew.whenIdle(nil)
    }

    /// Joins the pending round in file order (a chunk's lines count from its start), or reads
    /// the serial step it stands for. `ahead`: once every chunk of the round has been taken,
    /// the next round is begun in the background (``begin(_:_:background:known:from:)`` from
    /// this round's end), so that the parse workers go on with it while this thread finishes
    /// the join and the caller works on the batch; it is dropped if this round ends otherwise
    /// than at its end (a record ran past a chunk, or an error).
    mutating func finish(_ parser: inout LineParser, _ core: inout ReadCore, _ devices: inout DeviceState,
                         _ out: inout [Fix], ahead: Bool = false) throws(GeofenceError) {
        guard let p = pending else { return }
        pending = nil
        guard case .parse(let starts, let roundEnd, let e0, let endsFile, let work, let set) = p else {
            return try serialStep(&parser, &core, &devices, &out)
        }
        let chunkCount = starts.count, slots = slotSets[set]
        let before = out.count, from = core.pos
        // Each chunk joined as soon as it is parsed, this thread parsing the chunks no worker
        // has taken while it waits; the others go on parsing meanwhile. Before anything else
        // (the window moves, or the next round begins), every chunk is parsed.
        var allParsed = false
        func finishParsing() {
            guard !allParsed else { return }
            allParsed = true
            work.run()
            work.wait()
            knownSnapshots[set] = nil                       // the join's changes copy nothing now
        }
        var begunAhead = false
        let devicesBefore = devices.keys.count
        joining = set
        let crew = self.crew
        defer {
            // The batch whole (every copy the join left made) before anything reads it.
            crew.finishCopies()
            joining = nil
            finishParsing()
            let fixes = out.count - before
            joinedFixes += fixes
            joinedBytes += core.pos - from
            if fixes > 0 { lookUpKnown = 2 * (devices.keys.count - devicesBefore) <= fixes }
        }
        do throws(GeofenceError) {
            for i in 0..<chunkCount {
                // Once this round's chunks are all taken, the next round is begun: the crew
                // goes on with it while this thread waits for the last chunks and joins them.
                func beginAhead() -> Bool {
                    guard ahead && !begunAhead && !endsFile else { return false }
                    begunAhead = true
                    begin(parser, &core, known: devices, from: roundEnd)
                    if pending != nil { roundsBegunAhead += 1 }
                    return true
                }
                // Waiting for a chunk another thread is parsing, this one begins the next round
                // (once), then parses its chunks one at a time: no thread waits while parsing is
                // left (docs/logs.md#parallel-reading).
                func helpAhead() -> Bool {
                    guard begunAhead, case .parse(_, _, _, _, let next, _)? = pending else { return false }
                    return next.runOne()
                }
                work.awaitChunk(i, lastTaken: { _ = beginAhead() }) { beginAhead() || helpAhead() || crew.runOneCopy() }
                if work.allTaken { _ = beginAhead() }
                let to = i + 1 < chunkCount ? starts[i + 1] : roundEnd
                try join(&slots.base[i], parser: parser, from: starts[i], to: to, roundEnd: roundEnd, endsFile: endsFile && to == e0,
                         leaveCopy: !ahead, &core, &devices, &out)
                if slots.base[i].straddle != nil {
                    finishParsing()
                    dropAhead()
                    crew.finishCopies()                     // the serial step may grow `out`
                    return try serialStep(&parser, &core, &devices, &out)
                }
            }
        } catch {
            dropAhead()
            throw error
        }
    }

    /// Waits for a round begun ahead, if any (parsing the chunks no thread has taken), and
    /// forgets it (the reader is not where it begins).
    mutating func dropAhead() {
        if case .parse(_, _, _, _, let work, let set)? = pending {
            work.run()
            work.wait()
            knownSnapshots[set] = nil
        }
        pending = nil
    }

    /// Adds one chunk's result to the reader's state, in file order: the time unit, skips and
    /// first messages, devices, the time order of each fix. After a straddle the reader stands
    /// at the record that ran past the chunk.
    mutating func join(_ r: inout ChunkResult, parser: LineParser, from: Int, to: Int, roundEnd: Int, endsFile: Bool,
                       leaveCopy: Bool = false, _ core: inout ReadCore, _ devices: inout DeviceState, _ out: inout [Fix]) throws(GeofenceError) {
        let lineBase = core.line, crew = self.crew
        // Runs whose device the join left to the copy into the batch (``takeRun``), out of `r`
        // while its closures run (given back however it ends).
        var patches: [DevicePatch] = []
        swap(&patches, &r.patches)
        patches.removeAll(keepingCapacity: true)
        defer { swap(&patches, &r.patches) }
        // Before `out` takes `n` more: where it would have to grow (and so move), the copies
        // left into it made first.
        func beforeAppending(_ n: Int) { if out.capacity &- out.count < n { crew.finishCopies() } }
        // The first `kept` fixes appended now, the patches' devices written on the way (and
        // the patches done with).
        func appendKept(_ kept: Int, _ fixes: UnsafeMutableBufferPointer<Fix>) {
            beforeAppending(kept)
            guard !patches.isEmpty else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: fixes[0..<kept]))
                return
            }
            patches.withUnsafeBufferPointer { patched in
                out.append(addingCapacity: kept) { span in
                    span.withUnsafeMutableBufferPointer { room, initialized in
                        FixCopy.copy(from: fixes.baseAddress!, to: room.baseAddress!, count: kept, patches: patched)
                        initialized = kept
                    }
                }
            }
            patches.removeAll(keepingCapacity: true)
        }
        // The unit this chunk's worker resolved, taken once its rows are joined (or, when the
        // join stops at one of them, if a row before it resolved it).
        var unitToApply: (unit: TimeUnit, first: Double)? = nil
        if let (unit, first) = r.resolvedUnit {
            if core.timeUnit == .auto {
                unitToApply = (unit, first)
            } else if core.timeUnit != unit {
                // An earlier chunk of this round chose another unit: read this one with it.
                let again = ChunkSettings(core)
                Self.parse(parser, core.base, from: from, to: to, endsFile: endsFile, again, into: &r)
            }
        }
        for (reason, n) in r.skipped {
            core.skipped[reason, default: 0] += n
            if core.firstMessages[reason] == nil, let m = r.firstMessages[reason] {
                core.firstMessages[reason] = "\(core.path):\(lineBase + (r.firstLines[reason] ?? 0)): \(m)"
            }
        }
        global.removeAll(keepingCapacity: true)
        global.append(contentsOf: repeatElement(-1, count: r.devices.offsets.count - 1))
        let offsets = r.devices.offsets, localKeys = r.devices.keys, runStarts = r.runStarts
        // The devices the chunk's workers did not find in the reader's table (none in a log
        // whose devices all appeared in earlier rounds; nearly one a row where they seldom
        // repeat) are met here in the order of their chunk indices, each first at its index:
        // the slot of the one `slotLead` further is asked for then (from the chunk table's
        // hash), so that the probes into the reader's table do not each wait for memory.
        // The chunk's devices the workers did not find may all be new: room for them is made
        // at once when the first of them is (none new, as when an earlier chunk of the round
        // brought them, nothing grows).
        devices.expected = (localKeys.count, r.devices.bytes.count)
        // The joined devices, out of self while the join's closures run (given back however it ends).
        var seen = JoinedDevices()
        swap(&seen, &joinedDevices)
        defer {
            devices.expected = (0, 0)
            swap(&seen, &joinedDevices)
        }
        for key in localKeys.prefix(Self.slotLead) { geofence_prefetch(devices.slotAddress(key.hash)) }
        let fileIndex = core.fileIndex
        // Room for the rest of the round at this chunk's fixes per byte, so that `out` grows
        // once a round rather than doubling its way up (each step a copy into fresh pages).
        if out.capacity < out.count + r.output.count, to > from {
            crew.finishCopies()                             // `out` moves
            let rest = Double(roundEnd - from) / Double(to - from) * Double(r.output.count)
            out.reserveCapacity(out.count + Swift.max(r.output.count, Int(rest * 1.1)))
        }
        do {
            try r.devices.bytes.withUnsafeBufferPointer { (names) throws(GeofenceError) in
                try global.withUnsafeMutableBufferPointer { (global) throws(GeofenceError) in
                    let output = r.output, fixes = output.written
                    // Fixes accepted by the common path are moved down to fixes[0..<kept]
                    // (mapped), and appended to `out` in one copy before anything else is.
                    var kept = 0
                    var j = 0
                    // The worker's run that holds fix j - 1: runStarts[run]..<runStarts[run + 1].
                    var run = 0
                    let hasRuns = !runStarts.isEmpty
                    while j < fixes.count {
                        // The common fix, without a call: a device already mapped (or found by
                        // the worker), or new to the reader and added to its table right here
                        // (at its first fix, as the general path below adds it), whose previous
                        // fix it follows. `last` is fetched again whenever a new device may
                        // have moved its storage.
                        var last = devices.lastFixes()
                        while j < fixes.count {
                            var f = fixes[j]
                            var g = f.device >= 0 ? f.device : global[Int(-1 - f.device)]
                            if g < 0 {
                                let local = Int(-1 - f.device), s = offsets[local], e = offsets[local + 1]
                                if local &+ Self.slotLead < localKeys.count {
                                    geofence_prefetch(devices.slotAddress(localKeys[local &+ Self.slotLead].hash))
                                }
                                // Half as far on, that slot is there: the key it points to
                                // (the probe compares it first) asked for in turn.
                                if local &+ Self.slotLead / 2 < localKeys.count,
                                   let key = devices.firstKeyAddress(localKeys[local &+ Self.slotLead / 2].hash) {
                                    geofence_prefetch(key)
                                }
                                let key = localKeys[local]
                                // A name the table refuses: the general path below reports it.
                                guard e > s, let d = devices.intern(names.baseAddress! + s, e - s, hash: key.hash, tail: key.tail) else { break }
                                g = d
                                global[local] = d
                                last = devices.lastFixes()
                            }
                            let l = last.unsafelyUnwrapped[Int(g)]
                            guard l.isFollowed(by: f.time, f.lat, f.lon) else { break }
                            // The fixes after it of the same device (as the chunk numbers it), a
                            // run in a trace: each checked against the one before it, the
                            // device's last fix written once, after the run (or before the one
                            // out of order, which the loop above then meets again).
                            let chunkDevice = f.device
                            var previous = f
                            f.device = g
                            fixes[kept] = f
                            kept += 1
                            j += 1
                            // The rest of the worker's run follows it: each fix takes the
                            // device, none is checked again.
                            if hasRuns {
                                let end = Self.takeRun(fixes, runStarts, &run, from: j, kept: kept, device: g)
                                if end > j && kept == j && fixes[j].device != g {
                                    patches.append(DevicePatch(from: Int32(truncatingIfNeeded: j), end: Int32(truncatingIfNeeded: end), device: g))
                                }
                                if end > j {
                                    kept &+= end &- j
                                    j = end
                                    previous = fixes[kept &- 1]
                                }
                            }
                            while j < fixes.count && fixes[j].device == chunkDevice {
                                let h = fixes[j]
                                guard DeviceState.follows(h.time, h.lat, h.lon, after: previous.time, previous.lat, previous.lon) else { break }
                                // (Where nothing was dropped before it, the fix stays where
                                // it is: only its device is written.)
                                if kept != j { fixes[kept] = h }
                                if h.device != g { fixes[kept].device = g }
                                previous = h
                                kept += 1
                                j += 1
                            }
                            last.unsafelyUnwrapped[Int(g)] = DeviceState.LastFix(time: previous.time, lat: previous.lat, lon: previous.lon,
                                                                                line: lineBase + output.line(j - 1), file: fileIndex)
                            seen.insert(g)
                        }
                        guard j < fixes.count else { break }
                        appendKept(kept, fixes)
                        kept = 0
                        // A device new to the reader, or a fix out of order (reported as a serial read would).
                        var f = fixes[j]
                        if f.device < 0 {
                            let local = Int(-1 - f.device)
                            var g = global[local]
                            if g < 0 {
                                let s = offsets[local], e = offsets[local + 1]
                                guard let d = try core.device(names.baseAddress! + s, e - s, line: lineBase + output.line(j), &devices) else {
                                    j += 1
                                    continue
                                }
                                g = d
                                global[local] = g
                            }
                            f.device = g
                        }
                        let had = out.count
                        beforeAppending(1)
                        try core.accept(f, line: lineBase + output.line(j), &devices, &out)
                        if out.count > had { seen.insert(f.device) }
                        j += 1
                    }
                    // The chunk's last fixes: with `leaveCopy`, room made for them in `out` and
                    // their copy left to a thread with nothing to parse (the chunk's storage is
                    // not written again this round); else, or where `out` would have to grow,
                    // copied now. (While a round is parsed ahead, the workers have that round to
                    // parse, which a copy they took would delay.)
                    if leaveCopy && kept > 0 && out.capacity &- out.count >= kept {
                        var to: UnsafeMutablePointer<Fix>? = nil
                        out.append(addingCapacity: kept) { span in
                            span.withUnsafeMutableBufferPointer { room, initialized in
                                to = room.baseAddress
                                initialized = kept                  // by the copy, before the batch is read
                            }
                        }
                        // The patches' storage stays put: `r.patches` is not changed until the
                        // slot's next round, after every copy is made.
                        let patched = patches.withUnsafeBufferPointer { $0 }
                        crew.addCopy(FixCopy(from: UnsafePointer(fixes.baseAddress!), to: to!, count: kept, patches: patched))
                    } else if kept > 0 {
                        appendKept(kept, fixes)
                    }
                }
            }
        } catch {
            // Thrown at a row of this chunk (strict: out of order, a duplicate): the unit its
            // worker resolved counts only if a row up to that one resolved it, as a serial
            // read would have met it.
            let unset = ChunkSettings(core)
            if let u = unitToApply, case .input(let e) = error, let l = e.location.line,
               Self.resolvesUnit(parser, core.base, from: from, to: to, endsFile: endsFile, lines: l - lineBase, settings: unset) {
                core.chooseUnit(u.unit, first: u.first)
            }
            throw error
        }
        if let u = unitToApply { core.chooseUnit(u.unit, first: u.first) }
        if case .input(var e)? = r.error {
            if let l = e.location.line { e.location.line = lineBase + l }
            throw .input(e)
        }
        if let e = r.error { throw e }
        if let (pos, line) = r.straddle {
            // The split was inside a quoted field: find boundaries by quote parity from now on.
            quoteParity = true
            core.pos = pos
            core.line = lineBase + line
            return
        }
        core.pos = to
        core.line = lineBase + r.endLine
    }

    /// Whether a time unit is resolved (a numeric time met) in the chunk's first `lines` lines
    /// from `from` (at most up to `to`, which ends the file when `endsFile`), read again with
    /// `settings` (the unit not chosen yet).
    static func resolvesUnit(_ parser: LineParser, _ base: UnsafeMutablePointer<UInt8>, from: Int, to: Int, endsFile: Bool,
                             lines: Int, settings: ChunkSettings) -> Bool {
        var end = from, n = 0
        while n < lines && end < to {
            guard let nl = memchr(base + end, 0x0A, to - end) else { end = to; break }
            end = base.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
            n += 1
        }
        var scratch = ChunkResult()
        defer { scratch.deallocate() }
        parse(parser, base, from: from, to: end, endsFile: endsFile && end == to, settings, into: &scratch)
        return scratch.resolvedUnit != nil
    }

    /// How many devices new to the reader ahead the join asks for the table slot of one.
    static let slotLead = 8

    /// The fewest bytes a record of a fix takes, for reserving the arrays of a chunk: four
    /// fields of one byte, three delimiters, a newline.
    static let minimumRowBytes = 8

    /// Where the chunks start: after the first newline at or after each guess; the round ends
    /// after the last newline of the window (at the end of the window at the end of input).
    /// A newline inside a quoted CSV field makes a chunk run past its end, which the join notices.
    static func boundaries(_ base: UnsafeMutablePointer<UInt8>, _ s0: Int, _ e0: Int, eof: Bool, guesses: [Int]) -> (starts: [Int], end: Int?) {
        var end: Int? = eof ? e0 : nil
        if !eof {
            var j = e0 - 1
            while j >= s0 && base[j] != 0x0A { j -= 1 }
            if j >= s0 { end = j + 1 }
        }
        var starts: [Int] = []
        for g in guesses {
            let from = Swift.max(g, starts.last ?? s0)
            guard from < e0, let nl = memchr(base + from, 0x0A, e0 - from) else { break }
            let j = base.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
            if j > (starts.last ?? s0) { starts.append(j) }
        }
        return (starts, end)
    }

    /// ``boundaries`` for CSV with quoted newlines: a newline ends a record when an even number
    /// of `"` precede it since `s0` (RFC 4180 quoting; `""` counts twice). One pass over the window.
    static func boundariesByParity(_ base: UnsafeMutablePointer<UInt8>, _ s0: Int, _ e0: Int, eof: Bool, guesses: [Int]) -> (starts: [Int], end: Int?) {
        var starts: [Int] = []
        var lastBoundary = -1
        var quoted = false
        var k = 0
        var i = s0
        let p = UnsafePointer(base)
        while i < e0 {
            i = CSVLogParser.findDelimiterOrQuote(p, i, e0, 0x0A)
            guard i < e0 else { break }
            if p[i] == 0x22 {
                quoted.toggle()
            } else if !quoted {
                lastBoundary = i + 1
                while k < guesses.count && guesses[k] <= i {
                    if starts.last != i + 1 { starts.append(i + 1) }
                    k += 1
                }
            }
            i += 1
        }
        return (starts, eof ? e0 : (lastBoundary > s0 ? lastBoundary : nil))
    }

    /// Reads serially until one more fix (or the end): for what the rounds do not split.
    mutating func serialStep(_ parser: inout LineParser, _ core: inout ReadCore, _ devices: inout DeviceState,
                             _ out: inout [Fix]) throws(GeofenceError) {
        let before = out.count
        defer { for k in before..<out.count { joinedDevices.insert(out[k].device) } }
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
        /// The shared device table, read-only while the round is parsed.
        var known: KnownDevices? = nil

        /// What a worker needs of the reader's state `core` as it is now (no shared table).
        init(_ core: ReadCore) {
            path = core.path
            strict = core.strict
            fileIndex = core.fileIndex
            timeUnit = core.timeUnit
            timeUnitDetected = core.timeUnitDetected
            firstNumericTime = core.firstNumericTime
            timeRange = core.timeRange
        }
    }

    /// Parses `base[from..<to]` (whole records) with a private core, lines counted from 0.
    static func parse(_ parser: LineParser, _ base: UnsafeMutablePointer<UInt8>, from: Int, to: Int,
                      endsFile: Bool, _ s: ChunkSettings, into r: inout ChunkResult) {
        var parser = parser
        var core = ReadCore(window: base, pos: from, end: to, line: 0, endsFile: endsFile,
                            path: s.path, strict: s.strict, fileIndex: s.fileIndex)
        core.timeUnit = s.timeUnit
        core.timeUnitDetected = s.timeUnitDetected
        core.firstNumericTime = s.firstNumericTime
        core.timeRange = s.timeRange
        core.knownDevices = s.known
        // Room for the chunk's fixes at once (a row takes at least `minimumRowBytes`): grown
        // row by row from empty, the arrays of a reader's first round were copied a dozen
        // times over (a small log is all first round). Pages never written are never touched.
        // Grown to twice the chunk at least when a chunk needs more than the slot held (chunks
        // vary a little from round to round, and the first rounds' are smaller; grown to each
        // one's size, the arrays were reallocated round after round, into fresh pages).
        r.output.count = 0
        r.output.runRanges.removeAll(keepingCapacity: true)
        r.output.runLines.removeAll(keepingCapacity: true)
        r.output.reserve((to - from) / Self.minimumRowBytes + 1)
        r.devices.removeAll()
        r.devices.bytesOnly = true
        r.error = nil
        r.resolvedUnit = nil
        // The chunk's storage lent to the core, where the parser writes (the batch stays empty).
        swap(&core.output, &r.output)
        var unused: [Fix] = []
        do {
            try parser.read(into: &unused, max: Int.max, &core, &r.devices)
        } catch {
            r.error = error
        }
        swap(&core.output, &r.output)
        markRuns(&r)
        r.skipped = core.skipped
        r.firstMessages = core.firstMessages
        r.firstLines = core.firstLines
        r.straddle = core.straddle
        r.endLine = core.line
        if s.timeUnit == .auto && core.timeUnit != .auto, let first = core.firstNumericTime {
            r.resolvedUnit = (core.timeUnit, first)
        }
    }

    /// The settled form of a staged device (``markRuns(_:)``; an involution: either form maps
    /// to the other's).
    @inline(__always) static func settled(_ d: Int32) -> Int32 { d < 0 ? -2 - d : -1 - d }

    /// Settles the devices of `r`'s fixes and sets `r.runStarts` from them, in one pass. A device
    /// found in the reader's table (staged as `-2 - index`, ``KnownDevices``) becomes that index,
    /// one of the chunk's own table (`i` ≥ 0) becomes `-1 - i`: the join then writes a device
    /// only into the fixes whose device was new to the reader (on the AIS trace, after the first
    /// round, none), where it once rewrote every fix's, each a line the other core had just
    /// written. A run breaks where the device changes or a fix does not follow the one before
    /// it; no runs are marked where they are short (on average fewer than four fixes). Done by
    /// the worker that parsed the chunk, where its fixes are still in cache; the join then takes
    /// a run's fixes after its first without looking at each (on the AIS trace at 2 threads,
    /// the join's per-fix pass was about 20 instructions a fix, on the reader's thread). The
    /// ranges the run routine wrote (``ChunkFixes/runRanges``) are passed over: their devices
    /// are settled already and no run starts inside one.
    static func markRuns(_ r: inout ChunkResult) {
        r.runStarts.removeAll(keepingCapacity: true)
        let n = r.output.count
        guard n > 0 else { return }
        let p = r.output.fixes.unsafelyUnwrapped
        p[0].device = settled(p[0].device)
        guard n > 1 else { return }
        var marking = true
        r.runStarts.reserveCapacity(n / 4 + 18)
        r.runStarts.append(0)
        var device = p[0].device, time = p[0].time
        // The run routine's ranges (settled, each fix following the one before it: no run
        // starts in one) are passed over.
        let ranges = r.output.runRanges
        var range = 0, skipFrom = ranges.first.map { Int($0.lowerBound) } ?? n
        var k = 1
        while k < n {
            if k == skipFrom {
                let end = Int(ranges[range].upperBound)
                device = p[end &- 1].device
                time = p[end &- 1].time
                k = end
                range &+= 1
                skipFrom = range < ranges.count ? Int(ranges[range].lowerBound) : n
                continue
            }
            defer { k &+= 1 }
            let d = settled(p[k].device), t = p[k].time
            p[k].device = d
            // Later, of the same device: the common case, decided on two fields.
            if marking && (d != device || !(t > time)) {
                if d != device || !DeviceState.follows(t, p[k].lat, p[k].lon, after: time, p[k &- 1].lat, p[k &- 1].lon) {
                    // Runs of a few fixes (devices that change from row to row) save the
                    // join less than they cost: none are marked then.
                    if r.runStarts.count > (k &>> 2) &+ 16 {
                        r.runStarts.removeAll(keepingCapacity: true)
                        marking = false
                    } else {
                        r.runStarts.append(Int32(truncatingIfNeeded: k))
                    }
                }
            }
            device = d
            time = t
        }
        if marking { r.runStarts.append(Int32(truncatingIfNeeded: n)) }
    }

    /// Takes the rest of the worker's run that holds fix `j - 1` (just taken, at `kept - 1`):
    /// where fixes were dropped before it, each moves down to `kept` onwards and gets `device`;
    /// where none were, the fixes stay as they are, their device not written (the caller
    /// leaves it to the copy into the batch, ``DevicePatch``, when it is not `device` already:
    /// a device the worker did not find in the reader's table).
    /// Returns where the run ends (`j`: nothing left of it). Out of line, and `j` and `kept`
    /// not passed `inout`: either made the join's loop dearer where no runs are marked (on
    /// 200k rows of the scattered log, 12.4M → 15.0M instructions with them `inout`).
    @inline(never)
    static func takeRun(_ fixes: UnsafeMutableBufferPointer<Fix>, _ runStarts: [Int32], _ run: inout Int,
                        from j: Int, kept: Int, device g: Int32) -> Int {
        let end = runStarts.withUnsafeBufferPointer { starts in
            while Int(starts[run &+ 1]) < j { run &+= 1 }
            return Int(starts[run &+ 1])
        }
        guard j < end else { return j }
        if kept != j {
            for k in j..<end {
                var h = fixes[k]
                h.device = g
                fixes[kept &+ (k &- j)] = h
            }
        }
        return end
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
