import GeofenceKit
import GeofenceTestSupport
import CGEOS
import Foundation
import Glibc

/// GEOS's STRtree (TemplateSTRtree behind the C API since GEOS 3.10) as the
/// baseline index: every fence's lon/lat box (the same boxes our index uses,
/// `FenceIndex.bounds(of:)`; a box crossing the antimeridian is inserted as two
/// rectangles) inserted as a GEOS rectangle geometry with the fence slot as the
/// item pointer. Queries take candidates from `GEOSSTRtree_query_r`, then decide
/// with the same exact test as the brute force (haversine bound, Karney near the edge).
///
/// Nearest-N: `GEOSSTRtree_nearest_generic_r` returns one item and prunes by
/// planar envelope distance in degrees, so it can give neither N answers nor
/// geodesic metres. The fair N-nearest over an STRtree is iterative expansion:
/// query the box of the cap of radius R around the point (split at the
/// antimeridian, full longitude range at a pole), compute exact distances of
/// the candidates (same two-pass bound/exact selection as the brute force), and
/// accept when at least N candidates lie within R (any fence within R has a box
/// meeting the cap box, so nothing nearer was missed); else double R. The first
/// R is the median N-th distance of the warm-up queries (measured, not guessed).
final class GEOSBaseline {
    let handle: GEOSContextHandle_t
    let tree: OpaquePointer
    /// Rectangles inserted; GEOS keeps pointers to them, so they live as long as the tree.
    private var rectangles: [OpaquePointer] = []
    let nodeCapacity: Int
    var collected: [Int32] = []

    init(index: FenceIndex, slots: Int, nodeCapacity: Int = 10) {
        handle = GEOS_init_r()
        self.nodeCapacity = nodeCapacity
        // returns NULL on failure
        guard let t = GEOSSTRtree_create_r(handle, nodeCapacity) else { fatalError("GEOSSTRtree_create_r failed") }
        tree = t
        rectangles.reserveCapacity(slots + slots / 100)
        for s in 0..<Int32(slots) {
            let (a, b) = index.bounds(of: s)
            insert(a, slot: s)
            if let b { insert(b, slot: s) }
        }
        // The tree is built on the first query; do it now so building is timed here.
        queryBox(west: 0, south: 0, east: 0, north: 0)
        collected.removeAll()
    }

    private func insert(_ box: GeoBox, slot: Int32) {
        if box.crossesAntimeridian {
            add(west: box.west, south: box.south, east: 180, north: box.north, slot: slot)
            add(west: -180, south: box.south, east: box.east, north: box.north, slot: slot)
        } else {
            add(west: box.west, south: box.south, east: box.east, north: box.north, slot: slot)
        }
    }

    private func add(west: Double, south: Double, east: Double, north: Double, slot: Int32) {
        // returns NULL on exception
        guard let g = GEOSGeom_createRectangle_r(handle, west, south, east, north) else { fatalError("GEOSGeom_createRectangle_r failed") }
        rectangles.append(g)
        GEOSSTRtree_insert_r(handle, tree, g, UnsafeMutableRawPointer(bitPattern: Int(slot) + 1))
    }

    deinit {
        GEOSSTRtree_destroy_r(handle, tree)
        for g in rectangles { GEOSGeom_destroy_r(handle, g) }
        GEOS_finish_r(handle)
    }

    /// A point geometry for queries (made before timing; freed with `destroy`).
    func point(_ p: Point) -> OpaquePointer {
        // returns NULL on exception
        guard let g = GEOSGeom_createPointFromXY_r(handle, p.lon, p.lat) else { fatalError("GEOSGeom_createPointFromXY_r failed") }
        return g
    }

    func destroy(_ g: OpaquePointer) { GEOSGeom_destroy_r(handle, g) }

