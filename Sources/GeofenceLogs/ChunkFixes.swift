/// A parse worker's fixes and the line of each (written, or for the rows of a run range worked
/// out from the range's first line, ``line(_:)``), in memory the worker writes straight into:
/// the CSV row routines put each fix where it stays (docs/logs.md#parallel-reading), rather than
/// in a staging buffer copied onwards 32 rows at a time (a burst of writes to lines not yet in
/// the core's cache).
///
/// The fixes go to the chunk's own storage, or, placed (``start(placedAt:rows:)``), straight
/// into the batch, at the room the reader made there for the chunk's lines; the join then moves
/// them only past a fix dropped before them. Plain storage, owned by the ``ChunkResult`` that
/// holds it (``deallocate()`` frees it), lent to the worker's ``ReadCore`` while the chunk is
/// parsed. Copies share the storage.
struct ChunkFixes {
    private(set) var fixes: UnsafeMutablePointer<Fix>? = nil
    private(set) var lines: UnsafeMutablePointer<Int>? = nil
    /// Fixes written (and their lines).
    var count = 0
    /// Where the CSV run routine wrote fixes (`geofence_run_rows`), as ranges of indices:
    /// each fix of a range has the device of the fix before it (already settled,
    /// ``ParallelReader/markRuns(_:)``) and follows it in time order
    /// (``DeviceState/follows(_:_:_:after:_:_:)``), so that marking the runs passes over them.
    /// In order, none empty, none touching the next. Their fixes' lines are not written: a
    /// range's rows are consecutive lines, from the line in ``runLines`` (``line(_:)``).
    var runRanges: [Range<Int32>] = []
    /// Per run range, the line of its first fix.
    var runLines: [Int] = []
    /// Room at ``fixes``: the own storage's, or a placed chunk's rows.
    private(set) var capacity = 0
    /// Room at ``lines``.
    private var lineCapacity = 0
    /// The chunk's own storage for fixes, kept while its fixes are placed in a batch.
    private var own: UnsafeMutablePointer<Fix>? = nil
    private var ownCapacity = 0
    /// Where the fixes are placed in the batch, and the most the chunk can make (its lines):
    /// nil when they go to the own storage.
    private(set) var placement: (at: UnsafeMutablePointer<Fix>, rows: Int)? = nil
    /// A placed chunk made more fixes than its rows, which sent it to the own storage: its
    /// line feeds were counted before the file changed under them.
    private(set) var overran = false
    /// Where ``room(_:)`` put a placed chunk's next fixes when they might not all fit in its
    /// rows (the last few rows of the chunk, staged ahead): ``commit(_:)`` moves them.
    private var spill: UnsafeMutablePointer<Fix>? = nil
    private var spillCapacity = 0
    private var spilled = false

    /// Empties it for a chunk of `bytes` bytes, its fixes in the own storage: room for as many
    /// as the chunk can hold at the fewest bytes a row (``ParallelReader/minimumRowBytes``),
    /// where pages never written are never touched.
    mutating func start(bytes: Int) {
        reset()
        if placement != nil {
            placement = nil
            fixes = own
            capacity = ownCapacity
        }
        reserve(bytes / ParallelReader.minimumRowBytes + 1)
    }

    /// Empties it for a chunk of `rows` lines at most, its fixes written from `at` (the room
    /// the reader made in the batch for them): none is ever written past them, the next
    /// chunk's.
    mutating func start(placedAt at: UnsafeMutablePointer<Fix>, rows: Int) {
        reset()
        if placement == nil {
            own = fixes
            ownCapacity = capacity
        }
        placement = (at, rows)
        fixes = at
        capacity = rows
        reserveLines(rows)
    }

    private mutating func reset() {
        count = 0
        overran = false
        spilled = false
        runRanges.removeAll(keepingCapacity: true)
        runLines.removeAll(keepingCapacity: true)
    }

    /// Room for at least `n` fixes in all (those written kept); more than asked when it grows
    /// (twice `n`, or half as many again as before), so that chunks a little larger than the
    /// last do not reallocate round after round, each time into fresh pages. A placed chunk
    /// that needs more than its rows leaves them for the own storage (its fixes moved), and
    /// has ``overran``.
    mutating func reserve(_ n: Int) {
        reserveLines(n)
        guard n > capacity else { return }
        let grown = Swift.max(2 * n, capacity + capacity / 2)
        if let placed = placement {
            overran = true
            placement = nil
            fixes = own
            capacity = ownCapacity
            if n <= capacity {
                if count > 0 { fixes.unsafelyUnwrapped.moveInitialize(from: placed.at, count: count) }
                return
            }
            let f = UnsafeMutablePointer<Fix>.allocate(capacity: grown)
            if count > 0 { f.moveInitialize(from: placed.at, count: count) }
            own?.deallocate()
            own = nil
            ownCapacity = 0
            fixes = f
            capacity = grown
            return
        }
        let f = UnsafeMutablePointer<Fix>.allocate(capacity: grown)
        if let fixes {
            f.moveInitialize(from: fixes, count: count)
            fixes.deallocate()
        }
        fixes = f
        capacity = grown
    }

    /// Room for at least `n` lines (those written kept).
    private mutating func reserveLines(_ n: Int) {
        guard n > lineCapacity else { return }
        let grown = Swift.max(2 * n, lineCapacity + lineCapacity / 2)
        let l = UnsafeMutablePointer<Int>.allocate(capacity: grown)
        if let lines {
            l.moveInitialize(from: lines, count: count)
            lines.deallocate()
        }
        lines = l
        lineCapacity = grown
    }

