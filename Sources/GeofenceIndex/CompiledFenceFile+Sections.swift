import Foundation
import GeofenceBase
import Synchronization

#if _endian(big)
#error("compiled fence files are little-endian; this build writes them with native stores")
#endif

/// Lays out sections after the header and section table, each aligned to 64 bytes.
struct SectionWriter {
    typealias Section = CompiledFenceFile.Section
    /// A section to write: its length and checksum, and how to reach its bytes (the array
    /// itself, held without a copy, so the file is never assembled in memory).
    private struct Pending {
        var section: Section
        var count: Int
        var hash: UInt64
        var withBytes: ((UnsafeRawBufferPointer) -> Void) -> Void
    }
    private var sections: [Pending] = []

    mutating func put<T>(_ s: Section, _ values: [T]) {
        let (count, hash) = values.withUnsafeBytes { ($0.count, Hash64.hash($0.baseAddress, count: $0.count)) }
        sections.append(Pending(section: s, count: count, hash: hash, withBytes: { body in values.withUnsafeBytes { body($0) } }))
    }

    mutating func put<T>(_ s: Section, _ values: Column<T>) {
        let (count, hash) = values.withUnsafeBytes { ($0.count, Hash64.hash($0.baseAddress, count: $0.count)) }
        sections.append(Pending(section: s, count: count, hash: hash, withBytes: { body in values.withUnsafeBytes { body($0) } }))
    }

    mutating func put<T>(_ s: Section, _ values: UnsafeBufferPointer<T>) {
        // Memory that outlives no caller: copied.
        put(s, Array(UnsafeRawBufferPointer(values)))
    }

    /// The header and section table of the file, and the offset of each section.
    private func layout() -> (head: [UInt8], placed: [Int], total: Int) {
        let F = CompiledFenceFile.self
        var offset = F.headerSize + F.entrySize * sections.count
        offset = (offset + F.alignment - 1) / F.alignment * F.alignment
        var table: [UInt8] = []
        var placed: [Int] = []
        for p in sections {
            placed.append(offset)
            table.appendLE(p.section.rawValue); table.appendLE(UInt32(0))
            table.appendLE(UInt64(offset)); table.appendLE(UInt64(p.count)); table.appendLE(p.hash)
            offset = (offset + p.count + F.alignment - 1) / F.alignment * F.alignment
        }
        let total = offset
        var header: [UInt8] = F.magic
        header.appendLE(F.version); header.appendLE(F.endianMark)
        header.appendLE(UInt32(sections.count)); header.appendLE(UInt32(0))
        header.appendLE(UInt64(total))
        let check = Hash64.hash(header + table)
        header.appendLE(check)
        header += [UInt8](repeating: 0, count: F.headerSize - header.count)
        return (header + table, placed, total)
    }

    /// Writes the whole file to `sink`: header, section table, then each section at its
    /// aligned offset (zero padding between), straight from the arrays put.
    /// - Throws: `GeofenceError.output` when a write fails.
    func write(to sink: inout FileSink) throws(GeofenceError) {
        let (head, placed, total) = layout()
        var failure: GeofenceError? = nil
        /// Writes `b` unless an earlier write failed.
        func put(_ b: UnsafeRawBufferPointer) {
            guard failure == nil else { return }
            do { try sink.write(bytes: b) } catch { failure = error }
        }
        head.withUnsafeBytes { put($0) }
        var at = head.count
        let zeros = [UInt8](repeating: 0, count: CompiledFenceFile.alignment)
        func pad(to offset: Int) {
            while at < offset {
                let n = min(offset - at, zeros.count)
                zeros.withUnsafeBytes { put(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
                at += n
            }
        }
        for (k, p) in sections.enumerated() {
            pad(to: placed[k])
            p.withBytes { put($0) }
            at += p.count
        }
        pad(to: total)
        if let failure { throw failure }
    }
}

extension [UInt8] {
    mutating func appendLE<T: FixedWidthInteger>(_ v: T) {
        Swift.withUnsafeBytes(of: v.littleEndian) { append(contentsOf: $0) }
    }
}

/// Reads a compiled fence file's header and sections, checking as it goes.
final class SectionReader {
    typealias Section = CompiledFenceFile.Section
    typealias Entry = CompiledFenceFile.Entry
    let path: String
    private var fd: Int32
    let size: Int
    private var entries: [Section: Entry] = [:]

    init(path: String) throws(GeofenceError) {
        self.path = path
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = errno
            if e == ENOENT { throw .input(InputError(SourceLocation(file: path), .notFound, "fences file not found")) }
            throw .input(InputError(SourceLocation(file: path), .cannotOpen(errno: e), "cannot open fences file: \(String(cString: strerror(e)))"))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .input(InputError(SourceLocation(file: path), .notAFile, "is not a regular file, expected a fences file"))
        }
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw .input(InputError(SourceLocation(file: path), .cannotOpen(errno: e), "cannot open fences file: \(String(cString: strerror(e)))"))
        }
        size = Int(st.st_size)
        do { try readHeader() } catch { Foundation.close(fd); fd = -1; throw error }
    }

