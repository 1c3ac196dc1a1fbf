import GeofenceBase
import Geodesy

/// Compiled polygon fences in flat arrays: coordinates (rings closed),
/// ring and part offsets, per-part boxes, and per-part latitude bands listing
/// the edges that overlap each band, so that point-in-polygon and
/// nearest-edge searches touch only nearby edges. No per-query allocation.
///
/// Edge `v` is the segment from vertex `v` to vertex `v + 1` of the same ring.
package struct PolygonTable: Sendable {
    /// Parts with more edges than this get latitude bands.
    static let bandThreshold = 32
    /// Average edges per band.
    static let edgesPerBand = 4

    /// Vertices as `lon, lat` pairs, all rings one after another, each ring closed. A
    /// ``Column``: a compiled file's vertices are used where the file is mapped (plain values,
    /// no offsets: a change to the file while in use cannot send a query out of range).
    package internal(set) var coords = Column<Double>()
    /// Per ring: its first vertex, then the total (ring `r` is vertices `ringStarts[r]..<ringStarts[r + 1]`).
    package internal(set) var ringStarts: [Int32] = [0]
    /// Per part: its first ring, then the total (part `p` is rings `partRings[p]..<partRings[p + 1]`).
    package internal(set) var partRings: [Int32] = [0]
    /// 4 per part: west, south, east, north.
    var partBoxes: [Double] = []
    /// Per part: first band (global index) and band count (0: no bands).
    var partBandFirst: [Int32] = []
    var partBandCount: [Int32] = []
    /// Per part: bands per degree of latitude.
    var partBandScale: [Double] = []
    /// Per band: start into `bandEdges`, then the total.
    var bandStarts: [Int32] = [0]
    /// Mapped in place from a compiled file, like `coords`: every edge read from it is checked
    /// against the vertex count where it is used (``anyBandEdge(_:_:)``), so a file changed while in use
    /// cannot send a query out of range.
    package internal(set) var bandEdges = Column<Int32>()
    /// Per polygon: first part, then the part count.
    var polygonParts: [Int32] = [0]

    var polygonCount: Int { polygonParts.count - 1 }

    /// Parts of all polygons (valid parts are `0..<partCount`).
    package var partCount: Int { partRings.count - 1 }

    /// Whether every vertex among `lonLat` (whole `lon, lat` pairs; a last odd value is taken
    /// as a longitude) is on the globe as the queries need it: longitude within ±540° (ring
    /// vertices unwrapped across the antimeridian), latitude within ±90°, both finite. One pass
    /// without a branch per vertex (a comparison with NaN is false; infinities are out of range),
    /// four vertices at a time as vectors (a compiled file's open checks every vertex this way:
    /// 16 instructions a vertex one at a time, about 5 so).
    static func verticesInRange(_ lonLat: UnsafeBufferPointer<Double>) -> Bool {
        guard let base = lonLat.baseAddress else { return true }
        let wide = lonLat.count & ~7
        let bound = SIMD8<Double>(540, 90, 540, 90, 540, 90, 540, 90)
        var inside = SIMDMask<SIMD8<Int64>>(repeating: true)
        var i = 0
        while i < wide {
            let v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<Double>.self)
            inside .&= (v .<= bound) .& (v .>= -bound)
            i &+= 8
        }
        var outside = all(inside) ? 0 : 1
        while i &+ 1 < lonLat.count {
            outside |= isOnGlobe(lon: lonLat[i], lat: lonLat[i &+ 1]) ? 0 : 1
            i &+= 2
        }
        if i < lonLat.count && !isOnGlobe(lon: lonLat[i], lat: 0) { outside = 1 }
        return outside == 0
    }

    /// A vertex as the queries need it: longitude within ±540°, latitude within ±90°, both
    /// finite (a comparison with NaN is false).
    @inline(__always)
    static func isOnGlobe(lon: Double, lat: Double) -> Bool { abs(lon) <= 540 && abs(lat) <= 90 }

    /// The largest of `edges` taken as unsigned (a negative edge is larger than any valid one),
    /// 0 for none: every edge is valid when this is below the vertex count less one.
    static func largestEdge(_ edges: UnsafeBufferPointer<Int32>) -> UInt32 {
        var largest: UInt32 = 0
        for e in edges { largest = Swift.max(largest, UInt32(bitPattern: e)) }
        return largest
    }

    /// Whether `body` is true for an edge listed in the global bands `bands` (each edge is its
    /// first vertex; in band order, stopping at the first true). An edge is handed over only
    /// when it is below the vertex count less one: the band edges may be a compiled file's
    /// bytes in place, checked at open but not proof against the file changing afterwards.
    @inline(__always)
    func anyBandEdge(_ bands: ClosedRange<Int>, _ body: (Int) -> Bool) -> Bool {
        let limit = UInt(Swift.max(0, coords.count / 2 - 1))            // also refuses a negative edge
        let from = Int(bandStarts[bands.lowerBound]), to = Int(bandStarts[bands.upperBound + 1])
        return bandEdges.withUnsafeBufferPointer { edges -> Bool in
            for k in from..<to {
                let v = Int(edges[k])
                if UInt(bitPattern: v) < limit && body(v) { return true }
            }
            return false
        }
    }

    var memoryBytes: Int {
        coords.capacityBytes + ringStarts.capacity * 4 + partRings.capacity * 4 + partBoxes.capacity * 8
            + partBandFirst.capacity * 4 + partBandCount.capacity * 4 + partBandScale.capacity * 8
            + bandStarts.capacity * 4 + bandEdges.capacityBytes + polygonParts.capacity * 4
    }

    /// Compiles a shape; returns its polygon index.
    mutating func append(_ shape: PolygonShape) -> Int32 {
        let vertexBase = Int32(coords.count / 2)
        let ringBase = Int32(ringStarts.count - 1)
        coords.append(contentsOf: shape.coordinates)
        for r in 1..<shape.ringStarts.count { ringStarts.append(vertexBase + Int32(shape.ringStarts[r])) }
        for p in 0..<shape.partCount {
            partRings.append(ringBase + Int32(shape.partStarts[p + 1]))
            let part = partRings.count - 2
            var w = Double.infinity, s = Double.infinity, e = -Double.infinity, n = -Double.infinity
            var edges = 0
            for r in Int(partRings[part])..<Int(partRings[part + 1]) {
                for v in Int(ringStarts[r])..<Int(ringStarts[r + 1]) {
                    let x = coords[2 * v], y = coords[2 * v + 1]
                    w = min(w, x); e = max(e, x); s = min(s, y); n = max(n, y)
                }
                edges += Int(ringStarts[r + 1] - ringStarts[r]) - 1
            }
            partBoxes.append(w); partBoxes.append(s); partBoxes.append(e); partBoxes.append(n)
            buildBands(part: part, edges: edges, south: s, north: n)
        }
        polygonParts.append(Int32(partRings.count - 1))
        return Int32(polygonCount - 1)
    }

    private mutating func buildBands(part: Int, edges: Int, south: Double, north: Double) {
        guard edges > PolygonTable.bandThreshold, north > south else {
            partBandFirst.append(Int32(bandStarts.count - 1)); partBandCount.append(0); partBandScale.append(0)
            return
        }
        let count = min(max(edges / PolygonTable.edgesPerBand, 2), 1 << 16)
        let scale = Double(count) / (north - south)
        let first = bandStarts.count - 1
        partBandFirst.append(Int32(first)); partBandCount.append(Int32(count)); partBandScale.append(scale)
        var sizes = [Int32](repeating: 0, count: count)
        let rings = Int(partRings[part])..<Int(partRings[part + 1])
        for r in rings {
            for v in Int(ringStarts[r])..<(Int(ringStarts[r + 1]) - 1) {
                let (b0, b1) = bandRange(v, south: south, scale: scale, count: count)
                for b in b0...b1 { sizes[b] += 1 }
            }
        }
        var starts = [Int32](repeating: 0, count: count + 1)
        let base = Int32(bandEdges.count)
        starts[0] = base
        for b in 0..<count { starts[b + 1] = starts[b] + sizes[b] }
        var edges = [Int32](repeating: 0, count: Int(starts[count] - base))
        var fill = starts[0..<count].map { Int($0 - base) }
        for r in rings {
            for v in Int(ringStarts[r])..<(Int(ringStarts[r + 1]) - 1) {
                let (b0, b1) = bandRange(v, south: south, scale: scale, count: count)
                for b in b0...b1 { edges[fill[b]] = Int32(v); fill[b] += 1 }
            }
        }
        bandEdges.append(contentsOf: edges)
        bandStarts.append(contentsOf: starts[1...])
    }

    @inline(__always)
    static func band(_ y: Double, south: Double, scale: Double, count: Int) -> Int {
        let f = (y - south) * scale
        if !(f > 0) { return 0 }
        if f >= Double(count - 1) { return count - 1 }
        return Int(f)
    }

    private func bandRange(_ v: Int, south: Double, scale: Double, count: Int) -> (Int, Int) {
        let y1 = coords[2 * v + 1], y2 = coords[2 * v + 3]
        return (PolygonTable.band(min(y1, y2), south: south, scale: scale, count: count),
                PolygonTable.band(max(y1, y2), south: south, scale: scale, count: count))
    }

    /// Parts of a polygon.
    @inline(__always)
    package func parts(of polygon: Int) -> Range<Int> { Int(polygonParts[polygon])..<Int(polygonParts[polygon + 1]) }

    /// The box of a part's vertices (`west <= east`: parts do not cross the antimeridian).
    @inline(__always)
    package func partBox(_ p: Int) -> (west: Double, south: Double, east: Double, north: Double) {
        (partBoxes[4 * p], partBoxes[4 * p + 1], partBoxes[4 * p + 2], partBoxes[4 * p + 3])
    }

    /// The longitude of the centre of a part's box (see `shift(forPartCentre:lon:)`).
    @inline(__always)
    package func partCentre(_ p: Int) -> Double { (partBoxes[4 * p] + partBoxes[4 * p + 2]) * 0.5 }

    /// The shape back from flat storage.
    func shape(of polygon: Int) -> PolygonShape {
        let parts = parts(of: polygon)
        let r0 = Int(partRings[parts.lowerBound]), r1 = Int(partRings[parts.upperBound])
        let v0 = Int(ringStarts[r0]), v1 = Int(ringStarts[r1])
        return PolygonShape(coordinates: Array(coords[(2 * v0)..<(2 * v1)]),
                            ringStarts: (r0...r1).map { Int(ringStarts[$0]) - v0 },
                            partStarts: (parts.lowerBound...parts.upperBound).map { Int(partRings[$0]) - r0 })!
    }

    /// The polygon's boxes for the R-tree: the union of its part boxes, or,
    /// for a multipolygon whose parts lie on both sides of the antimeridian
    /// (union wider than 180°), one box for the western parts and one for the
    /// eastern ones.
    func entryBoxes(of polygon: Int) -> (GeoBox, GeoBox?) {
        var all = GeoBox(west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)
        var wb = all, eb = all
        var hasW = false, hasE = false
        func grow(_ b: inout GeoBox, _ p: Int) {
            let pb = partBox(p)
            b.west = min(b.west, pb.west); b.south = min(b.south, pb.south)
            b.east = max(b.east, pb.east); b.north = max(b.north, pb.north)
        }
        for p in parts(of: polygon) {
            grow(&all, p)
            let pb = partBox(p)
            if pb.west + pb.east < 0 { grow(&wb, p); hasW = true } else { grow(&eb, p); hasE = true }
        }
        if hasW && hasE && all.east - all.west > 180 && (wb.east - wb.west) + (eb.east - eb.west) < all.east - all.west {
            return (wb, eb)
        }
        return (all, nil)
    }
}
