import GeofenceBase
import Foundation
import Geodesy

/// Distance from a point to a polygon's boundary, in metres.
///
/// Definition (the one tests reproduce with GEOS): for each part, project its
/// vertices into the local plane at the point `p` — `x = (λ - λp + shift) ·
/// N(φp) cos φp · π/180`, `y = (φ - φp) · M(φp) · π/180`, with `N`, `M` the
/// WGS84 prime-vertical and meridional radii of curvature at `p` and `shift`
/// the multiple of 360° that brings the part's box centre nearest to `λp`.
/// This map is affine, so the straight lon/lat edges stay straight. Let
/// `q*` be the point of the part's boundary (all its rings) nearest to the
/// origin in that plane; the part's distance is the WGS84 geodesic distance
/// from `p` to `q*` (Karney, `p` first). The polygon's boundary distance is the
/// minimum over parts.
///
/// Being a geodesic distance to a real boundary point, it is never below the
/// true geodesic distance to the boundary, and exceeds it only through the
/// choice of `q*` (second order: well under 1 mm at 1 km, ~1 cm at 10 km at
/// mid latitudes). At a pole the plane degenerates (`x ≡ 0`).
extension PolygonTable {
    /// Metres per degree of longitude (`kx` = N cos φ · π/180) and of latitude
    /// (`ky` = M · π/180) in the local plane at `lat` (`EllipsoidBounds.radii(lat:)`).
    @inline(__always)
    package static func planeScales(lat: Double) -> (kx: Double, ky: Double) {
        let r = EllipsoidBounds.radii(lat: lat)
        return (r.parallel * SphericalBounds.d2r, r.meridional * SphericalBounds.d2r)
    }

    /// The longitude shift (0 or ±360) bringing a part near `lon`, from the
    /// longitude of its box centre (`partCentre(_:)`).
    @inline(__always)
    package static func shift(forPartCentre centre: Double, lon: Double) -> Double {
        let d = centre - lon
        if d > 180 { return -360 }
        if d < -180 { return 360 }
        return 0
    }

    /// Boundary distance in metres (see the extension comment); `bound` lets
    /// the caller skip parts that cannot beat it (pass `.infinity` for the exact value).
    /// - Complexity: O(edges near the point) per part not pruned.
    func boundaryDistance(polygon: Int, lat: Double, lon: Double, cosLat: Double,
                          kx: Double, ky: Double, bound: Double = .infinity) -> Double {
        var best = bound
        var found = Double.infinity
        for p in parts(of: polygon) {
            let b = partBox(p)
            let lbAngle = SphericalBounds.angleLowerBound(lat: lat, lon: lon, cosLat: cosLat,
                                                          west: b.west, south: b.south, east: b.east, north: b.north)
            if SphericalBounds.geodesicLowerBound(angle: lbAngle) > best { continue }
            let q = nearestBoundaryPoint(part: p, lat: lat, lon: lon, kx: kx, ky: ky)
            let d = Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: q.lat, lon2: q.lon)
            if d < found { found = d }
            if d < best { best = d }
        }
        return found
    }

    /// The point of the part's boundary (all its rings) nearest to (`lat`,
    /// `lon`) in the local plane there (`kx`, `ky`: `planeScales(lat:)`), in
    /// the part's own coordinates, and its distance in that plane (metres).
    /// - Complexity: O(edges near the point); O(edges of the part) for parts without latitude bands.
    package func nearestBoundaryPoint(part: Int, lat: Double, lon: Double, kx: Double, ky: Double)
        -> (lat: Double, lon: Double, plane: Double) {
        let b = partBox(part)
        let shift = PolygonTable.shift(forPartCentre: partCentre(part), lon: lon)
        return coords.withUnsafeBufferPointer { c -> (lat: Double, lon: Double, plane: Double) in
            var bestD2 = Double.infinity, bestV = -1, bestT = 0.0
            @inline(__always) func visit(_ v: Int) {
                let x1 = (c[2 * v] + shift - lon) * kx, y1 = (c[2 * v + 1] - lat) * ky
                let x2 = (c[2 * v + 2] + shift - lon) * kx, y2 = (c[2 * v + 3] - lat) * ky
                let dx = x2 - x1, dy = y2 - y1
                let len2 = dx * dx + dy * dy
                var t = 0.0
                if len2 > 0 { t = min(1, max(0, -(x1 * dx + y1 * dy) / len2)) }
                let qx = x1 + t * dx, qy = y1 + t * dy
                let d2 = qx * qx + qy * qy
                if d2 < bestD2 { bestD2 = d2; bestV = v; bestT = t }
            }
            let bandCount = Int(partBandCount[part])
            if bandCount > 0 {
                let first = Int(partBandFirst[part]), scale = partBandScale[part]
                let home = PolygonTable.band(lat, south: b.south, scale: scale, count: bandCount)
                let slack = 1e-9 * (1 + abs(lat) + abs(b.south))
                @inline(__always) func scan(_ band: Int) {
                    _ = anyBandEdge((first + band)...(first + band)) { visit($0); return false }
                }
                scan(home)
                var up = home + 1, down = home - 1
                while up < bandCount || down >= 0 {
                    let best = bestD2.squareRoot()
                    // Unseen edges above `up` start at or above the band's floor, below `down` end at or below its ceiling.
                    let gapUp = up < bandCount ? max(0, (b.south + Double(up) / scale - lat) - slack) * ky : .infinity
                    let gapDown = down >= 0 ? max(0, (lat - (b.south + Double(down + 1) / scale)) - slack) * ky : .infinity
                    if gapUp >= best && gapDown >= best { break }
                    if gapUp <= gapDown { scan(up); up += 1 } else { scan(down); down -= 1 }
                }
            } else {
                for r in Int(partRings[part])..<Int(partRings[part + 1]) {
                    for v in Int(ringStarts[r])..<(Int(ringStarts[r + 1]) - 1) { visit(v) }
                }
            }
            let x1 = c[2 * bestV], y1 = c[2 * bestV + 1], x2 = c[2 * bestV + 2], y2 = c[2 * bestV + 3]
            let plane = bestD2.squareRoot()
            if bestT == 0 { return (y1, x1, plane) }
            if bestT == 1 { return (y2, x2, plane) }
            return (y1 + bestT * (y2 - y1), x1 + bestT * (x2 - x1), plane)
        }
    }
}
