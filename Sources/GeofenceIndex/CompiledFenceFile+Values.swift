import GeofenceBase

extension CompiledFenceFile {
    /// Recomputes, in place, the checksum of every section whose table entry lies inside
    /// `bytes`, then the header's; every other byte is left as it is. For the fuzz target and
    /// the damage tests: a damaged file resealed this way passes the checksum checks, so the
    /// structural checks behind them (offsets, counts, references) are what must refuse it.
    /// - Complexity: O(bytes).
    package static func resealChecksums(_ bytes: inout [UInt8]) {
        guard bytes.count >= headerSize else { return }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        func put(_ v: UInt64, at: Int) { for k in 0..<8 { bytes[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(k))) } }
        let sections = Int((0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[16 + $1]) << (8 * UInt32($1)) })
        guard sections <= (bytes.count - headerSize) / entrySize else { return }
        let tableEnd = headerSize + sections * entrySize
        for k in 0..<sections {
            let e = headerSize + k * entrySize
            let offset = u64(e + 8), length = u64(e + 16)
            guard offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - offset else { continue }
            let sum = bytes.withUnsafeBytes { Hash64.hash($0.baseAddress! + Int(offset), count: Int(length)) }
            put(sum, at: e + 24)
        }
        put(Hash64.hash(Array(bytes[0..<32]) + Array(bytes[headerSize..<tableEnd])), at: 32)
    }
}

extension CompiledFenceFile {
    // The numbers the queries compute with, in their ranges, checked at open (so a damaged
    // file behind valid checksums is refused instead of trapping a query) in two parts: the
    // records (`open` checks them in parts, one per thread) and the rest.

    /// The records `range`: latitude and longitude in degrees, a circle's radius finite and
    /// positive, the markers of polygon (−1) and hole (−2) records where they belong.
    static func checkRecordValues(_ t: FenceTable, _ range: Range<Int>, _ r: SectionReader) throws(GeofenceError) {
        // The first record that fails, found without a bounds check or a throw in the loop;
        // the loop below then says what is wrong with it.
        let first = t.circles.withUnsafeBufferPointer { circles in
            t.slotOf.withUnsafeBufferPointer { slots -> Int in
                for k in range {
                    let c = circles[k]
                    let placed = c.lat.isFinite && (abs(c.lat) <= 90 || c.radius == -1) && c.lon.isFinite && abs(c.lon) <= 180
                    let sized = slots[k] < 0 ? c.radius == -2 : c.radius == -1 || (c.radius.isFinite && c.radius > 0)
                    if !(placed && sized) { return k }
                }
                return range.upperBound
            }
        }
        for k in first..<range.upperBound {
            let c = t.circles[k]
            guard c.lat.isFinite, abs(c.lat) <= 90 || c.radius == -1, c.lon.isFinite, abs(c.lon) <= 180 else {
                throw r.bad("record \(k): position out of range")
            }
            let expected: Double? = t.slotOf[k] < 0 ? -2 : c.radius == -1 ? -1 : nil
            if let expected {
                guard c.radius == expected else { throw r.bad("record \(k): radius \(c.radius) where \(expected) marks its kind") }
            } else {
                guard c.radius.isFinite, c.radius > 0 else { throw r.bad("record \(k): radius \(c.radius) out of range") }
            }
        }
    }

    /// All but the records: polygon vertices and part boxes finite and on the globe, band
    /// scales, dwell times finite and non-negative or none. `verticesInRange`:
    /// ``PolygonTable/verticesInRange(_:)`` over all the vertices.
    static func checkShapeValues(_ t: FenceTable, _ options: FenceOptionTable, _ r: SectionReader,
                                 verticesInRange inRange: Bool) throws(GeofenceError) {
        let p = t.polygons
        // The first bad vertex looked for only when there is one.
        let vertices = p.coords.count / 2
        if !inRange {
            for v in 0..<vertices where !PolygonTable.isOnGlobe(lon: p.coords[2 * v], lat: p.coords[2 * v + 1]) {
                throw r.bad("vertex \(v) out of range")
            }
        }
        for v in p.partBoxes where !v.isFinite || abs(v) > 540 { throw r.bad("part box out of range") }
        for v in p.partBandScale where !v.isFinite || v < 0 { throw r.bad("band scale out of range") }
        for d in options.dwellValues where !(d.isFinite && d >= 0) { throw r.bad("dwell time \(d) out of range") }
    }
}
