import GeofenceBase
import GeofenceFences
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import Geodesy

/// Tile bundles (docs/subsets.md): for a Web Mercator tile, every fence that
/// can be among the `k` nearest — by the planner's distance, `FenceIndex.distance`
/// (0 inside, else the distance to the boundary) — for *some* point of the tile.
///
/// ## The bound
/// Write d(p, F) for that distance, D_k(p) for the k-th smallest over all fences.
/// The tile is split into s × s cells. For each cell C:
///
/// 1. **An upper bound U_C ≥ max over p ∈ C of D_k(p).** For any k fences S,
///    D_k(p) ≤ max over F ∈ S of d(p, F). With ub(C, F) ≥ max over p ∈ C of
///    d(p, F), U_C = the k-th smallest ub(C, F) over a pool of fences (the
///    `poolFactor`·k nearest to the tile centre; in dense tiles, where that
///    pool lies within twice the tile radius, the k nearest to the cell's own
///    centre) is such a bound.
///    - circle (centre x, radius r): d(p, F) = max(0, g(p, x) − r) ≤
///      max(0, g(c, x) + R_C − r) by the triangle inequality of the geodesic
///      distance g, with c the cell centre and R_C ≥ g(c, p) for all p ∈ C
///      (`BundleCell.radius`); g(c, x) is bounded above with the sphere bound.
///    - polygon: the index measures g(p, q*), q* the boundary point nearest to
///      p in its local plane (`PolygonTable+Distance.swift`). For any boundary
///      point v of the same part, |P_p(q*)| ≤ |P_p(v)|, and the straight lon/lat
///      segment p→q* is a path of true length ≤ σ·|P_p(q*)|, σ the largest
///      ratio of the true to the plane's metric over the latitudes it crosses
///      (within |P_p(v)| / ky of p's). So d(p, F) ≤ σ · max over p ∈ C of
///      |P_p(v)|, with v an anchor: the plane-nearest boundary point of a part
///      at the tile centre. No triangle inequality of the local-plane distance
///      is needed.
/// 2. **The cell's bundle** is every fence with lb(C, F) ≤ U_C, where lb(C, F) ≤
///    min over p ∈ C of d(p, F): a circle's lb is the sphere-bound lower bound of
///    the distance from its centre to the cell box, minus r; a polygon's is 0 when
///    a cell corner is covered, else the smallest box-to-box lower bound over
///    its edges (the true distance to the region is never more than the index's d,
///    which measures to a real boundary point).
///
/// If F is among the k nearest to some p ∈ C, then lb(C, F) ≤ d(p, F) ≤ D_k(p) ≤ U_C,
/// so F is in C's bundle; the tile's bundle is the union over its cells. Every
/// step rounds outward; the sphere bound is the only empirical constant (the
/// same one the index uses, see `Geodesy.Sphere`).
///
/// Compared with the centre-only bound {F : d(c, F) ≤ D_k(c) + 2R} this uses the
/// box distance instead of d(c, F) − R, and small cells (R_C ≪ R), so bundles
/// approach the exact union of the k-nearest sets.
public struct TileBundler: Sendable {
    /// The whole fence set; bundles hold slots of it.
    public let compiled: CompiledFences
    let geometry: BundleGeometry
    /// Fences per device (the planner's k; the bundle holds the k nearest everywhere in the tile).
    public let k: Int
    /// A tile is omitted when no fence comes within this many metres of it.
    public let reach: Double
    /// Cells per tile side for the bound (more cells: smaller bundles, more work).
    public let split: Int
    /// The pool for the cell bounds: the `poolFactor · k` nearest fences to the tile centre.
    public let poolFactor: Int

    /// The default split: at zoom 10 over the 28k airports, 8 × 8 cells give bundles of
    /// 1.66 k against 2.16 k for 2 × 2 and 1.61 k for 16 × 16 (at 3× the work).
    public static let defaultSplit = 8
    static let maxAnchors = 4

    /// A bundler for `compiled`; `reach` in metres, `split` cells per tile side (at zoom 0
    /// and 1 raised to 3 and 2), `poolFactor` 2 by default. Reads the index's compiled geometry.
    /// - Precondition: `k` ≥ 1, `reach` ≥ 0, `split` ≥ 1, `poolFactor` ≥ 1.
    /// - Complexity: O(polygon parts).
    public init(compiled: CompiledFences, k: Int, reach: Double, split: Int = TileBundler.defaultSplit, poolFactor: Int = 2) {
        precondition(k >= 1 && reach >= 0 && split >= 1 && poolFactor >= 1)
        self.compiled = compiled
        self.geometry = BundleGeometry(compiled.index)
        self.k = k
        self.reach = reach
        self.split = split
        self.poolFactor = poolFactor
    }

