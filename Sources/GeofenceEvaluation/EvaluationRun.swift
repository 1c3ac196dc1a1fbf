import GeofenceBase
import GeofenceLogs
import CSystem
import Dispatch
import Foundation
import GeofenceIndex
import Synchronization


/// A worker's answers of the current batch (nil when it has none), for the other workers to read.
struct SharedAnswers: @unchecked Sendable { let base: UnsafePointer<FenceClassification>? }

/// Hands out group numbers 0, 1, 2, ... to the workers of one batch.
final class GroupCounter: Sendable {
    private let value = Atomic<Int>(0)
    @inline(__always) func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}

/// Hands out the spatially sorted positions of one slice of a batch to be queried, from both
/// ends: the worker that sorted the slice takes them from the front, a worker with no slice
/// left to sort from the back, a few at a time, so that the query phase ends with every
/// worker busy to its last few fixes rather than waiting for the slowest slice. Both ends are
/// spatially coherent runs, so each worker's candidate cache keeps its locality.
final class SliceClaim: @unchecked Sendable {
    /// `front | back << 32`: the positions `front..<back` of the slice's order are still to query.
    private let word = Atomic<UInt64>(0)
    /// The slice is sorted and `order` set (another worker may take from its back).
    private let ready = Atomic<Bool>(false)
    /// The slice's positions in spatial order (valid while `ready`, until the batch ends).
    private(set) var order: UnsafePointer<Int32>? = nil

    /// Not ready: called for every slice before the query phase begins.
    func reset() {
        word.store(0, ordering: .relaxed)
        ready.store(false, ordering: .relaxed)
    }

    /// The slice is sorted: positions `0..<count` of `order` are to query.
    func publish(_ order: UnsafePointer<Int32>?, count: Int) {
        self.order = order
        word.store(UInt64(count) << 32, ordering: .relaxed)
        ready.store(true, ordering: .releasing)
    }

    /// Up to `most` positions from the front, or nil when none is left.
    func front(_ most: Int) -> Range<Int>? {
        var w = word.load(ordering: .relaxed)
        while true {
            let f = Int(w & 0xFFFF_FFFF), e = Int(w >> 32)
            guard f < e else { return nil }
            let n = Swift.min(most, e - f)
            let (exchanged, now) = word.compareExchange(expected: w, desired: w + UInt64(n), ordering: .relaxed)
            if exchanged { return f..<(f + n) }
            w = now
        }
    }

    /// Up to `most` positions from the back, or nil when none is left or the slice is not
    /// sorted yet.
    func back(_ most: Int) -> Range<Int>? {
        guard ready.load(ordering: .acquiring) else { return nil }
        var w = word.load(ordering: .relaxed)
        while true {
            let f = Int(w & 0xFFFF_FFFF), e = Int(w >> 32)
            guard f < e else { return nil }
            let n = Swift.min(most, e - f)
            let (exchanged, now) = word.compareExchange(expected: w, desired: UInt64(f) | UInt64(e - n) << 32, ordering: .relaxed)
            if exchanged { return (e - n)..<e }
            w = now
        }
    }
}

/// What a run did: the summary docs/evaluation.md describes (stderr and `--summary`).
public struct EvaluationSummary: Sendable {
    /// Fixes evaluated.
    public var fixes = 0
    /// Devices with at least one fix evaluated.
    public var devices = 0
    /// Fences evaluated against.
    public var fences = 0
    /// Events by type.
    public var events: [EventType: Int] = [:]
    /// Bad rows skipped (lenient reading), by reason.
    public var skipped: [SkipReason: Int] = [:]
    /// Worker threads of the run.
    public var threads = 1
    /// Loading and compiling the fences.
    public var fenceSeconds = 0.0
    /// Reading, evaluating and writing (what `fixesPerSecond` divides by).
    public var seconds = 0.0
    /// Log bytes read (compressed size for gzip).
    public var bytes: Int64 = 0
    /// How the logs were read: `parallel` (by the worker threads at once) or `serial`.
    public var reading = "serial"
    /// Why the logs were read serially (nil when parallel).
    public var readingReason: String? = "one thread"

    /// gzip logs read by members (docs/logs.md#gzip): members read, and how many the workers
    /// inflated ahead in parallel; nil when no log was read that way.
    public var gzipMembers: GzipMemberCount? = nil

    private var readingNoted = false

    /// Adds one log's gzip members (nothing when it was not read by members).
    public mutating func noteGzipMembers(_ c: GzipMemberCount?) {
        guard let c else { return }
        let before = gzipMembers ?? GzipMemberCount(members: 0, inParallel: 0)
        gzipMembers = GzipMemberCount(members: before.members + c.members, inParallel: before.inParallel + c.inParallel)
    }

    /// An empty summary.
    public init() {}

    /// Records how one log was read: the run reads `parallel` when every log did, else
    /// `serial` with the first log's reason.
    public mutating func noteReading(_ r: LogReading) {
        switch r {
        case .parallel:
            if !readingNoted { reading = "parallel"; readingReason = nil }
        case .serial(let why):
            if !readingNoted || reading == "parallel" { reading = "serial"; readingReason = why }
        }
        readingNoted = true
    }

    /// Fixes per second of evaluation (`fixes / seconds`; 0 before any time is measured).
    public var fixesPerSecond: Double { seconds > 0 ? Double(fixes) / seconds : 0 }

