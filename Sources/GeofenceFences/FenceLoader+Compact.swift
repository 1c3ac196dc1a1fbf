import GeofenceBase
import GeofenceIndex
import Glibc

extension FenceLoader {
    /// The circle fences of clean GeoJSON and CSV files, streamed by the fast readers
    /// straight into a compact index (docs/compiled-fences.md#memory): no ``Fence`` array is
    /// built, so a fence costs its table record from the moment it is read, and each file's
    /// bytes are released before the next is read and before the tree is built. The index
    /// and options are those the general path (``FenceSet/load(paths:crs:layer:fields:defaults:checkPolygons:keepProperties:)``,
    /// then `FenceIndex(_:)`) gives for the same files.
    ///
    /// nil when the files are not all of that kind: standard input, a compiled or GDAL
    /// source, a polygon, reprojection, properties asked for (``keepProperties``), any
    /// problem in any fence, or an identifier defined twice (within or across files). The
    /// caller then loads them on the general path, which reports every problem.
    /// - Parameters:
    ///   - indexing: called with the fence count once every file is read, before the tree is
    ///     built (for a progress line).
    ///   - blockSize: bytes a plain CSV file is read in (``csvBlocks(_:blockSize:_:)``).
    /// - Throws: ``GeofenceError/input(_:)`` when a file cannot be read or its gzip stream is
    ///   corrupt (as the general path would).
    /// - Complexity: O(total bytes + n log n) for n fences.
    public func compactCircles(paths: [String], indexing: (Int) -> Void = { _ in }, blockSize: Int = 16 << 20) throws(GeofenceError) -> (index: FenceIndex, options: FenceOptionTable)? {
        guard reproject == nil, !keepProperties, !paths.isEmpty else { return nil }
        var builder: FenceIndex.Builder? = nil
        for path in paths {
            guard path != "-", !CompiledFenceFile.isCompiled(path: path), Self.vectorSource(path: path) == nil else { return nil }
            // A plain CSV file is read block by block: its bytes are never held whole.
            var streamed = false
            if let done = Self.csvBlocks(path, blockSize: blockSize, { block, estimate in
                if builder == nil { builder = FenceIndex.Builder(reserving: estimate) }
                var b = builder!
                builder = nil
                defer { builder = b }
                return fastCSV(block, name: path) { f in
                    do { try b.append(f) } catch { return false }
                    return true
                }
            }) {
                guard done else { return nil }
                streamed = true
            }
            if streamed { continue }
            let bytes = try Self.textInput(path)
            let format = Self.format(path: Self.withoutGzipSuffix(path), bytes: bytes)
            if builder == nil { builder = FenceIndex.Builder(reserving: format == .csv ? Self.lineCount(bytes) : 0) }
            var b = builder!
            builder = nil   // one owner while appending (no copy of the growing table)
            let each = { (f: Fence) -> Bool in
                guard f.shape.isCircle else { return false }
                do { try b.append(f) } catch { return false }
                return true
            }
            guard format == .csv ? fastCSV(bytes, name: path, each) : fastGeoJSON(bytes, name: path, each) else { return nil }
            builder = b
        }
        guard let builder else { return nil }
        indexing(builder.count)
        do { return try builder.finish() } catch { return nil }
    }

    /// Hands every fence of clean GeoJSON and CSV files to `each`, in file order, as the fast
    /// readers read them whole (properties as ``keepProperties`` says, sources with their
    /// lines): the fences ``compactCircles(paths:indexing:blockSize:)`` indexes, one at a time,
    /// for a caller that needs their properties without holding them all. false when a file
    /// is not one the fast readers take whole (the fences handed over so far are then not
    /// the files'), or `each` stopped.
    /// - Throws: ``GeofenceError/input(_:)`` when a file cannot be read.
    /// - Complexity: O(total bytes); one file's bytes held at a time.
    public func forEachFastFence(paths: [String], _ each: (Fence) -> Bool) throws(GeofenceError) -> Bool {
        guard reproject == nil else { return false }
        for path in paths {
            guard path != "-", !CompiledFenceFile.isCompiled(path: path), Self.vectorSource(path: path) == nil else { return false }
            let bytes = try Self.textInput(path)
            let format = Self.format(path: Self.withoutGzipSuffix(path), bytes: bytes)
            guard format == .csv ? fastCSV(bytes, name: path, each) : fastGeoJSON(bytes, name: path, each) else { return false }
        }
        return true
    }

