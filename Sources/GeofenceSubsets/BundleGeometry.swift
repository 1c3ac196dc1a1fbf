import GeofenceBase
import GeofenceFences
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import Geodesy

/// The fences of a `CompiledFences` in flat arrays by slot, for the distance
/// bounds of tile bundles: circle centres and radii, polygon rings with part
/// boxes. Read-only after `init`, shared by all worker threads.
struct BundleGeometry: Sendable {
    // Per slot (polygon slots: radius -1, polygonOf >= 0).
    var lat: [Double] = []
    var lon: [Double] = []
    var cosLat: [Double] = []
    var radius: [Double] = []
    var polygonOf: [Int32] = []

    // Polygons: lon, lat pairs; ring → first vertex; part → first ring; polygon → first part (each + total).
    var coords: [Double] = []
    var ringStarts: [Int32] = [0]
    var partRings: [Int32] = [0]
    var polygonParts: [Int32] = [0]
    /// 4 per part: west, south, east, north of its vertices (as the index computes part boxes).
    var partBoxes: [Double] = []
    /// Per part: cos of the largest |latitude| of its box.
    var partCosMin: [Double] = []

    init(_ fences: [Fence]) {
        lat.reserveCapacity(fences.count); lon.reserveCapacity(fences.count)
        cosLat.reserveCapacity(fences.count); radius.reserveCapacity(fences.count); polygonOf.reserveCapacity(fences.count)
        for f in fences {
            switch f.shape {
            case .circle(let la, let lo, let r):
                lat.append(la); lon.append(lo); cosLat.append(cos(la * GeoBounds.d2r)); radius.append(r); polygonOf.append(-1)
            case .polygon(let polys):
                lat.append(0); lon.append(0); cosLat.append(1); radius.append(-1)
                polygonOf.append(Int32(polygonParts.count - 1))
                for rings in polys {
                    var w = Double.infinity, s = Double.infinity, e = -Double.infinity, n = -Double.infinity
                    for ring in rings {
                        for c in ring {
                            coords.append(c.lon); coords.append(c.lat)
                            w = min(w, c.lon); e = max(e, c.lon); s = min(s, c.lat); n = max(n, c.lat)
                        }
                        if let f = ring.first, let l = ring.last, f != l { coords.append(f.lon); coords.append(f.lat) }
                        ringStarts.append(Int32(coords.count / 2))
                    }
                    partRings.append(Int32(ringStarts.count - 1))
                    partBoxes += [w, s, e, n]
                    partCosMin.append(GeoBounds.cosMin(s, n))
                }
                polygonParts.append(Int32(partRings.count - 1))
            }
        }
    }

    @inline(__always) func isPolygon(_ slot: Int) -> Bool { polygonOf[slot] >= 0 }

    @inline(__always) func parts(of polygon: Int) -> Range<Int> { Int(polygonParts[polygon])..<Int(polygonParts[polygon + 1]) }

    /// The longitude shift (0 or ±360) the index applies to a part for a query
    /// at `lon` (`PolygonTable.shift(forPartCentre:lon:)`).
    @inline(__always)
    static func shift(partCentre centre: Double, lon: Double) -> Double {
        let d = centre - lon
        if d > 180 { return -360 }
        if d < -180 { return 360 }
        return 0
    }

    @inline(__always) func partCentre(_ p: Int) -> Double { (partBoxes[4 * p] + partBoxes[4 * p + 2]) * 0.5 }

    // MARK: Anchors (polygon upper bounds)

    /// A point on one part's boundary, in the part's own coordinates.
    struct Anchor: Sendable {
        var part: Int32
        var lon: Double
        var lat: Double
        /// Plane distance at the point it was chosen for (ordering only).
        var plane: Double
    }

    /// For each part of the polygon, the boundary point nearest to (`lat`,
    /// `lon`) in the local plane there (as the index measures); the
    /// `limit` nearest of them, nearest first.
    /// - Complexity: O(vertices of the polygon).
    func anchors(polygon: Int, lat: Double, lon: Double, limit: Int, into out: inout [Anchor]) {
        out.removeAll(keepingCapacity: true)
        let kx = GeoBounds.parallelRadius(lat) * GeoBounds.d2r
        let ky = GeoBounds.meridionalRadius(lat) * GeoBounds.d2r
        coords.withUnsafeBufferPointer { c in
            for p in parts(of: polygon) {
                let shift = BundleGeometry.shift(partCentre: partCentre(p), lon: lon)
                var best = Double.infinity, bx = 0.0, by = 0.0
                for r in Int(partRings[p])..<Int(partRings[p + 1]) {
                    for v in Int(ringStarts[r])..<(Int(ringStarts[r + 1]) - 1) {
                        let x1 = (c[2 * v] + shift - lon) * kx, y1 = (c[2 * v + 1] - lat) * ky
                        let x2 = (c[2 * v + 2] + shift - lon) * kx, y2 = (c[2 * v + 3] - lat) * ky
                        let dx = x2 - x1, dy = y2 - y1
                        let len2 = dx * dx + dy * dy
                        var t = 0.0
                        if len2 > 0 { t = min(1, max(0, -(x1 * dx + y1 * dy) / len2)) }
                        let qx = x1 + t * dx, qy = y1 + t * dy
                        let d2 = qx * qx + qy * qy
                        if d2 < best {
                            best = d2
                            bx = c[2 * v] + t * (c[2 * v + 2] - c[2 * v])
                            by = c[2 * v + 1] + t * (c[2 * v + 3] - c[2 * v + 1])
                        }
                    }
                }
                if best.isFinite { out.append(Anchor(part: Int32(p), lon: bx, lat: by, plane: best.squareRoot())) }
            }
        }
        if out.count > limit {
            out.sort { $0.plane < $1.plane }
            out.removeLast(out.count - limit)
        }
    }
}