    /// The summary as `--summary` writes it (docs/evaluation.md#summary).
    public var json: JSONValue {
        var gzip: [(String, JSONValue)] = []
        if let g = gzipMembers {
            gzip = [("gzip_members", .object([("members", .number(Double(g.members))), ("inflated_in_parallel", .number(Double(g.inParallel)))]))]
        }
        return .object([
            ("fixes", .number(Double(fixes))), ("devices", .number(Double(devices))), ("fences", .number(Double(fences))),
            ("events", .object(EventType.allCases.map { ($0.name, .number(Double(events[$0] ?? 0))) })),
            ("skipped", .object(skipped.sorted { $0.key < $1.key }.map { ($0.key.rawValue, .number(Double($0.value))) })),
            ("skipped_total", .number(Double(skipped.values.reduce(0, +)))),
            ("threads", .number(Double(threads))),
            ("reading", .string(reading)),
        ] + (readingReason.map { [("reading_reason", JSONValue.string($0))] } ?? []) + gzip + [
            ("fence_seconds", .number((fenceSeconds * 1000).rounded() / 1000)),
            ("seconds", .number((seconds * 1000).rounded() / 1000)),
            ("fixes_per_second", .number(fixesPerSecond.rounded())),
        ])
    }

    /// The one-line summary `geofence evaluate` prints on stderr.
    public var text: String {
        var s = "fixes \(fixes), devices \(devices), fences \(fences); events:"
        s += EventType.allCases.map { " \($0.name) \(events[$0] ?? 0)" }.joined(separator: ",")
        let sk = skipped.values.reduce(0, +)
        if sk > 0 {
            s += "; skipped \(sk) row\(sk == 1 ? "" : "s") ("
            s += skipped.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ") + ")"
        }
        s += String(format: "; fences loaded in %.2f s; fixes evaluated in %.2f s, %.0f fixes/s, %d thread%@",
                    fenceSeconds, seconds, fixesPerSecond, threads, threads == 1 ? "" : "s")
        return s
    }
}

/// Where one fix's classifications are after the query phase of a batch:
/// `workers[worker].answers[start..<start + count]`.
struct FixAnswer {
    var start: Int32
    var count: Int32
    var worker: Int32
}

/// The positions of a batch's fixes in a spatial order: the Morton (Z) order
/// of a 65536 × 65536 lon/lat grid (cells ~600 × 300 m at the equator),
/// sorted by a three-pass radix sort, stable. Consecutive index queries in
/// this order read the same tree nodes and fence records, from cache, and
/// mostly fall in the region a worker's `CandidateCache` holds. A batch
/// already in such an order (consecutive fixes in the same cell of a 2048 ×
/// 2048 grid, ~20 × 10 km) keeps its log order.
struct SpatialOrder {
    var keys: [UInt32] = []
    var keys2: [UInt32] = []
    var order: [Int32] = []
    var order2: [Int32] = []
    /// Digit counts of the three passes (11, 11 and 10 bits).
    var counts = [Int32](repeating: 0, count: 3 * 2048)

    /// A batch whose log order changes (coarse) cell fewer than once per this
    /// many fixes is queried in log order (sorting would not make it more local).
    static let coherentRuns = 8

    /// 16 bits spread to the even bit positions.
    @inline(__always)
    static func spread(_ v: UInt32) -> UInt32 {
        var x = v
        x = (x | (x << 8)) & 0x00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F
        x = (x | (x << 2)) & 0x3333_3333
        x = (x | (x << 1)) & 0x5555_5555
        return x
    }

    /// Grid cell (0...65535) of a coordinate scaled to cells; NaN to 0.
    @inline(__always)
    static func cell(_ f: Double) -> UInt32 { f >= 0 ? (f < 65535 ? UInt32(f) : 65535) : 0 }

    /// Fixes screened before the filter is judged worth it for a slice.
    static let probe = 256

    /// Where geofence_screen finds a fix's numbers: the stride and byte offsets of `Fix`.
    static let fixStride = MemoryLayout<Fix>.stride
    static let latAt = MemoryLayout<Fix>.offset(of: \Fix.lat)!
    static let lonAt = MemoryLayout<Fix>.offset(of: \Fix.lon)!
    static let accuracyAt = MemoryLayout<Fix>.offset(of: \Fix.accuracy)!

    /// Screens `b[0..<n]` with `filter` and sorts the rest. A fix the filter answers (it meets
    /// no fence box) gets no candidates in `answers` (worker `k`) and is not queried; the other
    /// positions go to `order[0..<count]` in spatial order, and the count is returned. The
    /// filter is used only when it answered at least a quarter of the first ``probe`` fixes
    /// (on a log that is mostly near fences it would cost more than it saves).
    mutating func screenAndSort(_ b: UnsafePointer<Fix>, _ n: Int, filter: MissFilter?, margin: Double,
                                worker k: Int32, answers: UnsafeMutablePointer<FixAnswer>) -> Int {
        if keys.count < n {
            keys = [UInt32](repeating: 0, count: n); keys2 = keys
            order = [Int32](repeating: 0, count: n); order2 = order
        }
        var m = 0
        order2.withUnsafeMutableBufferPointer { rest in
            var j = 0
            if let filter, filter.isUsable {
                // geofence_screen copies 12 bytes of it per miss (a constant check: folded away).
                precondition(MemoryLayout<FixAnswer>.stride == 12 && MemoryLayout<FixAnswer>.size == 12)
                var none = FixAnswer(start: 0, count: 0, worker: k)
                // The filter's one-bit test in a C loop (geofence_screen, which decides as the
                // filter's probe does, each fix's word of the grid prefetched a few fixes
                // ahead); the fixes it leaves undecided asked of the filter itself.
                (j, m) = filter.withProbe { probe in
                    let q = probe.parameters
                    var c = geofence_screen_probe(bits: q.bits, width: q.width, scale_x: q.scaleX, scale_y: q.scaleY,
                                                  last_column: q.lastColumn, last_row: q.lastRow, fast_metres: q.fastMetres,
                                                  margin: margin, has_large: q.hasLarge ? 1 : 0)
                    let raw = UnsafeRawPointer(b).assumingMemoryBound(to: UInt8.self)
                    let out = UnsafeMutableRawPointer(answers).assumingMemoryBound(to: UInt8.self)
                    return withUnsafePointer(to: &none) { empty in
                        var j = 0, m = 0, end = Swift.min(n, SpatialOrder.probe)
                        while true {
                            while j < end {
                                j = geofence_screen(&c, raw, Self.fixStride, Self.latAt, Self.lonAt, Self.accuracyAt, j, end,
                                                    out, empty, rest.baseAddress!, &m)
                                guard j < end else { break }
                                let f = b[j]
                                if filter.certainlyMisses(lat: f.lat, lon: f.lon, metres: f.accuracy + margin) {
                                    answers[j] = empty.pointee
                                } else {
                                    rest[m] = Int32(truncatingIfNeeded: j)
                                    m &+= 1
                                }
                                j &+= 1
                            }
                            // Past the probe, only when the filter answered a quarter of it.
                            if end == n || (j &- m) &* 4 < j { return (j, m) }
                            end = n
                        }
                    }
                }
            }
            while j < n { rest[m] = Int32(j); m &+= 1; j &+= 1 }
        }
        sortPositions(b, m)
        return m
    }