    /// Appends one fix with its line.
    @inline(__always)
    mutating func append(_ fix: Fix, line: Int) {
        if count == capacity { reserve(count + 1) }
        (fixes.unsafelyUnwrapped + count).initialize(to: fix)
        (lines.unsafelyUnwrapped + count).initialize(to: line)
        count &+= 1
    }

    /// Where the next `n` fixes and their lines go (room made for them): the caller writes
    /// some, then counts them with ``commit(_:)`` (before any other call). Valid until the next
    /// call that may grow the storage. A placed chunk's fixes that might not fit in its rows
    /// go to a spill buffer first (``commit(_:)`` moves them).
    mutating func room(_ n: Int) -> (fixes: UnsafeMutablePointer<Fix>, lines: UnsafeMutablePointer<Int>) {
        if let placed = placement {
            reserveLines(count + n)
            if count + n <= placed.rows {
                spilled = false
                return (fixes.unsafelyUnwrapped + count, lines.unsafelyUnwrapped + count)
            }
            return (spillRoom(n), lines.unsafelyUnwrapped + count)
        }
        reserve(count + n)
        return (fixes.unsafelyUnwrapped + count, lines.unsafelyUnwrapped + count)
    }

    /// The spill buffer, with room for `n` fixes.
    private mutating func spillRoom(_ n: Int) -> UnsafeMutablePointer<Fix> {
        if n > spillCapacity {
            spill?.deallocate()
            spillCapacity = Swift.max(n, 64)
            spill = .allocate(capacity: spillCapacity)
        }
        spilled = true
        return spill.unsafelyUnwrapped
    }

    /// Fixes a placed chunk has room for in its rows (no limit for one in its own storage).
    var roomLeft: Int { placement.map { $0.rows - count } ?? Int.max }

    /// Counts the first `k` fixes written at the last ``room(_:)``.
    @inline(__always)
    mutating func commit(_ k: Int) {
        if spilled { commitSpilled(k) } else { count &+= k }
    }

    /// ``commit(_:)`` of fixes in the spill buffer: moved to the chunk's rows, or, past them,
    /// with the chunk's fixes to the own storage (``overran``).
    @inline(never)
    private mutating func commitSpilled(_ k: Int) {
        spilled = false
        guard k > 0 else { return }
        if let placed = placement, count + k <= placed.rows {
            (placed.at + count).initialize(from: spill.unsafelyUnwrapped, count: k)
        } else {
            reserve(count + k)
            (fixes.unsafelyUnwrapped + count).initialize(from: spill.unsafelyUnwrapped, count: k)
        }
        count += k
    }

    /// The last fix written (one must be), as a device's last fix.
    var last: DeviceState.LastFix {
        let f = fixes.unsafelyUnwrapped[count - 1]
        return DeviceState.LastFix(time: f.time, lat: f.lat, lon: f.lon, line: line(count - 1), file: 0)
    }

    /// Notes that the fixes `from..<count` were written by the run routine (``runRanges``),
    /// the first of them at line `line` and each of the others at the next line (their lines
    /// not written), joining the range before when it ends at `from` and its lines go on there.
    mutating func noteRun(from: Int, line: Int) {
        assert(from > 0 && from < count, "a run's range follows a fix")
        let range = Int32(truncatingIfNeeded: from)..<Int32(truncatingIfNeeded: count)
        if let last = runRanges.last, last.upperBound == range.lowerBound,
           runLines[runLines.count - 1] + last.count == line {
            runRanges[runRanges.count - 1] = last.lowerBound..<range.upperBound
        } else {
            runRanges.append(range)
            runLines.append(line)
        }
    }

    /// The line of fix `k` (one written): its own, or from its run range's first line.
    @inline(__always)
    func line(_ k: Int) -> Int {
        // (A log whose rows seldom repeat a device has no ranges: its lines are all written.)
        guard let first = runRanges.first, Int(first.lowerBound) <= k else { return lines.unsafelyUnwrapped[k] }
        return rangeLine(k)
    }

    /// ``line(_:)`` where ranges may hold fix `k`.
    private func rangeLine(_ k: Int) -> Int {
        // The last range that starts at or before k.
        var lo = 0, hi = runRanges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(runRanges[mid].lowerBound) <= k { lo = mid + 1 } else { hi = mid }
        }
        if lo > 0, runRanges[lo - 1].contains(Int32(truncatingIfNeeded: k)) {
            return runLines[lo - 1] + (k - Int(runRanges[lo - 1].lowerBound))
        }
        return lines.unsafelyUnwrapped[k]
    }

    /// The fixes written.
    var written: UnsafeMutableBufferPointer<Fix> { UnsafeMutableBufferPointer(start: fixes, count: count) }

    /// Frees the storage (the fixes are plain values: nothing to deinitialize); a batch the
    /// fixes were placed in is the caller's.
    mutating func deallocate() {
        if placement == nil { fixes?.deallocate() } else { own?.deallocate() }
        lines?.deallocate()
        spill?.deallocate()
        spill = nil
        spillCapacity = 0
        fixes = nil
        lines = nil
        own = nil
        placement = nil
        count = 0
        capacity = 0
        lineCapacity = 0
        ownCapacity = 0
        runRanges = []
        runLines = []
    }
}