    func close() { if fd >= 0 { Foundation.close(fd); fd = -1 } }
    deinit { close() }

    /// A `.malformed` error naming this file.
    func bad(_ what: String) -> GeofenceError {
        .input(InputError(SourceLocation(file: path), .malformed, "damaged compiled fence file: \(what)"))
    }

    /// Runs `body`, turning internal precondition-style failures into errors is not
    /// possible in Swift; `body` checks everything it relies on before using it.
    func withMalformed<R>(_ body: () throws(GeofenceError) -> R) throws(GeofenceError) -> R { try body() }

    private func readExactly(_ dst: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(GeofenceError) {
        var done = 0
        while done < count {
            let n = pread(fd, dst + done, count - done, off_t(offset + done))
            if n > 0 { done += n; continue }
            if n == 0 { throw bad("ends at byte \(offset + done), inside a section") }
            if errno == EINTR { continue }
            let e = errno
            throw .input(InputError(SourceLocation(file: path), .readFailed(errno: e), "cannot read fences file: \(String(cString: strerror(e)))"))
        }
    }

    private func readHeader() throws(GeofenceError) {
        let F = CompiledFenceFile.self
        guard size >= F.headerSize else {
            throw size >= 8 && (try? peekMagic()) == true ? bad("truncated: \(size) bytes, shorter than the \(F.headerSize)-byte header")
                : .input(InputError(SourceLocation(file: path), .malformed, "not a compiled fence file (no \\x89GFC magic)"))
        }
        let header = try readBytes(F.headerSize, at: 0)
        guard Array(header[0..<8]) == F.magic else {
            throw .input(InputError(SourceLocation(file: path), .malformed, "not a compiled fence file (no \\x89GFC magic)"))
        }
        func u32(_ o: Int) -> UInt32 { SectionReader.u32(header, o) }
        func u64(_ o: Int) -> UInt64 { SectionReader.u64(header, o) }
        let mark = u32(12)
        if mark == F.endianMark.byteSwapped {
            throw .input(InputError(SourceLocation(file: path), .malformed, "compiled fence file of the other byte order (big-endian); recompile it with 'geofence compile' on this machine"))
        }
        guard mark == F.endianMark else { throw bad("byte-order mark is \(String(mark, radix: 16)), expected 1020304") }
        let version = u32(8)
        guard version >= F.oldestReadable && version <= F.version else {
            throw .input(InputError(SourceLocation(file: path), .malformed, "compiled fence file version \(version); this geofence reads versions \(F.oldestReadable) to \(F.version), recompile it with 'geofence compile'"))
        }
        let count = Int(u32(16))
        let total = u64(24)
        guard total == UInt64(size) else { throw bad("truncated or extended: \(size) bytes, the header says \(total)") }
        guard count > 0 && count <= 4 * Section.allCases.count, F.headerSize + count * F.entrySize <= size else {
            throw bad("section table of \(count) entries does not fit")
        }
        let table = try readBytes(count * F.entrySize, at: F.headerSize)
        guard Hash64.hash(Array(header[0..<32]) + table) == u64(32) else { throw bad("header checksum mismatch") }
        for k in 0..<count {
            let o = k * F.entrySize
            let id = SectionReader.u32(table, o)
            let off = SectionReader.u64(table, o + 8), len = SectionReader.u64(table, o + 16), sum = SectionReader.u64(table, o + 24)
            guard let s = Section(rawValue: id) else { throw bad("unknown section \(id)") }
            guard entries[s] == nil else { throw bad("section \(id) twice") }
            guard off <= UInt64(size), len <= UInt64(size) - off, off % UInt64(F.alignment) == 0 else {
                throw bad("section \(id) lies outside the file")
            }
            entries[s] = Entry(offset: Int(off), length: Int(len), checksum: sum)
        }
    }

    private func peekMagic() throws(GeofenceError) -> Bool {
        try readBytes(8, at: 0) == CompiledFenceFile.magic
    }

    static func u32(_ a: [UInt8], _ o: Int) -> UInt32 {
        a.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
    }
    static func u64(_ a: [UInt8], _ o: Int) -> UInt64 {
        a.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
    }

    /// `count` bytes at `offset`.
    private func readBytes(_ count: Int, at offset: Int) throws(GeofenceError) -> [UInt8] {
        var failure: GeofenceError? = nil
        let out = [UInt8](unsafeUninitializedCapacity: count) { buf, c in
            do throws(GeofenceError) {
                if count > 0 { try readExactly(UnsafeMutableRawPointer(buf.baseAddress!), count: count, at: offset) }
                c = count
            } catch { failure = error; c = 0 }
        }
        if let failure { throw failure }
        return out
    }

    func entry(_ s: Section) throws(GeofenceError) -> Entry {
        guard let e = entries[s] else { throw bad("section \(s.rawValue) (\(s)) missing") }
        return e
    }

    /// A section read into an array of `T` (its length a multiple of `T`'s stride;
    /// `count` elements when given), checksum checked.
    func array<T>(_ s: Section, count: Int? = nil) throws(GeofenceError) -> [T] {
        let e = try entry(s)
        let stride = MemoryLayout<T>.stride
        guard e.length % stride == 0 else { throw bad("section \(s) is not a whole number of \(stride)-byte values") }
        let n = e.length / stride
        if let count, n != count { throw bad("section \(s) holds \(n) values, expected \(count)") }
        // An empty section: its checksum checked, and a plain empty array (an array made with
        // `unsafeUninitializedCapacity: 0` writes its count into the storage every empty array
        // shares, which open's threads would then write at once).
        if n == 0 {
            try read(s, e, into: nil)
            return []
        }
        var failure: GeofenceError? = nil
        let out = [T](unsafeUninitializedCapacity: n) { buf, c in
            do throws(GeofenceError) {
                try read(s, e, into: UnsafeMutableRawPointer(buf.baseAddress))
                c = n
            } catch {
                failure = error
                c = 0
            }
        }
        if let failure { throw failure }
        return out
    }

    /// The bytes of section `s` (entry `e`) read into `p` (room for them; nil only when there
    /// are none), their checksum checked.
    private func read(_ s: Section, _ e: Entry, into p: UnsafeMutableRawPointer?) throws(GeofenceError) {
        if e.length > 0, let p {
            HugePages.advise(p, e.length)
            try readExactly(p, count: e.length, at: e.offset)
        }
        if Hash64.hash(UnsafeRawPointer(p), count: e.length) != e.checksum { throw bad("checksum mismatch in section \(s)") }
    }

    /// A section as a ``Column``, checksum checked, its values handed to `scan` once (a block at
    /// a time, in order) for the checks of open: mapped in place when it is at least
    /// ``mapThreshold`` bytes and holds plain values only (no offset or reference that a change
    /// to the file while in use could send out of range), else read into memory as
    /// ``array(_:count:)``. A mapped section is checksummed and scanned in place, a block at a
    /// time, the pages read dropped every ``dropStep`` bytes and at the end
    /// (``mappedHash(_:stride:scan:)``), so open leaves none of its pages set up: a query sets
    /// up those it reads.
    func column<T>(_ s: Section, scan: (UnsafeBufferPointer<T>) -> Void = { _ in }) throws(GeofenceError) -> Column<T> {
        let e = try entry(s)
        let stride = MemoryLayout<T>.stride
        guard e.length >= Self.mapThreshold, e.length % stride == 0, e.offset % MemoryLayout<T>.alignment == 0,
              let region = MappedRegion(fd: fd, offset: e.offset, count: e.length, path: path, populate: false) else {
            guard e.length % stride == 0 else { throw bad("section \(s) is not a whole number of \(stride)-byte values") }
            let column = try Column<T>(count: e.length / stride) { (p) throws(GeofenceError) in try read(s, e, into: p) }
            column.withUnsafeBufferPointer(scan)
            return column
        }
        Self.beforeMappedRead?(s)
        let sum = Self.mappedHash(region, stride: stride) { block, bytes in
            scan(UnsafeBufferPointer(start: block.assumingMemoryBound(to: T.self), count: bytes / stride))
        }
        // Pages lost while they were read (the file shrank) read as zeros, which might even
        // hash right or pass the checks: the file is refused as one cut short while read.
        guard !region.shrank else { throw shrankWhileRead(s) }
        guard sum == e.checksum else { throw bad("checksum mismatch in section \(s)") }
        return Column(region: region)
    }

    /// The error for a mapped section some of whose pages were gone when open read them (the
    /// file shrank meanwhile): exit code 74, as for a file that shrinks while a command uses it.
    func shrankWhileRead(_ s: Section) -> GeofenceError {
        .input(InputError(SourceLocation(file: path), .readFailed(errno: EIO),
                          "the file shrank while it was read (section \(s)): run again once it no longer changes"))
    }

    /// The checksum of a mapped section's bytes, read in place a block at a time (the pages
    /// come from the kernel's page cache, no copy), each block handed to `scan` (its address and
    /// length, a multiple of `stride` bytes) after it is hashed, and the pages read dropped
    /// from the process again every ``dropStep`` bytes (``MappedRegion/drop(below:)``): open
    /// leaves none of them set up, as a read through a buffer left none. A page lost meanwhile
    /// (the file shrank) reads as zeros; the caller checks ``MappedRegion/shrank``.
    static func mappedHash(_ region: MappedRegion, stride: Int, scan: (UnsafeRawPointer, Int) -> Void) -> UInt64 {
        let block = Swift.max(1, (1 << 18) / stride) * stride
        var sum = Hash64.Stream()
        var done = 0, dropped = 0
        while done < region.count {
            let n = Swift.min(block, region.count - done)
            let p = region.base + done
            sum.add(p, count: n)
            scan(p, n)
            done += n
            // The last 128 KiB stay until the next drop: the kernel sets a page up with those
            // around it (64 KiB by default), and would set up again some just dropped.
            if done - dropped >= dropStep {
                region.drop(below: done - (1 << 17))
                dropped = done
            }
        }
        region.drop(below: region.count)
        return sum.finish()
    }

    /// The checksum of entry `e`'s bytes, read a block at a time into a buffer that stays in
    /// cache (no mapping, no fresh memory), each block handed to `scan` (its address and
    /// length, a multiple of `stride` bytes) after it is hashed.
    func readHash(_ e: Entry, stride: Int = 1,
                  scan: (UnsafeRawPointer, Int) -> Void = { _, _ in }) throws(GeofenceError) -> UInt64 {
        // No larger than the section: a small one touches no more fresh pages than it fills.
        let block = Swift.min(Swift.max(1, (1 << 18) / stride) * stride, Swift.max(e.length, 1))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 64)
        defer { buffer.deallocate() }
        var sum = Hash64.Stream()
        var done = 0
        while done < e.length {
            let n = Swift.min(block, e.length - done)
            try readExactly(buffer, count: n, at: e.offset + done)
            sum.add(buffer, count: n)
            scan(buffer, n)
            done += n
        }
        return sum.finish()
    }