    /// Candidate slots whose rectangles meet the geometry's envelope (into `collected`; may repeat a slot).
    @inline(__always)
    func query(_ g: OpaquePointer) {
        collected.removeAll(keepingCapacity: true)
        withUnsafeMutablePointer(to: &collected) { out in
            GEOSSTRtree_query_r(handle, tree, g, { item, user in
                let slot = Int32(Int(bitPattern: item) - 1)
                user!.assumingMemoryBound(to: [Int32].self).pointee.append(slot)
            }, out)
        }
    }

    /// Candidates meeting a lon/lat box (not crossing the antimeridian); appended to `collected`.
    @discardableResult
    func queryBox(west: Double, south: Double, east: Double, north: Double) -> Int {
        // returns NULL on exception
        guard let g = GEOSGeom_createRectangle_r(handle, west, south, east, north) else { fatalError("GEOSGeom_createRectangle_r failed") }
        defer { GEOSGeom_destroy_r(handle, g) }
        let before = collected.count
        withUnsafeMutablePointer(to: &collected) { out in
            GEOSSTRtree_query_r(handle, tree, g, { item, user in
                let slot = Int32(Int(bitPattern: item) - 1)
                user!.assumingMemoryBound(to: [Int32].self).pointee.append(slot)
            }, out)
        }
        return collected.count - before
    }

    /// Fences containing the point: STRtree candidates, then the exact test.
    @inline(__always)
    func containing(_ g: OpaquePointer, _ p: Point, exact: BruteForce, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        query(g)
        let cosP = cos(p.lat * BruteForce.d2r)
        for s in collected where exact.contains(Int(s), p, cosP: cosP) { out.append(s) }
        if out.count > 1 {  // a fence split at the antimeridian can come twice
            out.sort()
            var k = 1
            for i in 1..<out.count where out[i] != out[k - 1] { out[k] = out[i]; k += 1 }
            out.removeLast(out.count - k)
        }
    }

    /// Nearest-N by iterative expansion (see the type's documentation).
    func nearest(_ n: Int, _ p: Point, startRadius: Double, exact: BruteForce,
                 into out: inout [Neighbor], candidates: inout [Int32]) -> Int {
        var r = max(startRadius, 1)
        var rounds = 0
        while true {
            rounds += 1
            collected.removeAll(keepingCapacity: true)
            let angle = BruteForce.capAngle(metres: r)
            let dlat = angle / BruteForce.d2r
            let south = max(-90, p.lat - dlat), north = min(90, p.lat + dlat)
            var full = angle >= Double.pi / 2 || north >= 90 || south <= -90
            var dlon = 180.0
            if !full {
                let s = sin(angle) / cos(p.lat * BruteForce.d2r)
                if s >= 1 { full = true } else { dlon = asin(s) / BruteForce.d2r * (1 + 1e-9) }
            }
            if full || dlon >= 180 {
                queryBox(west: -180, south: south, east: 180, north: north)
            } else {
                let w = p.lon - dlon, e = p.lon + dlon
                if w < -180 {
                    queryBox(west: w + 360, south: south, east: 180, north: north)
                    queryBox(west: -180, south: south, east: e, north: north)
                } else if e > 180 {
                    queryBox(west: w, south: south, east: 180, north: north)
                    queryBox(west: -180, south: south, east: e - 360, north: north)
                } else {
                    queryBox(west: w, south: south, east: e, north: north)
                }
            }
            candidates.removeAll(keepingCapacity: true)
            candidates.append(contentsOf: collected)
            if candidates.count > 1 {
                candidates.sort()
                var k = 1
                for i in 1..<candidates.count where candidates[i] != candidates[k - 1] { candidates[k] = candidates[i]; k += 1 }
                candidates.removeLast(candidates.count - k)
            }
            let everything = full && south <= -90 && north >= 90
            if candidates.count >= n || everything {
                exact.nearest(n, p, among: candidates, into: &out)
                if everything || (out.count == n && out[n - 1].distance <= r) { return rounds }
            }
            r *= 2
        }
    }
}
