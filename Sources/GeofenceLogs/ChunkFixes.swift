/// A parse worker's fixes and the line of each, in memory the worker writes straight into: the
/// CSV row routines put each fix where it stays (docs/logs.md#parallel-reading), rather than in
/// a staging buffer copied onwards 32 rows at a time (a burst of writes to lines not yet in the
/// core's cache).
///
/// Plain storage, owned by the ``ChunkResult`` that holds it (``deallocate()`` frees it), lent
/// to the worker's ``ReadCore`` while the chunk is parsed. Copies share the storage.
struct ChunkFixes {
    private(set) var fixes: UnsafeMutablePointer<Fix>? = nil
    private(set) var lines: UnsafeMutablePointer<Int>? = nil
    /// Fixes written (and their lines).
    var count = 0
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

    /// The fixes written.
    var written: UnsafeMutableBufferPointer<Fix> { UnsafeMutableBufferPointer(start: fixes, count: count) }

    /// The lines of the fixes written.
    var writtenLines: UnsafeBufferPointer<Int> { UnsafeBufferPointer(start: lines, count: count) }

    /// Frees the storage (the fixes are plain values: nothing to deinitialize).
    mutating func deallocate() {
        fixes?.deallocate()
        lines?.deallocate()
        fixes = nil
        lines = nil
        count = 0
        capacity = 0
    }
}