    /// Bytes of a mapped section read between two drops of its pages in ``mappedHash(_:stride:scan:)``
    /// (so open holds at most this and 128 KiB of a section's pages at a time, per thread).
    /// Each drop makes the kernel flush the pages from every core the process runs on (an
    /// interrupt to each other core): dropping every 256 KiB block made about 330 drops for the
    /// 100k polygons' vertices and band edges (63 and 19 MB), and `evaluate` of an empty log
    /// took 25.8 ms against 23.2 ms with 4 MiB (2 threads, 15 runs in turn, medians); peak RSS
    /// 29.3 and 29.2 MB with 100k polygons, 14.9 and 17.1 MB with 10k.
    static let dropStep = 4 << 20

    /// Sections of at least this many bytes are mapped by ``column(_:scan:)``: below it, a read into
    /// fresh memory costs less than a mapping and its guard.
    nonisolated(unsafe) static var mapThreshold = 1 << 20

    /// Called with a section mapped by ``column(_:scan:)`` before open reads it (tests: a file
    /// cut short then).
    nonisolated(unsafe) static var beforeMappedRead: ((Section) -> Void)? = nil

    /// Checks a section's checksum without keeping it: read through a small buffer
    /// (``readHash(_:stride:scan:)``), so its pages add nothing to the peak; a file cut short
    /// meanwhile fails the read, naming the byte where it ends.
    func verify(_ s: Section) throws(GeofenceError) {
        let e = try entry(s)
        guard try readHash(e) == e.checksum else { throw bad("checksum mismatch in section \(s)") }
    }