    /// One tile's bundle.
    public struct Bundle: Sendable, Hashable {
        /// The tile the bundle serves.
        public var tile: Tile
        /// Slots of `compiled`, by identifier (bytewise UTF-8).
        public var slots: [Int32]
        /// Cells per side used.
        public var split: Int
        /// The k-th nearest distance at the tile centre (metres; nil when the whole set is taken).
        public var kthAtCentre: Double?
        /// The largest cell bound U_C (metres; nil when the whole set is taken).
        public var bound: Double?
    }

    /// Per-thread working memory.
    public struct Scratch {
        var nearest = NearestScratch()
        var pool: [Neighbor] = []
        /// The compiled geometry of each pool entry.
        var poolShapes: [FenceIndex.CompiledGeometry] = []
        var cellPool: [Neighbor] = []
        var anchors: [[BundleGeometry.Anchor]] = []
        var anchorBuffer: [BundleGeometry.Anchor] = []
        var cells: [BundleCell] = []
        var cellBound: [Double] = []
        var ub: [Double] = []
        var candidates: [Int32] = []
        /// Unit vectors of the pool's circle centres (x, y, z per pool entry).
        var poolVectors: [Double] = []
        /// Cell corner distances by tile row (they depend on the row only): key (z << 7 | split) << 32 | y.
        var rowRadii: [Int: [Double]] = [:]
        /// `segmentBound` by cell row and plane distance rounded up to a 1% step.
        var segmentBounds: [Int: Double] = [:]
        /// Empty working memory; it grows on first use and is reused by later tiles.
        public init() {}
    }

    // MARK: Bundles