    /// Reads a plain (not gzip) CSV file in blocks of about `blockSize` bytes cut at record
    /// ends, and hands each block to `body` as a CSV text of its own: the file's header line
    /// (byte-order mark included), then whole records. A cut is a line feed outside quotes
    /// (an even number of quotes since the last cut): in a file the fast reader accepts, a
    /// quoted line feed never ends a block. `body` also gets an estimate of the file's record
    /// count (from the first block's mean record length), and returns false to stop.
    ///
    /// nil when the file is not read this way (it cannot be opened or read, it is gzip, or
    /// not CSV by `format(path:bytes:)`): the caller reads it whole. Otherwise whether every
    /// block was accepted.
    /// - Complexity: O(bytes); memory O(blockSize + the longest record).
    static func csvBlocks(_ path: String, blockSize: Int = 16 << 20, _ body: ([UInt8], Int) -> Bool) -> Bool? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let fileSize = Int(st.st_size)
        // One read buffer, no larger than the file (plus one byte to see its end).
        let readSize = max(1, min(blockSize, fileSize + 1))
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
        defer { scratch.deallocate() }
        /// Appends up to one read buffer of bytes from the file; nil on a read error, 0 at its end.
        func fill(_ buffer: inout [UInt8]) -> Int? {
            while true {
                let n = read(fd, scratch.baseAddress!, readSize)
                if n >= 0 {
                    buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<n]))
                    return n
                }
                if errno != EINTR { return nil }
            }
        }
        var pending: [UInt8] = []
        pending.reserveCapacity(readSize)
        guard let first = fill(&pending) else { return nil }
        if first >= 2 && pending[0] == 0x1F && pending[1] == 0x8B { return nil }
        guard format(path: path, bytes: pending) == .csv else { return nil }
        var header: [UInt8] = []
        var estimate = 0
        var atEnd = first == 0
        while true {
            // The last line feed outside quotes (the header's end: the first one).
            var cut = -1, quotes = 0
            pending.withUnsafeBufferPointer { b in
                var i = 0
                while i < b.count {
                    let x = b[i]
                    if x == UInt8(ascii: "\"") { quotes += 1 } else if x == 0x0A && quotes & 1 == 0 {
                        cut = i
                        if header.isEmpty { break }
                    }
                    i += 1
                }
            }
            if cut < 0 && !atEnd {
                // No whole record yet: read more.
                guard let n = fill(&pending) else { return nil }
                atEnd = n == 0
                continue
            }
            let end = cut < 0 ? pending.count : cut + 1
            if header.isEmpty {
                header = Array(pending[..<end])
                pending.removeFirst(end)
                guard !header.isEmpty else { return body(header, 0) }
                if pending.isEmpty && atEnd { return body(header, 0) }
                continue
            }
            if estimate == 0 {
                let records = max(1, pending[..<end].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
                estimate = fileSize / max(1, end / records) + records / 50 + 16
            }
            guard body(header + pending[..<end], estimate) else { return false }
            pending.removeFirst(end)
            if atEnd && pending.isEmpty { return true }
            guard let n = fill(&pending) else { return nil }
            if n == 0 {
                if pending.isEmpty { return true }
                atEnd = true
            }
        }
    }

    /// Line feeds in `bytes` (an upper bound on a CSV file's records, for reserving).
    static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { b in
            var n = 0
            for x in b where x == 0x0A { n += 1 }
            return n
        }
    }
}