    /// The tree's node blocks, read into 64-byte-aligned storage, checksum checked (its
    /// length is the caller's to check against the tree's shape).
    func blocks(_ s: Section) throws(GeofenceError) -> BlockStorage {
        let e = try entry(s)
        guard e.length % 4 == 0 else { throw bad("section \(s) is not a whole number of 4-byte values") }
        let count = e.length / 4
        let storage = BlockStorage(count: count, zeroed: false)
        try read(s, e, into: UnsafeMutableRawPointer(storage.words))
        return storage
    }

    /// Offsets starting at 0, never decreasing, ending at `total` (`count` of them when given).
    func offsets<T: BinaryInteger>(_ a: [T], count: Int?, total: Int, _ what: String) throws(GeofenceError) {
        if let count, a.count != count { throw bad("\(a.count) \(what) offsets, expected \(count)") }
        guard let first = a.first, first == 0, Int(a.last!) == total else { throw bad("\(what) offsets do not span their data") }
        var prev = first
        for x in a {
            guard x >= prev else { throw bad("\(what) offsets decrease") }
            prev = x
        }
    }
}

/// A value a job of ``OpenJobs`` sets, taken once the jobs are done.
final class Held<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }

    /// The value, leaving nothing behind to share its storage (so it is not copied when changed).
    func take() -> T where T: RangeReplaceableCollection {
        var v = T()
        swap(&v, &value)
        return v
    }

    /// The column, leaving an empty one.
    func take<U>() -> Column<U> where T == Column<U> {
        var v = Column<U>()
        swap(&v, &value)
        return v
    }

    /// The value, leaving nil.
    func take<U>() -> U? where T == U? {
        var v: U? = nil
        swap(&v, &value)
        return v
    }
}

