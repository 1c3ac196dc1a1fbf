import Foundation
import GeofenceBase

/// A compiled fence file (`.gfc`, docs/compiled-fences.md): the fences as the index
/// compiled them (circle records, polygon arrays, identifiers, slot and record maps, the
/// packed R-tree), their options, and, in side sections read (and checked) only on demand,
/// their properties and source locations. Little-endian, versioned, one 64-bit checksum per
/// section. Opening reads each section straight into the index's flat arrays (one copy,
/// no parse, no per-fence allocation) after checking the header, every checksum and
/// every offset, so a damaged file is refused instead of answering wrongly.
public struct CompiledFenceFile: Sendable {
    /// The first 8 bytes of every compiled fence file: `\x89GFC\r\n\x1a\n`.
    public static let magic: [UInt8] = [0x89, 0x47, 0x46, 0x43, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The format version this build writes; it reads this one and `oldestReadable` onwards
    /// (version 2 files have no occupancy sections: the grid is built when first needed).
    public static let version: UInt32 = 3
    /// The oldest version this build reads.
    public static let oldestReadable: UInt32 = 2
    /// Written as a native `UInt32`: reads back as itself only on a host of the writer's byte order.
    static let endianMark: UInt32 = 0x0102_0304
    static let headerSize = 64
    static let entrySize = 32
    static let alignment = 64

    /// The path it was opened from.
    public let path: String
    /// The compiled fences, ready for queries (slot k is the k-th fence compiled).
    public let index: FenceIndex
    /// The options of every slot.
    public let options: FenceOptionTable
    /// Where the side sections lie (properties and sources, read by `fences()`).
    let side: [Section: Entry]

    /// Section identifiers (the byte table of docs/compiled-fences.md; 6, 10 and 25 were
    /// version 1's polygon numbers, identifier order and per-fence dwell times).
    enum Section: UInt32, CaseIterable {
        case meta = 1, idEnds, idBytes, recordOf, circles
        case slotOf = 7, alive, orderKeys
        case splits = 11, coords, ringStarts, partRings, partBoxes, partBandFirst, partBandCount, partBandScale, bandStarts, bandEdges, polygonParts
        case treeWords, treeNodeStarts
        case optionFlags
        case noteEnds = 26, noteBytes
        case sources, sourceFiles, propertyEnds, propertyBytes
        case dwellSlots, dwellValues, noteSlots
        case occupancyShape, occupancyBits, occupancyGrown
    }

    struct Entry {
        var offset: Int
        var length: Int
        var checksum: UInt64
    }

    /// Whether the file starts like a compiled fence file (`\x89GFC`, which no text file can
    /// start with; the rest of the magic is checked by `open(path:)`); false when it cannot be read
    /// or is not a regular file. A pipe, FIFO or device is never opened here: it can be read
    /// only once, by the text readers.
    public static func isCompiled(path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 4)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, 4, 0) }
        return n == 4 && head[...] == magic[0..<4]
    }

    // MARK: Writing

    /// Whether `write` stores the occupancy grid (tests turn it off to write a file as
    /// version 2 wrote it).
    nonisolated(unsafe) static var storesOccupancy = true
    /// Entry boxes from which `write` stores the occupancy grid: 0, every file (tests raise it
    /// to write files without one). Built at open instead, the grid and its grown copy are
    /// fresh memory, zeroed page by page, besides the marking: opening 35,227 airports, ports
    /// and counties and evaluating 23k fixes took 89 million instructions and 5,760 page
    /// faults without the stored grid, 79 million and 3,087 with it (docs/compiled-fences.md).
    nonisolated(unsafe) static var occupancyBoxes = defaultOccupancyBoxes
    static let defaultOccupancyBoxes = 0

    /// Writes fences compiled into `index` (fresh: built from `fences` in slot order, no
    /// change since) with their options, properties and sources, atomically.
    /// - Throws: `GeofenceError.output` when the file cannot be written;
    ///   `.internal` when `index` was changed since its build.
    /// - Complexity: O(size of the index + size of the properties).
    public static func write(index: FenceIndex, fences: [Fence], to path: String) throws(GeofenceError) {
        guard index.slotCount == fences.count else {
            throw .internal("a compiled fence file needs a freshly built index over the fences given")
        }
        var sides = SideSections(capacity: fences.count)
        for f in fences { sides.add(f) }
        try write(index: index, options: FenceOptionTable(fences.lazy.map(\.options)), sides: sides, to: path)
    }

    /// The side sections of a compiled file (each fence's source and properties), gathered
    /// fence by fence in slot order, so a caller can stream fences in without holding them.
    public struct SideSections {
        var files: [String] = [], fileIndex: [String: Int64] = [:]
        var sources: [Int64] = []
        var propEnds: [UInt64] = [0], propBytes: [UInt8] = []

        /// Room for about `capacity` fences.
        public init(capacity: Int = 0) {
            sources.reserveCapacity(3 * capacity)
            propEnds.reserveCapacity(capacity + 1)
        }

        /// Fences added.
        public var count: Int { propEnds.count - 1 }

        /// Adds the next fence's source and properties.
        /// - Complexity: O(size of its properties).
        public mutating func add(_ f: Fence) {
            let fi: Int64
            if let k = fileIndex[f.source.file] { fi = k } else {
                fi = Int64(files.count); fileIndex[f.source.file] = fi; files.append(f.source.file)
            }
            sources += [fi, Int64(f.source.line ?? -1), Int64(f.source.feature ?? -1)]
            if !f.properties.isEmpty { propBytes += Array(JSONWriter.string(.object(f.properties)).utf8) }
            propEnds.append(UInt64(propBytes.count))
        }
    }

    /// Writes an index (fresh: built in slot order, no change since), the options of its
    /// slots and the side sections of its fences (in slot order), atomically.
    /// - Throws: `GeofenceError.output` when the file cannot be written; `.internal` when
    ///   `index` was changed since its build or the counts differ.
    /// - Complexity: O(size of the index + size of the properties).
    public static func write(index: FenceIndex, options: FenceOptionTable, sides: SideSections, to path: String) throws(GeofenceError) {
        guard index.pendingChanges == 0, index.count == index.slotCount, index.slotCount == sides.count, options.count == sides.count else {
            throw .internal("a compiled fence file needs a freshly built index over the fences given")
        }
        var w = SectionWriter()
        let t = index.table, p = t.polygons, tree = index.main
        let root = tree.rootBox
        w.put(.meta, [UInt64(t.slotCount), UInt64(t.recordCount), UInt64(t.liveCount), UInt64(tree.count),
                      UInt64(root.west.bitPattern), UInt64(root.south.bitPattern), UInt64(root.east.bitPattern), UInt64(root.north.bitPattern)])
        w.put(.idEnds, t.ids.ends); w.put(.idBytes, t.ids.bytes)
        w.put(.recordOf, t.recordOf); w.put(.circles, t.circles); w.put(.slotOf, t.slotOf)
        w.put(.alive, t.alive); w.put(.orderKeys, t.orderKeys)
        var splitWords: [UInt32] = []
        splitWords.reserveCapacity(t.splits.count * 5)
        for s in t.splits {
            splitWords += [UInt32(bitPattern: s.record), s.primary.west.bitPattern, s.primary.south.bitPattern,
                           s.primary.east.bitPattern, s.primary.north.bitPattern]
        }
        w.put(.splits, splitWords)
        w.put(.coords, p.coords); w.put(.ringStarts, p.ringStarts); w.put(.partRings, p.partRings); w.put(.partBoxes, p.partBoxes)
        w.put(.partBandFirst, p.partBandFirst); w.put(.partBandCount, p.partBandCount); w.put(.partBandScale, p.partBandScale)
        w.put(.bandStarts, p.bandStarts); w.put(.bandEdges, p.bandEdges); w.put(.polygonParts, p.polygonParts)
        w.put(.treeWords, UnsafeBufferPointer(start: tree.storage.words, count: tree.storage.count))
        w.put(.treeNodeStarts, tree.nodeStarts.map { Int64($0) })
        let table = options
        w.put(.optionFlags, table.flags); w.put(.dwellSlots, table.dwellSlots); w.put(.dwellValues, table.dwellValues)
        w.put(.noteSlots, table.noteSlots); w.put(.noteEnds, table.noteEnds); w.put(.noteBytes, table.noteBytes)
        // The miss filter's occupancy grid, so that opening does not mark every box again.
        if storesOccupancy && index.entryCount >= occupancyBoxes {
            let filter = MissFilter(grid: index.missFilterGrid(threads: ProcessInfo.processInfo.activeProcessorCount))
            let grid = filter.grid
            w.put(.occupancyShape, [UInt64(grid.width), UInt64(grid.height)]
                    + grid.large.flatMap { b in [b.west, b.south, b.east, b.north].map { UInt64($0.bitPattern) } })
            w.put(.occupancyBits, grid.bits)
            w.put(.occupancyGrown, filter.grown)
        }
        // Side sections: sources and properties.
        w.put(.sources, sides.sources)
        w.put(.sourceFiles, Array(JSONWriter.string(.array(sides.files.map { .string($0) })).utf8))
        w.put(.propertyEnds, sides.propEnds); w.put(.propertyBytes, sides.propBytes)
        // Straight from the arrays to the file (no copy of them, no whole file in memory),
        // under a temporary name renamed into place.
        var sink = try FileSink(path: path)
        do { try w.write(to: &sink) } catch { sink.abandon(); throw error }
        try sink.finish()
    }

    // MARK: Opening

    /// Opens a compiled fence file: checks the header (magic, version, byte order, section
    /// table, file length), the checksum of every section it reads and every offset the
    /// queries follow, then reads the sections into the index's arrays. With `threads` above
    /// 1, the sections are read (and hashed), then checked, by that many threads at once,
    /// largest first; a damaged file gets the error a one-thread open gives (the first in
    /// the order below).
    /// - Throws: `GeofenceError.input` with kind `.notFound`, `.notAFile`, `.cannotOpen` or
    ///   `.readFailed` when the file cannot be read, `.malformed` (with what is wrong) when
    ///   it is not a compiled fence file of this version and byte order, or is damaged.
    /// - Complexity: O(file size without the side sections), one read of each byte.
    /// `occupancy`: also read the stored occupancy grid (sections 35 to 37), which only the
    /// miss filter of an evaluation uses; without it, they are not read (as the side sections
    /// are not: `fences()` reads and checks those) and the filter, if ever asked for, builds
    /// the grid.
    public static func open(path: String, threads: Int = 1, occupancy: Bool = true) throws(GeofenceError) -> CompiledFenceFile {
        let r = try SectionReader(path: path)
        defer { r.close() }
        return try r.withMalformed { () throws(GeofenceError) -> CompiledFenceFile in
            let meta: [UInt64] = try r.array(.meta)
            guard meta.count == 8 else { throw r.bad("the meta section has \(meta.count) words, expected 8") }
            guard meta[0] <= UInt64(EntryValue.maxPayload), meta[1] <= UInt64(Int32.max), meta[3] <= UInt64(Int32.max) / 2 else {
                throw r.bad("counts out of range")
            }
            guard meta[2] == meta[0] else { throw r.bad("\(meta[2]) live fences of \(meta[0]) slots; a compiled file holds only live fences") }
            let n = Int(meta[0]), records = Int(meta[1]), live = n, treeCount = Int(meta[3])
            // The side sections must be there (the header put them inside the file); they are
            // read, and their checksums checked, only when a command needs the fences
            // (`fences()`). Every section the queries use is read into its array and checked.
            var side: [Section: Entry] = [:]
            for s in [Section.sources, .sourceFiles, .propertyEnds, .propertyBytes] { side[s] = try r.entry(s) }
            let reads = OpenJobs(r)
            let idBytes = Held<[UInt8]>([]), idEnds = Held<[UInt32]>([]), recordOf = Held<[Int32]>([]), slotOf = Held<[Int32]>([])
            let alive = Held<[UInt64]>([]), orderKeys = Held<[UInt32]>([]), circles = Held<[CompiledCircle]>([]), splitWords = Held<[UInt32]>([])
            reads.add(.idBytes) { () throws(GeofenceError) in idBytes.value = try r.array(.idBytes) }
            reads.add(.idEnds) { () throws(GeofenceError) in idEnds.value = try r.array(.idEnds) }
            reads.add(.recordOf) { () throws(GeofenceError) in recordOf.value = try r.array(.recordOf, count: n) }
            reads.add(.slotOf) { () throws(GeofenceError) in slotOf.value = try r.array(.slotOf, count: records) }
            reads.add(.alive) { () throws(GeofenceError) in alive.value = try r.array(.alive, count: (records + 63) / 64) }
            reads.add(.orderKeys) { () throws(GeofenceError) in orderKeys.value = try r.array(.orderKeys, count: records) }
            reads.add(.circles) { () throws(GeofenceError) in circles.value = try r.array(.circles, count: records) }
            reads.add(.splits) { () throws(GeofenceError) in splitWords.value = try r.array(.splits) }
            let coords = Held(Column<Double>()), ringStarts = Held<[Int32]>([]), partRings = Held<[Int32]>([]), partBoxes = Held<[Double]>([])
            let partBandFirst = Held<[Int32]>([]), partBandCount = Held<[Int32]>([]), partBandScale = Held<[Double]>([])
            let bandStarts = Held<[Int32]>([]), bandEdges = Held(Column<Int32>()), polygonParts = Held<[Int32]>([])
            // The vertices' and band edges' ranges, found as they are read (a mapped section is
            // not read again at open), for checkShapeValues and checkTable below.
            let verticesInRange = Held(true), largestEdge = Held<UInt32>(0)
            reads.add(.coords) { () throws(GeofenceError) in
                coords.value = try r.column(.coords) { (c: UnsafeBufferPointer<Double>) in
                    if !PolygonTable.verticesInRange(c) { verticesInRange.value = false }
                }
            }
            reads.add(.ringStarts) { () throws(GeofenceError) in ringStarts.value = try r.array(.ringStarts) }
            reads.add(.partRings) { () throws(GeofenceError) in partRings.value = try r.array(.partRings) }
            reads.add(.partBoxes) { () throws(GeofenceError) in partBoxes.value = try r.array(.partBoxes) }
            reads.add(.partBandFirst) { () throws(GeofenceError) in partBandFirst.value = try r.array(.partBandFirst) }
            reads.add(.partBandCount) { () throws(GeofenceError) in partBandCount.value = try r.array(.partBandCount) }
            reads.add(.partBandScale) { () throws(GeofenceError) in partBandScale.value = try r.array(.partBandScale) }
            reads.add(.bandStarts) { () throws(GeofenceError) in bandStarts.value = try r.array(.bandStarts) }
            reads.add(.bandEdges) { () throws(GeofenceError) in
                bandEdges.value = try r.column(.bandEdges) { (b: UnsafeBufferPointer<Int32>) in
                    largestEdge.value = Swift.max(largestEdge.value, PolygonTable.largestEdge(b))
                }
            }
            reads.add(.polygonParts) { () throws(GeofenceError) in polygonParts.value = try r.array(.polygonParts) }
            let nodeStarts = Held<[Int64]>([]), treeWords = Held<BlockStorage?>(nil)
            reads.add(.treeNodeStarts) { () throws(GeofenceError) in nodeStarts.value = try r.array(.treeNodeStarts) }
            // Its length is checked against the tree's shape once that is known (below).
            reads.add(.treeWords) { () throws(GeofenceError) in treeWords.value = try r.blocks(.treeWords) }
            let optionFlags = Held<[UInt8]>([]), dwellSlots = Held<[Int32]>([]), dwellValues = Held<[Double]>([])
            let noteSlots = Held<[Int32]>([]), noteEnds = Held<[UInt32]>([]), noteBytes = Held<[UInt8]>([])
            reads.add(.optionFlags) { () throws(GeofenceError) in optionFlags.value = try r.array(.optionFlags, count: n) }
            reads.add(.dwellSlots) { () throws(GeofenceError) in dwellSlots.value = try r.array(.dwellSlots) }
            reads.add(.dwellValues) { () throws(GeofenceError) in dwellValues.value = try r.array(.dwellValues) }
            reads.add(.noteSlots) { () throws(GeofenceError) in noteSlots.value = try r.array(.noteSlots) }
            reads.add(.noteEnds) { () throws(GeofenceError) in noteEnds.value = try r.array(.noteEnds) }
            reads.add(.noteBytes) { () throws(GeofenceError) in noteBytes.value = try r.array(.noteBytes) }
            // The occupancy grid (files of version 2 have none: built when first needed).
            // Plain bits, used in place where the file is mapped (as polygon vertices are).
            let hasGrid = occupancy && [Section.occupancyShape, .occupancyBits, .occupancyGrown].contains { (try? r.entry($0)) != nil }
            let gridShape = Held<[UInt64]>([]), gridBits = Held(Column<UInt64>()), gridGrown = Held(Column<UInt64>())
            if hasGrid {
                reads.add(.occupancyShape) { () throws(GeofenceError) in gridShape.value = try r.array(.occupancyShape) }
                reads.add(.occupancyBits) { () throws(GeofenceError) in gridBits.value = try r.column(.occupancyBits) }
                reads.add(.occupancyGrown) { () throws(GeofenceError) in gridGrown.value = try r.column(.occupancyGrown) }
            }
            try reads.run(threads: threads)
            // Each mapped section dropped its pages as it was read, but the kernel sets a page
            // up with its neighbours, and mappings side by side are one: pages the reading of the
            // next section set up again go now (open leaves none set up: docs/compiled-fences.md#memory).
            coords.value.dropMappedPages()
            bandEdges.value.dropMappedPages()
            gridBits.value.dropMappedPages()
            gridGrown.value.dropMappedPages()

            var t = FenceTable()
            t.ids = IdentifierStore(bytes: idBytes.take(), ends: idEnds.take())
            t.recordOf = recordOf.take()
            t.slotOf = slotOf.take()
            t.alive = alive.take()
            t.orderKeys = orderKeys.take()
            t.circles = circles.take()
            let words = splitWords.take()
            guard words.count % 5 == 0 else { throw r.bad("the split section is not a whole number of records") }
            t.splits = stride(from: 0, to: words.count, by: 5).map { k in
                FenceTable.SplitRecord(record: Int32(bitPattern: words[k]),
                                       primary: BoundingBox(west: Float(bitPattern: words[k + 1]), south: Float(bitPattern: words[k + 2]),
                                                            east: Float(bitPattern: words[k + 3]), north: Float(bitPattern: words[k + 4])))
            }
            var p = PolygonTable()
            p.coords = coords.take()
            p.ringStarts = ringStarts.take()
            p.partRings = partRings.take()
            p.partBoxes = partBoxes.take()
            p.partBandFirst = partBandFirst.take()
            p.partBandCount = partBandCount.take()
            p.partBandScale = partBandScale.take()
            p.bandStarts = bandStarts.take()
            p.bandEdges = bandEdges.take()
            p.polygonParts = polygonParts.take()
            t.polygons = p
            t.liveCount = live

            var tree = PackedRTree()
            tree.nodeStarts = nodeStarts.take().map { Int(truncatingIfNeeded: $0) }
            tree.count = treeCount
            tree.rootBox = BoundingBox(west: Float(bitPattern: UInt32(truncatingIfNeeded: meta[4])), south: Float(bitPattern: UInt32(truncatingIfNeeded: meta[5])),
                                       east: Float(bitPattern: UInt32(truncatingIfNeeded: meta[6])), north: Float(bitPattern: UInt32(truncatingIfNeeded: meta[7])))
            let options = FenceOptionTable(flags: optionFlags.take(), dwellSlots: dwellSlots.take(), dwellValues: dwellValues.take(),
                                           noteSlots: noteSlots.take(), noteEnds: noteEnds.take(), noteBytes: noteBytes.take())

            // The checks, in this order (each reads the arrays only), at once on `threads` threads.
            let checks = OpenJobs(r)
            let table = t
            // Slots and records, in parts (the largest check of a circle set), the identifiers'
            // order computed beside them and compared in parts once they all pass.
            let parts = Swift.max(1, Swift.min(threads, records / 65_536))
            checks.add(size: n) { () throws(GeofenceError) in
                try r.offsets(table.ids.ends, count: n + 1, total: table.ids.bytes.count, "identifier")
            }
            for k in 0..<parts {
                checks.add(size: 2 * records / parts) { () throws(GeofenceError) in
                    try checkRecords(table, records * k / parts..<records * (k + 1) / parts, r)
                    try checkSlotRecords(table, n * k / parts..<n * (k + 1) / parts, r)
                    try checkRecordValues(table, records * k / parts..<records * (k + 1) / parts, r)
                }
            }
            let order = Held<[Int32]>([])
            checks.add(size: records) { () throws(GeofenceError) in order.value = table.computeIdentifierOrder() }
            checks.add(size: table.polygons.coords.count / 2 + table.polygons.bandEdges.count) { () throws(GeofenceError) in
                try checkTable(table, r, largestEdge: largestEdge.value)
            }
            let shaped = Held<PackedRTree?>(nil)
            checks.add(size: records) { () throws(GeofenceError) in
                var checked = tree
                try checkTreeShape(checked, records: records, r)
                let words = try r.entry(.treeWords).length
                let count = PackedRTree.stride * checked.nodeStarts.last!
                guard let storage = treeWords.take(), words == 4 * count else {
                    throw r.bad("section \(Section.treeWords) holds \(words) bytes, expected \(4 * count)")
                }
                checked.storage = storage
                try checkTreeValues(checked, records: records, splits: table.splits.count, r)
                shaped.value = checked
            }
            checks.add(size: n) { () throws(GeofenceError) in try checkOptions(options, r) }
            checks.add(size: table.polygons.coords.count / 2) { () throws(GeofenceError) in
                try checkShapeValues(table, options, r, verticesInRange: verticesInRange.value)
            }
            try checks.run(threads: threads)
            let ranked = order.take()
            guard ranked.count == n, !ranked.contains(-1) else { throw r.bad("order keys repeated") }
            let comparisons = OpenJobs(r)
            for k in 0..<parts {
                comparisons.add(size: n / parts) { () throws(GeofenceError) in
                    let from = Swift.max(1, n * k / parts)
                    try checkIdentifierOrder(table, ranked, from..<Swift.max(from, n * (k + 1) / parts), r)
                }
            }
            try comparisons.run(threads: threads)

            var index = FenceIndex()
            index.table = t
            index.main = shaped.take()!
            if hasGrid {
                let shape = gridShape.take()
                guard shape.count >= 2, (shape.count - 2) % 4 == 0, shape[0] <= UInt64(Int32.max), shape[1] <= UInt64(Int32.max) else {
                    throw r.bad("the occupancy shape section has \(shape.count) words")
                }
                let large = stride(from: 2, to: shape.count, by: 4).map { k in
                    BoundingBox(west: Float(bitPattern: UInt32(truncatingIfNeeded: shape[k])), south: Float(bitPattern: UInt32(truncatingIfNeeded: shape[k + 1])),
                                east: Float(bitPattern: UInt32(truncatingIfNeeded: shape[k + 2])), north: Float(bitPattern: UInt32(truncatingIfNeeded: shape[k + 3])))
                }
                guard let grid = OccupancyGrid(width: Int(shape[0]), height: Int(shape[1]), bits: gridBits.take(), large: large,
                                               generation: index.generation, maximumCells: MissFilter.maximumCells) else {
                    throw r.bad("the occupancy grid's \(shape[0]) × \(shape[1]) cells do not match its bits or limits")
                }
                let grown = gridGrown.take()
                guard grown.count == grid.bits.count else {
                    throw r.bad("the grown occupancy grid has \(grown.count) words, the grid \(grid.bits.count)")
                }
                index.storedMissFilter = MissFilter(grid: grid, grown: grown)
            }
            return CompiledFenceFile(path: path, index: index, options: options, side: side)
        }
    }

    /// Offsets and references the queries follow, all in range; `largestEdge` is the largest
    /// band edge as unsigned (``PolygonTable/largestEdge(_:)`` over the band edges).
    static func checkTable(_ t: FenceTable, _ r: SectionReader, largestEdge: UInt32) throws(GeofenceError) {
        let records = t.recordCount, p = t.polygons
        try r.offsets(p.ringStarts, count: nil, total: p.coords.count / 2, "ring")
        guard p.coords.count % 2 == 0 else { throw r.bad("odd coordinate count") }
        try r.offsets(p.partRings, count: nil, total: p.ringStarts.count - 1, "part")
        let parts = p.partRings.count - 1
        try r.offsets(p.polygonParts, count: nil, total: parts, "polygon")
        guard p.partBoxes.count == 4 * parts, p.partBandFirst.count == parts, p.partBandCount.count == parts,
              p.partBandScale.count == parts else { throw r.bad("part tables of unequal lengths") }
        try r.offsets(p.bandStarts, count: nil, total: p.bandEdges.count, "band")
        let bands = p.bandStarts.count - 1
        for k in 0..<parts {
            let f = Int(p.partBandFirst[k]), c = Int(p.partBandCount[k])
            guard f >= 0, c >= 0, f + c <= bands else { throw r.bad("bands of part \(k) out of range") }
            guard p.partRings[k + 1] > p.partRings[k] else { throw r.bad("part \(k) has no ring") }
        }
        for r0 in 0..<(p.ringStarts.count - 1) where p.ringStarts[r0 + 1] - p.ringStarts[r0] < 2 {
            throw r.bad("ring \(r0) has fewer than 2 positions")
        }
        let vertices = p.coords.count / 2
        // Edges are below vertices − 1 (unsigned, so negatives are too large); the first bad one
        // looked for only when there is one.
        let edgeLimit = UInt32(clamping: Swift.max(0, vertices - 1))
        if !p.bandEdges.isEmpty && largestEdge >= edgeLimit {
            for e in p.bandEdges where e < 0 || Int(e) >= vertices - 1 { throw r.bad("band edge \(e) out of range") }
        }
        let polygons = p.polygonParts.count - 1
        for k in 0..<polygons where p.polygonParts[k + 1] == p.polygonParts[k] { throw r.bad("polygon \(k) has no part") }
        var polygonUsed = 0
        for k in 0..<records where t.circles[k].radius == -1 {
            // A polygon record: its number in `lat`, checked before anything converts it.
            let q = t.circles[k].lat
            guard q >= 0, q < Double(polygons), q == q.rounded(.down) else { throw r.bad("record \(k) refers out of range") }
            polygonUsed += 1
        }
        guard polygonUsed == polygons else { throw r.bad("\(polygons) polygons but \(polygonUsed) polygon records") }
        for s in t.splits where s.record < 0 || Int(s.record) >= records { throw r.bad("split record out of range") }
    }

    // Slots and records map to each other, live bits agree, and the order keys rank the
    // identifiers (every live record's key is `2 (i + 1)` for a distinct `i < n`, holes have
    // key 0, and the identifiers ascend strictly in key order): three checks, which `open`
    // runs in parts.

    /// Records `range`: slot in range, live bit as the slot says, order key as a live record
    /// or a hole has it.
    static func checkRecords(_ t: FenceTable, _ range: Range<Int>, _ r: SectionReader) throws(GeofenceError) {
        let n = t.slotCount
        // The first record that fails, found without a bounds check or a throw in the loop;
        // the loop below then says what is wrong with it.
        let first = t.slotOf.withUnsafeBufferPointer { slots in
            t.orderKeys.withUnsafeBufferPointer { keys in
                t.alive.withUnsafeBufferPointer { alive -> Int in
                    for k in range {
                        let s = Int(slots[k]), key = keys[k]
                        let live = alive[k &>> 6] &>> UInt64(k & 63) & 1 != 0
                        let ok = s >= -1 && s < n && live == (s >= 0)
                            && (s < 0 ? key == 0 : key >= 2 && key & 1 == 0 && Int(key / 2) <= n)
                        if !ok { return k }
                    }
                    return range.upperBound
                }
            }
        }
        for k in first..<range.upperBound {
            let s = t.slotOf[k]
            guard s >= -1 && Int(s) < n else { throw r.bad("record \(k) refers out of range") }
            guard t.isLive(record: k) == (s >= 0) else { throw r.bad("record \(k): live bit and slot disagree") }
            let key = t.orderKeys[k]
            if s < 0 {
                guard key == 0 else { throw r.bad("record \(k): order key \(key) on a hole") }
            } else {
                guard key >= 2, key & 1 == 0, Int(key / 2) <= n else { throw r.bad("record \(k): order key \(key) out of range") }
            }
        }
    }

    /// Slots `range`: each slot's record maps back to it.
    static func checkSlotRecords(_ t: FenceTable, _ range: Range<Int>, _ r: SectionReader) throws(GeofenceError) {
        let records = t.recordCount
        for s in range {
            let k = t.recordOf[s]
            guard k >= 0 && Int(k) < records && t.slotOf[Int(k)] == Int32(s) else { throw r.bad("slot \(s) and its record disagree") }
        }
    }

    /// Ranks `range` (from 1): the identifier ranked k follows the one ranked k − 1, strictly
    /// (bytewise). `order`: slots by rank, each in range; identifier offsets already checked.
    static func checkIdentifierOrder(_ t: FenceTable, _ order: [Int32], _ range: Range<Int>, _ r: SectionReader) throws(GeofenceError) {
        // IdentifierStore.compare over the stored bytes, in one pass over the buffers.
        let bad = t.ids.bytes.withUnsafeBufferPointer { bytes in
            t.ids.ends.withUnsafeBufferPointer { ends in
                order.withUnsafeBufferPointer { order -> Int? in
                    @inline(__always) func id(_ slot: Int32) -> UnsafeBufferPointer<UInt8> {
                        let s = Int(slot)
                        return UnsafeBufferPointer(rebasing: bytes[Int(ends[s])..<Int(ends[s &+ 1])])
                    }
                    for k in range where IdentifierStore.compare(id(order[k &- 1]), id(order[k])) >= 0 { return k }
                    return nil
                }
            }
        }
        if let k = bad { throw r.bad("identifiers out of order or repeated at \(k)") }
    }

    /// The option tables' lengths and offsets agree, their slots increase and carry the flag.
    static func checkOptions(_ o: FenceOptionTable, _ r: SectionReader) throws(GeofenceError) {
        let n = o.count
        func slots(_ list: [Int32], flag: UInt8, count: Int, _ what: String) throws(GeofenceError) {
            var prev = -1
            for s in list {
                guard Int(s) > prev, Int(s) < n, o.flags[Int(s)] & flag != 0 else { throw r.bad("\(what) slots out of order or range") }
                prev = Int(s)
            }
            guard count == list.count else { throw r.bad("\(what) flags and slots disagree") }
        }
        // The flags counted in one pass (a byte each).
        let T = FenceOptionTable.self
        let known = T.notifyEntry | T.notifyExit | T.repeats | T.hasNote | T.hasDwell
        var dwells = 0, notes = 0, unknown: UInt8 = 0
        o.flags.withUnsafeBufferPointer { flags in
            for f in flags {
                dwells &+= f & T.hasDwell != 0 ? 1 : 0
                notes &+= f & T.hasNote != 0 ? 1 : 0
                unknown |= f & ~known
            }
        }
        guard unknown == 0 else {
            let f = o.flags.first { $0 & ~known != 0 }!
            throw r.bad("unknown option flags \(f)")
        }
        try slots(o.dwellSlots, flag: FenceOptionTable.hasDwell, count: dwells, "dwell")
        guard o.dwellValues.count == o.dwellSlots.count else { throw r.bad("\(o.dwellValues.count) dwell times for \(o.dwellSlots.count) slots") }
        try slots(o.noteSlots, flag: FenceOptionTable.hasNote, count: notes, "note")
        try r.offsets(o.noteEnds, count: o.noteSlots.count + 1, total: o.noteBytes.count, "note")
    }

    /// Node starts as a tree of `count` entries has them, and leaf lanes one per record.
    static func checkTreeShape(_ tree: PackedRTree, records: Int, _ r: SectionReader) throws(GeofenceError) {
        let m = PackedRTree.nodeCapacity, n = tree.count
        var expected = [0]
        if n > 0 {
            var counts = [(n + m - 1) / m]
            while counts.last! > 1 { counts.append((counts.last! + m - 1) / m) }
            guard counts.count <= PackedRTree.maxLevels else { throw r.bad("tree too deep") }
            for c in counts { expected.append(expected.last! + c) }
        }
        guard tree.nodeStarts == expected else { throw r.bad("tree levels do not match its \(n) entries") }
        guard tree.leafLanes == records else { throw r.bad("\(tree.leafLanes) leaf lanes for \(records) records") }
    }

    /// Every leaf value of an entry refers to a record (primary) or a split (secondary), and every lane past
    /// a level's last child (the padding of the last node of each level) holds the empty box,
    /// which no query meets: the search never steps into a node beyond its level.
    static func checkTreeValues(_ tree: PackedRTree, records: Int, splits: Int, _ r: SectionReader) throws(GeofenceError) {
        let m = PackedRTree.nodeCapacity
        for k in 0..<tree.leafLanes {
            let v = tree.value(k / m, k % m)
            if v == EntryValue.none {
                // Only the padding past the last entry is empty (its box checked below).
                guard k >= tree.count else { throw r.bad("tree entry \(k) has no value") }
                continue
            }
            let payload = Int(v >> EntryValue.payloadShift)
            guard payload < (v & EntryValue.secondary != 0 ? splits : records) else { throw r.bad("tree entry \(k) refers out of range") }
        }
        let starts = tree.nodeStarts
        for level in 1..<starts.count {
            // Children of this level: the entries (leaves), else the nodes of the level below.
            let children = level == 1 ? tree.count : starts[level - 1] - starts[level - 2]
            for node in starts[level - 1]..<starts[level] {
                for lane in 0..<m where (node - starts[level - 1]) * m + lane >= children {
                    guard tree.childBox(node, lane) == .empty else {
                        throw r.bad("tree node \(node) has a box in lane \(lane), past its level's last child")
                    }
                }
            }
        }
    }

    // MARK: Side sections

    /// The fences with everything the source files gave them: identifier, shape, options,
    /// properties (as read) and source location. Reads the side sections (checksums checked).
    /// - Throws: as `open(path:)`, when the file changed or was damaged since it was opened.
    /// - Complexity: O(fences + size of the properties).
    public func fences() throws(GeofenceError) -> [Fence] {
        let r = try SectionReader(path: path)
        defer { r.close() }
        return try r.withMalformed { () throws(GeofenceError) -> [Fence] in
            let n = index.slotCount
            let sources: [Int64] = try r.array(.sources, count: 3 * n)
            let filesText: [UInt8] = try r.array(.sourceFiles)
            let ends: [UInt64] = try r.array(.propertyEnds, count: n + 1)
            let bytes: [UInt8] = try r.array(.propertyBytes)
            guard ends[0] == 0, ends[n] == UInt64(bytes.count), zip(ends, ends.dropFirst()).allSatisfy({ $0 <= $1 }) else {
                throw r.bad("property offsets out of range")
            }
            guard case .array(let fileValues)? = try? JSONParser.parse(filesText) else { throw r.bad("source file table is not a JSON array") }
            let files = fileValues.map { $0.stringValue ?? "" }
            var out: [Fence] = []
            out.reserveCapacity(n)
            for s in 0..<n {
                let fi = Int(sources[3 * s]), line = sources[3 * s + 1], feature = sources[3 * s + 2]
                guard fi >= 0 && fi < files.count else { throw r.bad("source of fence \(s) out of range") }
                var props: [(String, JSONValue)] = []
                let a = Int(ends[s]), b = Int(ends[s + 1])
                if b > a {
                    guard case .object(let o)? = try? JSONParser.parse(Array(bytes[a..<b])) else { throw r.bad("properties of fence \(s) are not a JSON object") }
                    props = o
                }
                let slot = Int32(s)
                out.append(Fence(id: index.identifier(of: slot), shape: index.shape(at: slot)!, options: options.options(of: s),
                                 properties: props,
                                 source: SourceLocation(file: files[fi], line: line >= 0 ? Int(line) : nil, feature: feature >= 0 ? Int(feature) : nil)))
            }
            return out
        }
    }
}