    /// Sorts the positions `order2[0..<n]` of fixes in `b` into `order[0..<n]` (the arrays sized
    /// by the caller).
    private mutating func sortPositions(_ b: UnsafePointer<Fix>, _ n: Int) {
        guard n > 0 else { return }
        keys.withUnsafeMutableBufferPointer { k in
            keys2.withUnsafeMutableBufferPointer { k2 in
                order.withUnsafeMutableBufferPointer { o in
                    order2.withUnsafeMutableBufferPointer { o2 in
                        counts.withUnsafeMutableBufferPointer { c in
                            // How often the log order changes coarse cell (2048 × 2048, ~20 × 10 km).
                            var changes = 0, previous: UInt32 = .max
                            for j in 0..<n {
                                let f = b[Int(o2[j])]
                                let x = SpatialOrder.cell((f.lon + 180) * (65536.0 / 360)) >> 5
                                let y = SpatialOrder.cell((f.lat + 90) * (65536.0 / 180)) >> 5
                                let coarse = x | y << 11
                                changes &+= coarse != previous ? 1 : 0
                                previous = coarse
                            }
                            // Already in order where it matters (a log grouped by device, each
                            // moving a little between fixes): consecutive fixes share a cell.
                            if changes < n / SpatialOrder.coherentRuns {
                                for j in 0..<n { o[j] = o2[j] }
                                return
                            }
                            for d in 0..<(3 * 2048) { c[d] = 0 }
                            for j in 0..<n {
                                let f = b[Int(o2[j])]
                                let x = SpatialOrder.cell((f.lon + 180) * (65536.0 / 360))
                                let y = SpatialOrder.cell((f.lat + 90) * (65536.0 / 180))
                                let key = SpatialOrder.spread(x) | SpatialOrder.spread(y) << 1
                                k[j] = key
                                c[Int(key & 2047)] += 1
                                c[2048 + Int((key >> 11) & 2047)] += 1
                                c[4096 + Int(key >> 22)] += 1
                            }
                            for pass in 0..<3 {
                                var sum: Int32 = 0
                                for d in (2048 * pass)..<(2048 * pass + 2048) {
                                    let a = c[d]
                                    c[d] = sum
                                    sum += a
                                }
                            }
                            // Low digit: positions into o (keys into k2); middle: into o2 (keys into k); high: into o.
                            for j in 0..<n {
                                let key = k[j], d = Int(key & 2047)
                                let pos = Int(c[d])
                                c[d] += 1
                                k2[pos] = key; o[pos] = o2[j]
                            }
                            for j in 0..<n {
                                let key = k2[j], d = 2048 + Int((key >> 11) & 2047)
                                let pos = Int(c[d])
                                c[d] += 1
                                k[pos] = key; o2[pos] = o[j]
                            }
                            for j in 0..<n {
                                let d = 4096 + Int(k[j] >> 22)
                                let pos = Int(c[d])
                                c[d] += 1
                                o[pos] = o2[j]
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One contiguous run of a batch (log order) in the multi-thread path: its
/// spatial order and its positions grouped by device group, both made by the
/// worker that queried it.
struct BatchSlice {
    var spatial = SpatialOrder()
    /// Batch positions of the slice, grouped: group `g` is `positions[offsets[g]..<offsets[g + 1]]`, in log order.
    var positions: [Int32] = []
    var offsets: [Int32] = []

    /// Groups the positions `lo..<hi` of `b` by `device & mask` (a counting sort, stable).
    mutating func group(_ b: UnsafePointer<Fix>, _ lo: Int, _ hi: Int, groups: Int) {
        let mask = Int32(groups - 1)
        if offsets.count != groups + 1 { offsets = [Int32](repeating: 0, count: groups + 1) }
        if positions.count < hi - lo { positions = [Int32](repeating: 0, count: hi - lo) }
        offsets.withUnsafeMutableBufferPointer { o in
            positions.withUnsafeMutableBufferPointer { p in
                for g in 0...groups { o[g] = 0 }
                for i in lo..<hi { o[Int(b[i].device & mask) + 1] += 1 }
                for g in 0..<groups { o[g + 1] += o[g] }
                // Scatter with o[g] as the cursor of group g, then shift back.
                for i in lo..<hi {
                    let g = Int(b[i].device & mask)
                    p[Int(o[g])] = Int32(i)
                    o[g] += 1
                }
                var prev: Int32 = 0
                for g in 0..<groups { let e = o[g]; o[g] = prev; prev = e }
                o[groups] = prev
            }
        }
    }
}

/// Evaluates fixes against compiled fences with `threads` workers, partitioned by
/// device, so each device's state lives on one thread at a time and the output is
/// byte-identical whatever the thread count (docs/evaluation.md).
///
/// A batch goes in two phases. Queries: every fix is classified by the index
/// (`FenceIndex.classify` does not depend on any state), in a spatial order
/// (`SpatialOrder`) so that consecutive queries hit the same cached nodes and
/// fences. With several threads the batch is cut into contiguous slices that
/// the workers take from a shared counter; a worker sorts its slice spatially,
/// groups its positions by device group and queries it from the front, and a
/// worker with no slice left to sort queries the others' from their backs
/// (`SliceClaim`), so no part of a batch runs on one thread alone. State: the device state machines
/// (`Evaluator.apply`) run over the fixes in log order, devices split into
/// groups (device index mod the group count, several groups per thread) that
/// the workers again take from a counter, each group reading its positions
/// slice after slice, so a worker whose core is busy with something else
/// holds up little. Each group keeps its devices' state in its own array: no
/// two threads write near each other.
public final class EvaluationRun {
    /// The fences evaluated against.
    public let compiled: CompiledFences
    /// The state machines' settings and options.
    public private(set) var evaluator: Evaluator
    /// Worker threads (≥ 1).
    public let threads: Int
    /// Groups (a power of two); device `d` is `groups[d & (groupCount - 1)][d >> groupShift]`.
    let groupCount: Int
    let groupShift: Int
    var groups: [[DeviceTracker]]
    var workers: [Evaluator.Worker]
    /// The one-thread path's spatial order.
    var spatial = SpatialOrder()
    /// The multi-thread path's slices (reused between batches), and who queries what of each.
    var slices: [BatchSlice] = []
    var claims: [SliceClaim] = []
    /// Per batch position, where its classifications are.
    var answers: [FixAnswer] = []
    /// Devices seen so far (dense indices `0..<deviceCount`).
    public private(set) var deviceCount = 0
    /// Fixes processed so far.
    public private(set) var fixes = 0
    /// Devices with at least one fix processed by this run (a device restored from a state
    /// counts once it has a fix here; an id seen only on skipped rows never does).
    public private(set) var devicesWithFixes = 0
    /// Events held by the run (not yet taken), all devices.
    public private(set) var heldEvents = 0
    /// The devices of the last batch, in order of their first fix in it (`takeEvents` sorts them).
    var batchDevices: [Int32] = []
    /// Per device, the number of the last batch it was in (1-based; 0: none yet).
    var lastBatch: [UInt32] = []
    /// Per device, 1 when its tracker is started, not fresh and in no fence: a fix of it with
    /// no candidate changes nothing (``Evaluator/passQuietly(candidates:state:)`` would only set
    /// what is set), so the state pass skips it without touching the tracker, which a
    /// scattered log's misses would otherwise fetch from memory one by one. 0 is always safe:
    /// the tracker then decides. Set by the state passes, which alone change trackers once
    /// fixes are processed.
    var quiet: [UInt8] = []
    var batchNumber: UInt32 = 0

    /// Fewest fixes per slice of the multi-thread query phase (tests lower it).
    var minimumSlice = 1024
    /// Sorted positions a worker takes at a time from a slice's front or back (``SliceClaim``):
    /// a few dozen queries, against one atomic exchange.
    static let claimStep = 64
    /// Whether the query phase screens fixes with the index's miss filter first (tests turn
    /// it off to compare).
    var screensMisses = true
    /// The miss filter of the evaluator's index, made at the first batch.
    var missFilter: MissFilter? = nil

    /// The miss filter for this batch: nil when screening is off, and until the run has had a
    /// fix for every four fences (building it costs about as much as screening a few fixes per
    /// fence; a short log over a few thousand fences is served as well by the caches alone).
    /// Over ``MissFilter/eagerFences`` fences or more it is built at once: each worker's cache
    /// would otherwise build an occupancy grid of its own, at about the same cost. One read
    /// from a compiled fence file is taken at once too (it costs nothing to take, and the
    /// workers' caches then build no grid of their own: 100k circles, 23,392 fixes, a batch
    /// whose fixes were fewer than a quarter of the fences marked every box once per worker).
    func currentMissFilter() -> MissFilter? {
        let fences = evaluator.index.count
        guard screensMisses, fixes &* 4 >= fences || fences >= MissFilter.eagerFences || evaluator.index.hasStoredMissFilter else { return nil }
        if missFilter == nil || !missFilter!.matches(evaluator.index) {
            let filter = evaluator.index.missFilter(threads: threads)
            missFilter = filter
            // The workers' caches use its grid rather than each building one.
            for k in workers.indices { workers[k].cache.adoptOccupancy(of: filter) }
        }
        return missFilter
    }

    /// The fixes per batch that `geofence evaluate` and ``GeofenceKit``'s event stream hand to
    /// ``process(_:)`` (docs/evaluation.md#determinism): 32,768 ran the 1M-row scattered log
    /// 4–12 % faster at 2 threads than 65,536, with a smaller peak (47 against 53 MB).
    public static let defaultBatchSize = 32_768

    /// A run over `compiled` with `threads` workers (values below 1 mean 1).
    public init(compiled: CompiledFences, settings: EvaluationSettings, threads: Int) {
        self.compiled = compiled
        self.evaluator = Evaluator(index: compiled.index, options: compiled.options, settings: settings)
        self.threads = max(1, threads)
        var shift = 0
        if self.threads > 1 { while 1 << shift < 4 * self.threads { shift += 1 } }
        groupShift = shift
        groupCount = 1 << shift
        groups = Array(repeating: [], count: groupCount)
        workers = (0..<self.threads).map { _ in Evaluator.Worker() }
    }

    deinit {
        for g in groups { for t in g { t.release() } }
        for w in workers { w.answers.deallocate() }
    }

    /// The tracker of a device.
    @inline(__always)
    func tracker(_ d: Int) -> DeviceTracker { groups[d & (groupCount - 1)][d &>> groupShift] }

    /// Classifies the fixes at `order[from..<to]` into `worker.answers`, recording where in `answers`.
    @inline(__always)
    static func query(_ ev: Evaluator, _ b: UnsafePointer<Fix>, _ order: UnsafePointer<Int32>, _ from: Int, _ to: Int,
                      _ worker: UnsafeMutablePointer<Evaluator.Worker>, _ k: Int32, _ answers: UnsafeMutablePointer<FixAnswer>) {
        let index = ev.index, margin = ev.settings.exitMargin
        // The occupancy grid's word of the fix `lead` places ahead asked for now (the grid of a
        // large fence set is out of cache for scattered fixes), the first `lead` fixes' before
        // the loop (at 2 threads a call queries a claim of 64 fixes); the probe taken again
        // every 256 fixes of a long call (one thread), as the cache starts or stops
        // consulting the grid.
        let lead = 8
        var probe = worker.pointee.cache.occupancyProbe
        /// Asks for the grid word of the fix at `order[j]`.
        @inline(__always) func ask(_ probe: OccupancyProbe, _ j: Int) {
            let g = b[Int(order[j])]
            geofence_prefetch(probe.word(lat: g.lat, lon: g.lon))
        }
        if let probe { for j in from..<Swift.min(from &+ lead, to) { ask(probe, j) } }
        for j in from..<to {
            if (j &- from) & 255 == 255 { probe = worker.pointee.cache.occupancyProbe }
            if let probe, j &+ lead < to { ask(probe, j &+ lead) }
            let i = Int(order[j])
            let f = b[i]
            let start = worker.pointee.answers.count
            index.forEachClassified(lat: f.lat, lon: f.lon, accuracy: f.accuracy, exitMargin: margin, cache: &worker.pointee.cache) {
                worker.pointee.answers.append($0)
                return true
            }
            answers[i] = FixAnswer(start: Int32(start), count: Int32(worker.pointee.answers.count - start), worker: k)
        }
    }

    /// Applies a batch of fixes (in log order). Devices are dense indices; the tracker table grows as needed.
    public func process(_ batch: [Fix]) { process(batch, onOneThread: false) }

    /// ``process(_:)``, on the calling thread alone when `onOneThread` (the run's other
    /// threads then stay free, e.g. for a reader parsing ahead: ``CoreSharing``). The events
    /// are the same either way.
    ///
    /// - Parameter devices: the devices of the batch's fixes, each once (in any order), when the
    ///   caller knows them (``LogReader/batchDevices``): the run then learns them from these
    ///   rather than from a pass over the batch on the calling thread. The events are the same.
    /// - Precondition: `devices`, when given, holds every device of the batch's fixes and no
    ///   other (checked in debug builds only: the check is the pass it saves).
    public func process(_ batch: [Fix], onOneThread: Bool, devices: [Int32]? = nil) {
        guard !batch.isEmpty else { return }
        let n = batch.count
        assert(devices.map { Set($0) == Set(batch.map(\.device)) && Set($0).count == $0.count } ?? true,
               "devices must be those of the batch's fixes, each once")
        let maxDevice = devices.map { $0.max() ?? -1 } ?? batch.withUnsafeBufferPointer { b in
            var m: Int32 = -1
            for i in 0..<n { m = max(m, b[i].device) }
            return m
        }
        if Int(maxDevice) >= deviceCount {
            // Each group grown once (to at least twice its capacity), not tracker by tracker:
            // a log's first batch may bring thousands of devices.
            let perGroup = (Int(maxDevice) + 1 - deviceCount) / groupCount + 1
            for g in 0..<groupCount { groups[g].reserveRoom(for: perGroup) }
            for d in deviceCount...Int(maxDevice) { groups[d & (groupCount - 1)].append(DeviceTracker()) }
            deviceCount = Int(maxDevice) + 1
            lastBatch.append(contentsOf: repeatElement(0, count: deviceCount - lastBatch.count))
            quiet.append(contentsOf: repeatElement(0, count: deviceCount - quiet.count))
        }
        batchNumber &+= 1
        batchDevices.removeAll(keepingCapacity: true)
        let number = batchNumber
        var newDevices = 0
        lastBatch.withUnsafeMutableBufferPointer { last in
            /// Device `d` of the batch: listed once, and counted when it is new to the run.
            @inline(__always) func note(_ d: Int32) {
                if last[Int(d)] == number { return }
                if last[Int(d)] == 0 { newDevices &+= 1 }
                last[Int(d)] = number
                batchDevices.append(d)
            }
            if let devices {
                for d in devices { note(d) }
            } else {
                batch.withUnsafeBufferPointer { b in
                    for i in 0..<n { note(b[i].device) }
                }
            }
        }
        devicesWithFixes += newDevices
        fixes += n
        if answers.count < n { answers = [FixAnswer](repeating: FixAnswer(start: 0, count: 0, worker: 0), count: n) }
        for k in 0..<threads {
            // Room for about one classification per fix, so a batch rarely regrows it.
            workers[k].answers.removeAll(keepingCapacity: n / threads + n / (4 * threads) + 64)
        }
        // A batch too small to split goes on this thread alone: handing its one slice and its
        // groups to workers costs more than they gain, and a reader parsing ahead in the
        // background keeps the other cores (docs/evaluation.md#determinism).
        if onOneThread || threads == 1 || n < minimumSlice {
            heldEvents += processOnOneThread(batch)
        } else {
            batchesInSlices += 1
            heldEvents += processInSlices(batch)
        }
    }

    /// Batches evaluated in slices by the workers (tests).
    var batchesInSlices = 0
    /// Blocks of events the workers formatted in the last write (tests).
    var formattedBlocks = 0

    /// One thread (or a batch too small to split): the whole batch sorted spatially and queried,
    /// then the state machines in log order, group by group when the devices are in several.
    /// Returns the number of events the batch added.
    func processOnOneThread(_ batch: [Fix]) -> Int {
        let n = batch.count, ev = evaluator, filter = currentMissFilter(), margin = ev.settings.exitMargin
        batch.withUnsafeBufferPointer { b in
            answers.withUnsafeMutableBufferPointer { a in
                let m = spatial.screenAndSort(b.baseAddress!, n, filter: filter, margin: margin, worker: 0, answers: a.baseAddress!)
                spatial.order.withUnsafeBufferPointer { o in
                    workers.withUnsafeMutableBufferPointer { ws in
                        EvaluationRun.query(ev, b.baseAddress!, o.baseAddress!, 0, m, ws.baseAddress!, 0, a.baseAddress!)
                    }
                }
            }
        }
        let r = workers[0].answers.elements
        var added = 0
        let mask = groupCount &- 1, shift = groupShift
        // Each group's trackers where they are for the batch: made unique once, not moved by
        // the state machines (which change trackers, not the arrays).
        let trackers = UnsafeMutablePointer<UnsafeMutablePointer<DeviceTracker>?>.allocate(capacity: groupCount)
        defer { trackers.deallocate() }
        for g in 0..<groupCount { trackers[g] = groups[g].withUnsafeMutableBufferPointer { $0.baseAddress } }
        batch.withUnsafeBufferPointer { b in
            answers.withUnsafeBufferPointer { a in
                quiet.withUnsafeMutableBufferPointer { q in
                    for i in 0..<n {
                        let x = a[i], device = Int(b[i].device)
                        if x.count == 0 && q[device] != 0 { continue }
                        // The device is in its group (trackers were added for every device of the batch).
                        let t = trackers[device & mask].unsafelyUnwrapped + (device &>> shift)
                        if Evaluator.passQuietly(candidates: x.count, state: &t.pointee) {
                            q[device] = 1
                            continue
                        }
                        let f = b[i]
                        let before = t.pointee.events.count
                        ev.apply(device: f.device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy, offset: f.offset,
                                 candidates: UnsafeBufferPointer(rebasing: r[Int(x.start)..<Int(x.start + x.count)]),
                                 state: &t.pointee)
                        added &+= t.pointee.events.count &- before
                        if Evaluator.isQuiet(t.pointee) != (q[device] != 0) { q[device] ^= 1 }
                    }
                }
            }
        }
        return added
    }

    /// Several threads: slices (sorted, queried and grouped by whichever worker takes them), then
    /// groups. Returns the number of events the batch added.
    func processInSlices(_ batch: [Fix]) -> Int {
        let n = batch.count, ev = evaluator, threads = threads, filter = currentMissFilter(), margin = ev.settings.exitMargin
        let sliceCount = max(1, min(threads, n / minimumSlice))
        let sliceLength = (n + sliceCount - 1) / sliceCount
        while slices.count < sliceCount { slices.append(BatchSlice()) }
        while claims.count < sliceCount { claims.append(SliceClaim()) }
        for s in 0..<sliceCount { claims[s].reset() }
        let claims = claims
        let groupCount = groupCount, shift = groupShift

        // Queries, slice by slice, each in its own spatial order: a worker sorts a slice and
        // queries it from the front; with no slice left to sort, it queries the others' from
        // their backs (SliceClaim), so no worker waits while a slice has fixes left.
        let nextSlice = GroupCounter()
        let step = Self.claimStep
        batch.withUnsafeBufferPointer { b in
            answers.withUnsafeMutableBufferPointer { a in
                workers.withUnsafeMutableBufferPointer { ws in
                    slices.withUnsafeMutableBufferPointer { sl in
                        let fixes = UnsafeShared(base: UnsafeMutablePointer(mutating: b.baseAddress!))
                        let out = UnsafeShared(base: a.baseAddress!), workerBase = UnsafeShared(base: ws.baseAddress!)
                        let sliceBase = UnsafeShared(base: sl.baseAddress!)
                        WorkTeam.shared.concurrentPerform(iterations: threads) { k in
                            while true {
                                let s = nextSlice.take()
                                guard s < sliceCount else { break }
                                let lo = s * sliceLength, hi = min(n, lo + sliceLength)
                                guard lo < hi else { continue }
                                let slice = sliceBase.base + s
                                let m = slice.pointee.spatial.screenAndSort(fixes.base + lo, hi - lo, filter: filter, margin: margin,
                                                                            worker: Int32(k), answers: out.base + lo)
                                // The order's storage stays put until the next batch sorts this slice.
                                let order = slice.pointee.spatial.order.withUnsafeBufferPointer { $0.baseAddress }
                                claims[s].publish(order, count: m)
                                slice.pointee.group(fixes.base, lo, hi, groups: groupCount)
                                while let r = claims[s].front(step) {
                                    EvaluationRun.query(ev, fixes.base + lo, order!, r.lowerBound, r.upperBound,
                                                        workerBase.base + k, Int32(k), out.base + lo)
                                }
                            }
                            // Every slice is taken: help those still being queried, from their backs.
                            var helped = true
                            while helped {
                                helped = false
                                for s in 0..<sliceCount {
                                    let lo = s * sliceLength
                                    while let r = claims[s].back(step) {
                                        helped = true
                                        EvaluationRun.query(ev, fixes.base + lo, claims[s].order!, r.lowerBound, r.upperBound,
                                                            workerBase.base + k, Int32(k), out.base + lo)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }

        // State machines: each group over its positions, slice after slice (log order).
        // Each worker's answers are read by every worker now that the queries are done (the
        // buffers are neither written nor grown until the next batch, so their storage stays put).
        let results = workers.map { w in SharedAnswers(base: w.answers.elements.baseAddress) }
        let nextGroup = GroupCounter()
        // Events added, per group (each written by the worker that takes the group).
        let addedByGroup = UnsafeMutablePointer<Int>.allocate(capacity: groupCount)
        addedByGroup.initialize(repeating: 0, count: groupCount)
        defer { addedByGroup.deallocate() }
        let addedShared = UnsafeShared(base: addedByGroup)
        // Not moved while the groups are evaluated (nothing grows it until the next batch).
        let quietBase = quiet.withUnsafeMutableBufferPointer { $0.baseAddress! }
        groups.withUnsafeMutableBufferPointer { gs in
            slices.withUnsafeBufferPointer { sl in
                batch.withUnsafeBufferPointer { b in
                    answers.withUnsafeBufferPointer { a in
                        let shared = UnsafeShared(base: gs.baseAddress!)
                        let sliceBase = UnsafeShared(base: UnsafeMutablePointer(mutating: sl.baseAddress!))
                        let fixes = UnsafeShared(base: UnsafeMutablePointer(mutating: b.baseAddress!))
                        let where_ = UnsafeShared(base: UnsafeMutablePointer(mutating: a.baseAddress!))
                        // Each worker writes the bytes of its group's devices only.
                        let q = UnsafeShared(base: quietBase)
                        WorkTeam.shared.concurrentPerform(iterations: threads) { _ in
                            while true {
                                let g = nextGroup.take()
                                guard g < groupCount else { break }
                                (shared.base + g).pointee.withUnsafeMutableBufferPointer { t in
                                    var added = 0
                                    defer { addedShared.base[g] = added }
                                    for s in 0..<sliceCount where s * sliceLength < n {
                                        let slice = sliceBase.base + s
                                        slice.pointee.positions.withUnsafeBufferPointer { p in
                                            slice.pointee.offsets.withUnsafeBufferPointer { o in
                                                for j in Int(o[g])..<Int(o[g + 1]) {
                                                    let i = Int(p[j])
                                                    let x = where_.base[i], device = Int(fixes.base[i].device), d = device &>> shift
                                                    if x.count == 0 && q.base[device] != 0 { continue }
                                                    if Evaluator.passQuietly(candidates: x.count, state: &t[d]) {
                                                        q.base[device] = 1
                                                        continue
                                                    }
                                                    let f = fixes.base[i]
                                                    let before = t[d].events.count
                                                    ev.apply(device: f.device, time: f.time, lat: f.lat, lon: f.lon, accuracy: f.accuracy, offset: f.offset,
                                                             candidates: UnsafeBufferPointer(start: results[Int(x.worker)].base.map { $0 + Int(x.start) }, count: Int(x.count)),
                                                             state: &t[d])
                                                    added &+= t[d].events.count &- before
                                                    // Written only when it changes: the bytes of other groups' devices
                                                    // share its cache line.
                                                    if Evaluator.isQuiet(t[d]) != (q.base[device] != 0) { q.base[device] ^= 1 }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return UnsafeBufferPointer(start: addedByGroup, count: groupCount).reduce(0, +)
    }

    /// Events of every device held by the run, devices in order of first appearance.
    /// - Complexity: O(devices + events).
    public var events: [EvaluationEvent] { (0..<deviceCount).flatMap { tracker($0).events } }

    /// Moves the events held for the devices of the last batch out of the run: devices
    /// in order of first appearance, each device's events in time order, events of one
    /// fix by fence identifier then type. Called after every `process`, it returns each
    /// batch's events as they happen (the streaming order, docs/evaluation.md) and keeps
    /// the run's memory flat; `events`, `eventCounts` and `write` then see only what was
    /// not taken.
    /// - Complexity: O(k log k + e) for k devices in the batch and e events taken.
    public func takeEvents() -> [EvaluationEvent] {
        defer { heldEvents = 0 }
        var out: [EvaluationEvent] = []
        batchDevices.sort()
        for d in batchDevices {
            let g = Int(d) & (groupCount - 1), k = Int(d) &>> groupShift
            if groups[g][k].events.isEmpty { continue }
            out.append(contentsOf: groups[g][k].events)
            groups[g][k].events.removeAll(keepingCapacity: true)
        }
        return out
    }

    /// Event counts by type.
    public var eventCounts: [EventType: Int] {
        var c: [EventType: Int] = [:]
        for g in groups { for t in g { for e in t.events { c[e.type, default: 0] += 1 } } }
        return c
    }

    /// Writes every event in docs/evaluation.md order (with several threads and nothing
    /// spilled, formatted by the workers; the bytes are the same).
    /// With `spill`, the events it holds come first for each device, merged in order
    /// (docs/evaluation.md#memory); the held events are taken out of the run, and the merge
    /// reads the runs through buffers of `mergeBytes` in all (at least 256 events each). Returns the
    /// event counts by type of everything written.
    /// - Throws: `GeofenceError.output` from the sink, `.input` when a spill file cannot be read.
    /// - Complexity: O(events + devices × spill runs).
    @discardableResult
    public func write(to sink: inout some TextSink, format: EventWriter.Format, deviceName: (Int32) -> String,
                      spill: EventSpill? = nil, mergeBytes: Int = 8 << 20) throws(GeofenceError) -> [EventType: Int] {
        try write(to: &sink, writer: EventWriter(format: format, compiled: compiled), deviceName: deviceName, spill: spill, mergeBytes: mergeBytes)
    }

    /// Writes every event as `write(to:format:deviceName:spill:mergeBytes:)` does, with a
    /// writer set up by the caller (optional fields, fence properties), its header and
    /// footer included.
    /// - Throws: as `write(to:format:deviceName:spill:mergeBytes:)`.
    /// - Complexity: O(events + devices × spill runs).
    @discardableResult
    public func write(to sink: inout some TextSink, writer: EventWriter, deviceName: (Int32) -> String,
                      spill: EventSpill? = nil, mergeBytes: Int = 8 << 20) throws(GeofenceError) -> [EventType: Int] {
        var out: [UInt8] = []
        out.append(text: writer.header ?? "")
        var counts = [0, 0, 0]
        var currentDevice: Int32 = -1
        var name = ""
        func flush() throws(GeofenceError) {
            try sink.write(String(decoding: out, as: UTF8.self))
            out.removeAll(keepingCapacity: true)
        }
        func emit(_ e: EvaluationEvent) throws(GeofenceError) {
            if e.device != currentDevice { currentDevice = e.device; name = deviceName(e.device) }
            counts[Int(e.type.rawValue)] += 1
            writer.line(e, device: name, into: &out)
            if out.count >= 1 << 20 { try flush() }
        }
        if let spill, !spill.paths.isEmpty {
            // The events still held become the last run: memory stays within the budget.
            try self.spill(into: spill)
            let perRun = max(256, mergeBytes / EventSpill.eventBytes / max(1, spill.paths.count))
            try spill.merge(held: [], deviceCount: deviceCount, bufferEvents: perRun, emit)
        } else if threads > 1 {
            // Formatted by the workers, written in order in writes of about 1 MiB.
            try formatHeldEvents(writer, deviceName: deviceName, counts: &counts, into: &out) { (out) throws(GeofenceError) in
                if out.count >= 1 << 20 {
                    try sink.write(String(decoding: out, as: UTF8.self))
                    out.removeAll(keepingCapacity: true)
                }
            }
        } else {
            for d in 0..<deviceCount {
                let t = tracker(d)
                for e in t.events { try emit(e) }
            }
        }
        out.append(text: writer.footer ?? "")
        if !out.isEmpty { try flush() }
        var byType: [EventType: Int] = [:]
        for t in EventType.allCases where counts[Int(t.rawValue)] > 0 { byType[t] = counts[Int(t.rawValue)] }
        return byType
    }
}

// MARK: Continuing across runs

extension EvaluationRun {
    /// Moves every held event out of the run, devices in index order, each device's in
    /// time order (one sorted run of the output order, for spilling to disk).
    /// - Complexity: O(devices + events).
    public func takeAllEvents() -> [EvaluationEvent] {
        defer { heldEvents = 0 }
        var out: [EvaluationEvent] = []
        for d in 0..<deviceCount {
            let g = d & (groupCount - 1), k = d &>> groupShift
            if groups[g][k].events.isEmpty { continue }
            out.append(contentsOf: groups[g][k].events)
            groups[g][k].events.removeAll()
        }
        return out
    }

    /// Moves every held event to `spill` as one sorted run (device by device, without
    /// gathering them first), freeing their memory.
    /// - Throws: `GeofenceError.output` when the run file cannot be written.
    /// - Complexity: O(devices + events).
    public func spill(into spill: EventSpill) throws(GeofenceError) {
        guard heldEvents > 0 else { return }
        let run = try spill.begin()
        for d in 0..<deviceCount {
            let g = d & (groupCount - 1), k = d &>> groupShift
            if groups[g][k].events.isEmpty { continue }
            try run.append(groups[g][k].events[...])
            groups[g][k].events = []
        }
        heldEvents = 0
        try run.finish()
    }

    /// The run's state for a continuation: every device (names and last fixes from
    /// `devices`, the table the readers filled), its fence states, timers and one-shots.
    /// - Complexity: O(devices + entries + fences).
    public func snapshot(devices: DeviceTable) -> EvaluationState {
        let records = compiled.fenceRecords()
        var out: [EvaluationState.Device] = []
        out.reserveCapacity(devices.count)
        for d in 0..<devices.count {
            let last = devices.lastFix(Int32(d))
            var device = EvaluationState.Device(name: devices.name(Int32(d)), lastTime: last.time, lastLat: last.lat,
                                                lastLon: last.lon, started: false, entries: [], consumed: [])
            if d < deviceCount {
                let t = tracker(d)
                device.started = t.started
                device.entries = t.entries.map { .init(fence: $0.fence, since: $0.since, dwell: $0.dwell, inside: $0.inside) }
                device.consumed = t.consumed
            }
            out.append(device)
        }
        return EvaluationState(exitMargin: evaluator.settings.exitMargin, defaultDwell: evaluator.settings.dwell,
                               fences: records, devices: out)
    }

    /// Continues from `state`: the devices are added to `devices` (which must be empty) in
    /// their order, with their last fixes, and their fence states mapped through `changes`
    /// (states of removed or changed fences dropped; new and changed fences start unknown).
    /// - Precondition: the run has processed nothing and `devices` is empty; `changes` was
    ///   computed from `state.fences` to this run's fences.
    /// - Complexity: O(devices + entries).
    public func restore(_ state: EvaluationState, changes: FenceChanges, devices: DeviceTable) {
        precondition(deviceCount == 0 && devices.count == 0, "restore before any fix")
        let restarting = !changes.isIdentity
        if restarting { evaluator.restarts = changes.restarts }
        for (d, dev) in state.devices.enumerated() {
            let index = devices.restore(name: dev.name, lastTime: dev.lastTime, lastLat: dev.lastLat, lastLon: dev.lastLon)
            precondition(Int(index) == d, "device names in a state are distinct")
            var t = DeviceTracker()
            t.started = dev.started
            t.fresh = restarting && dev.started
            for e in dev.entries {
                let slot = changes.slotMap[Int(e.fence)]
                if slot < 0 { continue }
                t.appendEntry(.init(fence: slot, seen: 0, since: e.since, dwell: e.dwell, inside: e.inside))
            }
            t.consumed = dev.consumed.compactMap { changes.slotMap[Int($0)] >= 0 ? changes.slotMap[Int($0)] : nil }
            groups[d & (groupCount - 1)].append(t)
        }
        deviceCount = state.devices.count
        lastBatch = [UInt32](repeating: 0, count: deviceCount)
        quiet = [UInt8](repeating: 0, count: deviceCount)
    }
}
