import CMapGuard
import Glibc

/// Bytes of a file mapped read-only where the kernel keeps them (its page cache: no copy, no
/// fresh memory to clear), for the large sections of a compiled fence file
/// (docs/compiled-fences.md#memory).
///
/// The file shrinking while it is mapped would make a read of the lost pages kill the process
/// (SIGBUS). The mapping is guarded (`CMapGuard`): such a page reads as zeros instead, and
/// ``checkAll()``, which every output's commit and the command's end call, reports the file as
/// changed, so that no answer computed from those zeros is kept.
public final class MappedRegion: @unchecked Sendable {
    /// The first byte of the range asked for.
    public let base: UnsafeRawPointer
    /// Its length in bytes.
    public let count: Int
    /// The file, for the error.
    public let path: String
    private let start: UnsafeMutableRawPointer
    private let length: Int
    private let slot: Int32

    /// Maps `count` bytes of `fd` from `offset`, or nil when the mapping or its guard cannot be
    /// made (the caller then reads the bytes instead). With `populate`, every page is set up
    /// now (`MAP_POPULATE`); without, each page when it is first read (a caller that reads
    /// only some of them sets up only those).
    public init?(fd: Int32, offset: Int, count: Int, path: String, populate: Bool = true) {
        guard count > 0, offset >= 0 else { return nil }
        let page = Self.page
        let first = offset / page * page, skip = offset - first
        let length = skip + count
        guard let m = mmap(nil, length, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, off_t(first)), m != MAP_FAILED else { return nil }
        let slot = geofence_guard_add(m, length)
        guard slot >= 0 else {
            munmap(m, length)
            return nil
        }
        self.start = m
        self.dropped = Int(bitPattern: m)
        self.length = length
        self.slot = Int32(slot)
        self.base = UnsafeRawPointer(m + skip)
        self.count = count
        self.path = path
        Self.live.add(self)
    }

    deinit {
        Self.live.remove(self)
        geofence_guard_remove(slot)
        munmap(start, length)
    }

    /// Drops from the process the whole pages that hold only bytes before `base + offset` and
    /// were not dropped by an earlier call (they stay in the page cache; a later read sets them
    /// up again). For one thread at a time.
    public func drop(below offset: Int) {
        let page = Self.page
        let to = (Int(bitPattern: base) + Swift.min(offset, count)) / page * page
        if to > dropped { _ = madvise(UnsafeMutableRawPointer(bitPattern: dropped), to - dropped, MADV_DONTNEED) }
        dropped = Swift.max(dropped, to)
    }
    /// The address up to which ``drop(below:)`` dropped the pages.
    private var dropped: Int
    /// The system's page size (4 KiB at least).
    private static let page = Swift.max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// Drops from the process every page of the mapping (the last, partly past the range,
    /// included), whatever was dropped before: the kernel may have set some up again meanwhile,
    /// as it sets up a page with those around it and two mappings of one file side by side
    /// become one.
    public func dropAll() {
        let page = Self.page
        let end = (Int(bitPattern: start) + length + page - 1) / page * page
        _ = madvise(start, end - Int(bitPattern: start), MADV_DONTNEED)
        dropped = end
    }

    /// Whether a page of the range was gone when it was read (the file shrank): zeros were read
    /// there, not the file's bytes.
    public var shrank: Bool { geofence_guard_hit(slot) != 0 }

    /// Throws for the first region alive now whose file shrank while it was in use.
    /// - Throws: `GeofenceError.input` (`.readFailed`, exit code 74) naming the file.
    public static func checkAll() throws(GeofenceError) {
        if let path = live.firstShrunk() {
            throw .input(InputError(SourceLocation(file: path), .readFailed(errno: EIO),
                                    "the file shrank while it was in use: run again once it no longer changes"))
        }
    }

    /// The regions alive now (weakly: a region leaves in its `deinit`).
    private static let live = Registry()

    private final class Registry: @unchecked Sendable {
        private var lock = pthread_mutex_t()
        private var regions: [ObjectIdentifier: (slot: Int32, path: String)] = [:]

        init() { pthread_mutex_init(&lock, nil) }

        func add(_ r: MappedRegion) {
            pthread_mutex_lock(&lock)
            regions[ObjectIdentifier(r)] = (r.slot, r.path)
            pthread_mutex_unlock(&lock)
        }

        func remove(_ r: MappedRegion) {
            pthread_mutex_lock(&lock)
            regions[ObjectIdentifier(r)] = nil
            pthread_mutex_unlock(&lock)
        }

        func firstShrunk() -> String? {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            return regions.values.first { geofence_guard_hit($0.slot) != 0 }?.path
        }
    }
}