    /// The bundle of a tile, or nil when no fence comes within `reach` of it (omitted).
    /// - Complexity: one nearest query, one box query and O(s² · (pool + candidates))
    ///   bound evaluations (polygons: O(edges near the tile) each).
    public func bundle(for tile: Tile, scratch: inout Scratch) -> Bundle? {
        let index = compiled.index
        let b = tile.box
        let whole = BundleCell(west: b.west, south: b.south, east: b.east, north: b.north)
        guard index.count > 0, isReachable(whole) else { return nil }
        if index.count <= k {
            return Bundle(tile: tile, slots: sortedByID(index.liveSlots), split: 1, kthAtCentre: nil, bound: nil)
        }

        // The pool and its anchors.
        let poolSize = min(index.count, max(k, poolFactor * k))
        index.nearest(poolSize, lat: whole.lat, lon: whole.lon, scratch: &scratch.nearest, into: &scratch.pool)
        let kth = scratch.pool[k - 1].distance
        while scratch.anchors.count < scratch.pool.count { scratch.anchors.append([]) }
        scratch.poolVectors.removeAll(keepingCapacity: true)
        scratch.poolShapes.removeAll(keepingCapacity: true)
        for (i, nb) in scratch.pool.enumerated() {
            let shape = index.compiledGeometry(of: nb.slot)
            scratch.poolShapes.append(shape)
            switch shape {
            case .circle(let lat, let lon, _, _):
                let v = TileBundler.unitVector(lat: lat, lon: lon)
                scratch.poolVectors.append(v.0); scratch.poolVectors.append(v.1); scratch.poolVectors.append(v.2)
            case .polygon(let poly):
                scratch.poolVectors.append(0); scratch.poolVectors.append(0); scratch.poolVectors.append(0)
                geometry.anchors(polygon: poly, lat: whole.lat, lon: whole.lon, limit: TileBundler.maxAnchors,
                                 into: &scratch.anchorBuffer)
                scratch.anchors[i] = scratch.anchorBuffer
            }
        }

        // Cells and their bounds U_C.
        let s = splitFor(tile: tile)
        // Zoom, split and tile row: every cell row of it has the same latitudes in any column.
        let rowKey = (tile.z << 7 | s) << 32 | tile.y
        if scratch.rowRadii[rowKey]?.count != s {
            if scratch.rowRadii.count > 4096 { scratch.rowRadii.removeAll(keepingCapacity: true) }
            scratch.rowRadii[rowKey] = TileBundler.rowRadii(b, split: s)
        }
        makeCells(b, split: s, radii: scratch.rowRadii[rowKey]!, rowKey: rowKey, into: &scratch.cells)
        scratch.cellBound.removeAll(keepingCapacity: true)
        var umax = 0.0
        // Dense tiles: the pool (nearest to the tile centre) does not reach the outer cells'
        // own nearest fences; ask the index at every cell centre instead.
        let perCell = scratch.pool.count < index.count && scratch.pool[scratch.pool.count - 1].distance < 2 * whole.radius
        for cell in scratch.cells {
            scratch.ub.removeAll(keepingCapacity: true)
            if perCell {
                index.nearest(k, lat: cell.lat, lon: cell.lon, scratch: &scratch.nearest, into: &scratch.cellPool)
                var u = 0.0
                for nb in scratch.cellPool {
                    if case .polygon(let poly) = index.compiledGeometry(of: nb.slot) {
                        geometry.anchors(polygon: poly, lat: cell.lat, lon: cell.lon, limit: TileBundler.maxAnchors, into: &scratch.anchorBuffer)
                        u = max(u, polygonUpperBound(scratch.anchorBuffer, cell, cache: &scratch.segmentBounds))
                    } else {
                        // d(p) ≤ max(0, g(c, x) + R_C − r) ≤ d(c) + R_C, with d(c) exact from the index.
                        u = max(u, (nb.distance + cell.radius) * (1 + 1e-12) + 1e-6)
                    }
                }
                scratch.cellBound.append(u)
                umax = max(umax, u)
                continue
            }
            let c = TileBundler.unitVector(lat: cell.lat, lon: cell.lon)
            for (i, shape) in scratch.poolShapes.enumerated() {
                switch shape {
                case .polygon:
                    scratch.ub.append(polygonUpperBound(scratch.anchors[i], cell, cache: &scratch.segmentBounds))
                case .circle(_, _, _, let radius):
                    // Central angle from the chord between unit vectors (one asin).
                    let dx = scratch.poolVectors[3 * i] - c.0, dy = scratch.poolVectors[3 * i + 1] - c.1, dz = scratch.poolVectors[3 * i + 2] - c.2
                    let angle = 2 * asin(min(1, 0.5 * (dx * dx + dy * dy + dz * dz).squareRoot()))
                    let d = SphericalBounds.geodesicUpperBound(angle: angle) + 1e-6
                    scratch.ub.append(max(0, d + cell.radius - radius) * (1 + 1e-12) + 1e-6)
                }
            }
            let u = kthSmallest(&scratch.ub, k)
            scratch.cellBound.append(u)
            umax = max(umax, u)
        }

        // Candidates: fences meeting the tile box grown by the largest bound; kept when some cell may reach them.
        scratch.candidates.removeAll(keepingCapacity: true)
        let query = GeoBounds.expanded(west: b.west, south: b.south, east: b.east, north: b.north, by: umax)
        index.forEachIntersecting(query) { slot in
            let shape = index.compiledGeometry(of: slot)
            if fenceMayReach(slot, shape, whole, within: umax) {
                for (c, cell) in scratch.cells.enumerated() where fenceMayReach(slot, shape, cell, within: scratch.cellBound[c]) {
                    scratch.candidates.append(slot)
                    break
                }
            }
            return true
        }
        return Bundle(tile: tile, slots: sortedByID(scratch.candidates), split: s, kthAtCentre: kth, bound: umax)
    }

    /// The bundle of a tile with fresh scratch memory (nil when omitted, as
    /// ``bundle(for:scratch:)``).
    /// - Complexity: as ``bundle(for:scratch:)``, plus allocating the scratch memory.
    public func bundle(for tile: Tile) -> Bundle? {
        var scratch = Scratch()
        return bundle(for: tile, scratch: &scratch)
    }

    /// Whether some fence comes within `reach` of the rectangle (a lower-bound test:
    /// false means certainly none).
    func isReachable(_ cell: BundleCell) -> Bool {
        if reach >= GeoBounds.maxDistance { return compiled.index.count > 0 }
        var found = false
        let query = GeoBounds.expanded(west: cell.west, south: cell.south, east: cell.east, north: cell.north, by: reach)
        compiled.index.forEachIntersecting(query) { slot in
            if fenceMayReach(slot, compiled.index.compiledGeometry(of: slot), cell, within: reach) { found = true; return false }
            return true
        }
        return found
    }

    /// Cells per side: `split`, raised to keep every cell under 90° wide.
    func splitFor(tile: Tile) -> Int {
        max(split, tile.z == 0 ? 3 : (tile.z == 1 ? 2 : 1))
    }

