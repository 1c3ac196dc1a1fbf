import CMapGuard
import Glibc
import Synchronization

/// A regular file mapped read-only, whole, for ``ByteSource``: the parsers read it where the
/// kernel keeps it, without a copy into a buffer (docs/logs.md#files-are-mapped).
///
/// - At least one page of zeros follows the file's last byte, so a word loaded at the end of
///   the file stays inside the mapping.
/// - The pages the reader has passed are dropped from the process (``release(below:)``):
///   the resident memory stays about what a read buffer would hold.
/// - The file shrinking while it is mapped would make a read of the lost pages kill the
///   process (SIGBUS). The mapping is guarded (`CMapGuard`): such a page reads as zeros
///   instead, and ``shrank`` tells the reader, which reports the file as changed.
final class MappedFile: @unchecked Sendable {
    /// The file's first byte.
    let base: UnsafeMutablePointer<UInt8>
    /// The file's size when it was mapped: what is read, even if the file grows meanwhile.
    let size: Int
    /// Bytes reserved from `base`: the file rounded up to pages, and one page more.
    private let length: Int
    private let page: Int
    /// The guard's slot for the file's pages.
    private let slot: Int32
    /// Bytes from `base` already dropped from the process (``release(below:)`` on the reader's
    /// thread, ``drop(below:step:)`` on a parse worker's).
    private let dropped = Atomic<Int>(0)
    var released: Int { dropped.load(ordering: .relaxed) }

    /// Dropping pages is worth a system call once this many bytes have been passed.
    static let releaseStep = 16 << 20
    /// A parse worker drops pages once this many bytes have been passed since the last drop
    /// (``drop(below:step:)``): each drop flushes the page translations the process's other
    /// threads hold, which round by round (about 1.5 MB) made the scattered log × 10k polygons
    /// 1.064 of the time at 2 threads; every 8 MiB, 1.011 (16 runs in turn).
    static let dropStep = 8 << 20

    /// Maps `size` bytes of `fd`, or nil when the mapping or its guard cannot be made (the
    /// caller then reads the file).
    init?(fd: Int32, size: Int) {
        guard size > 0 else { return nil }
        let page = Swift.max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        let length = (size + page - 1) / page * page + page
        // Zeros first, then the file over all but the last page (MAP_FIXED replaces them).
        guard let zeros = mmap(nil, length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), zeros != MAP_FAILED else { return nil }
        guard let file = mmap(zeros, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0), file != MAP_FAILED else {
            munmap(zeros, length)
            return nil
        }
        let slot = geofence_guard_add(file, size)
        guard slot >= 0 else {
            munmap(zeros, length)
            return nil
        }
        _ = madvise(file, size, MADV_SEQUENTIAL)
        self.base = file.assumingMemoryBound(to: UInt8.self)
        self.size = size
        self.length = length
        self.page = page
        self.slot = Int32(slot)
    }

    deinit {
        geofence_guard_remove(slot)
        munmap(base, length)
    }

    /// Maps the file's pages in `p ..< p + count` (addresses in a mapping of the file) now rather
    /// than at their first read, in one call rather than one page fault per 16 pages
    /// (`MADV_POPULATE_READ`, Linux 5.14 and later; nothing on older kernels). A page past the
    /// end of a file that shrank is not read: the call fails, which is ignored.
    static func populate(_ p: UnsafeMutableRawPointer, _ count: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = Int(bitPattern: p) / page * page
        let end = Int(bitPattern: p) + count
        guard end > start, let first = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(first, end - start, MADV_POPULATE_READ)
    }

    /// Whether a page of the file was gone when it was read (the file shrank): the bytes read
    /// there were zeros, not the file's.
    var shrank: Bool { geofence_guard_hit(slot) != 0 }

    /// Drops the whole pages before `p` (an address in the file) from the process, once
    /// ``releaseStep`` bytes have been passed since the last time. Reading them again is
    /// correct (they come back from the page cache), only slower.
    func release(below p: UnsafePointer<UInt8>) {
        drop(below: p, step: Self.releaseStep)
    }

    /// Drops the whole pages before `p` (an address in the file) that are still in the process,
    /// now, from any thread, if at least `step` bytes of them are: a parse worker with nothing
    /// left to parse drops the pages the reader has passed (docs/logs.md#files-are-mapped), so
    /// that they are not all unmapped at once when the file is closed (11.8 MB took about 0.5
    /// ms on the reader's thread).
    func drop(below p: UnsafePointer<UInt8>, step: Int = 0) {
        let end = Swift.min(UnsafePointer(base).distance(to: p), size) / page * page
        var from = dropped.load(ordering: .relaxed)
        while end > from && end - from >= step {
            let (exchanged, original) = dropped.compareExchange(expected: from, desired: end, ordering: .relaxed)
            if exchanged {
                _ = madvise(UnsafeMutableRawPointer(base + from), end - from, MADV_DONTNEED)
                return
            }
            from = original
        }
    }
}