/// The reads and checks of ``CompiledFenceFile/open(path:threads:)``: each job's error kept,
/// the jobs run largest first on up to the given number of threads, and the first error in
/// the order the jobs were added thrown (on one thread: in that order, stopping at the first
/// error, as a serial open).
final class OpenJobs: @unchecked Sendable {
    private let reader: SectionReader
    private var jobs: [(size: Int, run: () throws(GeofenceError) -> Void)] = []

    init(_ reader: SectionReader) { self.reader = reader }

    /// A section's read (its length as the job's size).
    func add(_ s: CompiledFenceFile.Section, _ run: @escaping () throws(GeofenceError) -> Void) {
        jobs.append((size: (try? reader.entry(s).length) ?? 0, run: run))
    }

    /// A job of about `size` units of work.
    func add(size: Int, _ run: @escaping () throws(GeofenceError) -> Void) {
        jobs.append((size: size, run: run))
    }

    func run(threads: Int) throws(GeofenceError) {
        defer { jobs = [] }
        if threads <= 1 || jobs.count < 2 {
            for j in jobs { try j.run() }
            return
        }
        var errors = [GeofenceError?](repeating: nil, count: jobs.count)
        let order = jobs.indices.sorted { jobs[$0].size > jobs[$1].size }
        let next = Atomic<Int>(0)
        errors.withUnsafeMutableBufferPointer { e in
            let out = UnsafeShared(base: e.baseAddress!)
            WorkTeam.shared.concurrentPerform(iterations: Swift.min(threads, jobs.count)) { _ in
                while true {
                    let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard k < order.count else { return }
                    do throws(GeofenceError) { try self.jobs[order[k]].run() } catch { out.base[order[k]] = error }
                }
            }
        }
        if let first = errors.first(where: { $0 != nil }) { throw first! }
    }
}