    /// Latitude bounds of cell row `r` of `s` in the box.
    @inline(__always)
    static func cellRow(_ b: GeoBox, _ r: Int, _ s: Int) -> (south: Double, north: Double) {
        let north = r == 0 ? b.north : b.north - (b.north - b.south) * Double(r) / Double(s)
        let south = r == s - 1 ? b.south : b.north - (b.north - b.south) * Double(r + 1) / Double(s)
        return (south, north)
    }

    /// The corner distance bound of each cell row (the same for every cell of a row, and every tile of a tile row).
    static func rowRadii(_ b: GeoBox, split s: Int) -> [Double] {
        let width = (b.east - b.west) / Double(s)
        return (0..<s).map { r in
            let row = cellRow(b, r, s)
            return BundleCell.radius(halfWidth: width * 0.5, south: row.south, north: row.north)
        }
    }

    func makeCells(_ b: GeoBox, split s: Int, radii: [Double], rowKey: Int, into cells: inout [BundleCell]) {
        cells.removeAll(keepingCapacity: true)
        let width = (b.east - b.west) / Double(s)
        // Rows in Mercator-equal steps would also do; plain latitude steps keep the arithmetic simple.
        for r in 0..<s {
            let (south, north) = TileBundler.cellRow(b, r, s)
            let radius = radii[r]
            for c in 0..<s {
                let west = c == 0 ? b.west : b.west + width * Double(c)
                let east = c == s - 1 ? b.east : b.west + width * Double(c + 1)
                var cell = BundleCell(west: west, south: south, east: east, north: north, radius: radius)
                cell.rowKey = rowKey << 6 | r
                cells.append(cell)
            }
        }
    }

    // MARK: Bounds

    /// ub(C, F) for a polygon: a bound of the true length of the lon/lat
    /// segment p → q*, given |P_p(q*)| ≤ P, the largest plane distance from a
    /// point of the cell to an anchor (minimised over the anchors; see the type comment).
    func polygonUpperBound(_ anchors: [BundleGeometry.Anchor], _ cell: BundleCell, cache: inout [Int: Double]) -> Double {
        var plane = Double.infinity
        for a in anchors {
            let centre = geometry.polygons.partCentre(Int(a.part))
            let dp = max(abs(a.lat - cell.south), abs(a.lat - cell.north))
            var dl = 0.0
            for shift in [PolygonTable.shift(forPartCentre: centre, lon: cell.west), PolygonTable.shift(forPartCentre: centre, lon: cell.east)] {
                dl = max(dl, max(abs(a.lon + shift - cell.west), abs(a.lon + shift - cell.east)))
            }
            let x = dl * cell.kxMax, y = dp * cell.kyMax
            plane = min(plane, (x * x + y * y).squareRoot())
        }
        guard plane.isFinite, plane < GeoBounds.maxDistance else { return GeoBounds.maxDistance }
        // The bound grows with the plane distance: evaluate it at the next step of a 1% grid, once per cell row.
        let step = max(0, Int((log(max(plane, 1)) / log(1.01)).rounded(.up)))
        let rounded = pow(1.01, Double(step))
        let key = cell.rowKey << 12 | step
        let bound: Double
        if let b = cache[key] { bound = b } else {
            if cache.count > 1 << 20 { cache.removeAll(keepingCapacity: true) }
            bound = TileBundler.segmentBound(plane: max(rounded, plane), cell)
            cache[key] = bound
        }
        return min(bound * (1 + 1e-9) + 1e-6, GeoBounds.maxDistance)
    }

