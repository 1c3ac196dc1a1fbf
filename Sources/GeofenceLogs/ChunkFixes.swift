/// A parse worker's fixes and the line of each (written, or for the rows of a run range worked
/// out from the range's first line, ``line(_:)``), in memory the worker writes straight into:
/// the CSV row routines put each fix where it stays (docs/logs.md#parallel-reading), rather than
/// in a staging buffer copied onwards 32 rows at a time (a burst of writes to lines not yet in
/// the core's cache).
///
/// Plain storage, owned by the ``ChunkResult`` that holds it (``deallocate()`` frees it), lent
/// to the worker's ``ReadCore`` while the chunk is parsed. Copies share the storage.
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
    private(set) var capacity = 0

    /// Room for at least `n` fixes in all (those written kept); more than asked when it grows
    /// (twice `n`, or half as many again as before), so that chunks a little larger than the
    /// last do not reallocate round after round, each time into fresh pages.
    mutating func reserve(_ n: Int) {
        guard n > capacity else { return }
        let grown = Swift.max(2 * n, capacity + capacity / 2)
        let f = UnsafeMutablePointer<Fix>.allocate(capacity: grown), l = UnsafeMutablePointer<Int>.allocate(capacity: grown)
        if let fixes, let lines {
            f.moveInitialize(from: fixes, count: count)
            l.moveInitialize(from: lines, count: count)
            fixes.deallocate()
            lines.deallocate()
        }
        fixes = f
        lines = l
        capacity = grown
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
    /// them, then adds them to ``count``. Valid until the next call that may grow the storage.
    mutating func room(_ n: Int) -> (fixes: UnsafeMutablePointer<Fix>, lines: UnsafeMutablePointer<Int>) {
        reserve(count + n)
        return (fixes.unsafelyUnwrapped + count, lines.unsafelyUnwrapped + count)
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

    /// Frees the storage (the fixes are plain values: nothing to deinitialize).
    mutating func deallocate() {
        fixes?.deallocate()
        lines?.deallocate()
        fixes = nil
        lines = nil
        count = 0
        capacity = 0
        runRanges = []
        runLines = []
    }
}