    /// The largest true length of a straight lon/lat segment from a point p of
    /// the cell to a point q with |P_p(q)| ≤ `plane` (P_p: the index's local
    /// plane at p, kx = N cos φ, ky = M per degree).
    ///
    /// The segment's latitudes lie between p's and q's, |Δφ| ≤ P / ky, and its
    /// length is at most sqrt((|Δλ| · max N cos φ)² + (|Δφ| · max M)²) over
    /// those latitudes. Simplest bound: σ · P, σ the largest ratio of the true
    /// to the plane's metric over the whole latitude band. Tighter when σ is
    /// large (high latitudes, long distances): split the range of Δφ into
    /// pieces; on each, |Δλ| ≤ sqrt(P² − (Δφ_min ky)²) / kx and the band is
    /// only as wide as the piece reaches — a segment that reaches far towards
    /// the equator has little longitude left.
    static func segmentBound(plane p: Double, _ cell: BundleCell) -> Double {
        let d2r = SphericalBounds.d2r
        let reach = p / cell.kyMin
        let band = SphericalBounds.absRange(max(-90, cell.south - reach), min(90, cell.north + reach))
        let sigma = max(GeoBounds.parallelRadius(band.min) / cell.parallelMin,
                        GeoBounds.meridionalRadius(band.max) / cell.meridionalMin)
        var best = sigma * p
        guard sigma > 1.02 else { return best }
        let kxMin = cell.parallelMin * d2r, kyMin = cell.kyMin
        let pieces = 16
        var refined = 0.0
        for i in 0..<pieces {
            let a = -reach + 2 * reach * Double(i) / Double(pieces)
            let b = i == pieces - 1 ? reach : -reach + 2 * reach * Double(i + 1) / Double(pieces)
            let dphiMax = max(abs(a), abs(b))
            let dphiMin = (a <= 0 && b >= 0) ? 0 : min(abs(a), abs(b))
            let rest = max(0, p * p - (dphiMin * kyMin) * (dphiMin * kyMin))
            let dlon2 = rest / (kxMin * kxMin)
            let lats = SphericalBounds.absRange(max(-90, cell.south + min(0, a)), min(90, cell.north + max(0, b)))
            let ax = GeoBounds.parallelRadius(lats.min) * d2r, by = GeoBounds.meridionalRadius(lats.max) * d2r
            refined = max(refined, (dlon2 * ax * ax + dphiMax * dphiMax * by * by).squareRoot())
        }
        best = min(best, refined)
        return best
    }

    /// Whether lb(C, F) ≤ `limit`: the fence may come within `limit` metres of the cell
    /// (`shape`: the slot's `FenceIndex.compiledGeometry(of:)`).
    func fenceMayReach(_ slot: Int32, _ shape: FenceIndex.CompiledGeometry, _ cell: BundleCell, within limit: Double) -> Bool {
        let poly: Int
        switch shape {
        case .circle(let lat, let lon, let cosLat, let radius):
            return cell.lowerDistance(lat: lat, lon: lon, cosLat: cosLat) - radius <= limit
        case .polygon(let p):
            poly = p
        }
        if compiled.index.contains(slot, lat: cell.north, lon: cell.west) { return true }
        let g = geometry.polygons, cosMins = geometry.partCosMin
        return g.coords.withUnsafeBufferPointer { c -> Bool in
            for p in g.parts(of: poly) {
                let b = g.partBox(p)
                if cell.lowerDistance(west: b.west, south: b.south, east: b.east, north: b.north, cosMin: cosMins[p]) > limit { continue }
                for r in Int(g.partRings[p])..<Int(g.partRings[p + 1]) {
                    for v in Int(g.ringStarts[r])..<(Int(g.ringStarts[r + 1]) - 1) {
                        let x1 = c[2 * v], y1 = c[2 * v + 1], x2 = c[2 * v + 2], y2 = c[2 * v + 3]
                        let s = min(y1, y2), n = max(y1, y2)
                        if cell.lowerDistance(west: min(x1, x2), south: s, east: max(x1, x2), north: n,
                                              cosMin: SphericalBounds.cosMin(s, n)) <= limit { return true }
                    }
                }
            }
            return false
        }
    }

    /// The k-th smallest value (1-based); reorders `values` (quickselect).
    func kthSmallest(_ values: inout [Double], _ k: Int) -> Double {
        values.withUnsafeMutableBufferPointer { v -> Double in
            var lo = 0, hi = v.count - 1
            let target = k - 1
            while lo < hi {
                let pivot = v[(lo + hi) >> 1]
                var i = lo, j = hi
                while i <= j {
                    while v[i] < pivot { i += 1 }
                    while v[j] > pivot { j -= 1 }
                    if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
                }
                if target <= j { hi = j } else if target >= i { lo = i } else { break }
            }
            return v[target]
        }
    }

    /// A point of the unit sphere from geodetic latitude and longitude (the haversine's sphere).
    @inline(__always)
    static func unitVector(lat: Double, lon: Double) -> (Double, Double, Double) {
        let p = lat * SphericalBounds.d2r, l = lon * SphericalBounds.d2r
        let c = cos(p)
        return (c * cos(l), c * sin(l), sin(p))
    }

    func sortedByID(_ slots: [Int32]) -> [Int32] {
        let rank = compiled.options
        return slots.sorted { rank.idRank($0) < rank.idRank($1) }
    }
}
