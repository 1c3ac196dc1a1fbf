import GeofenceBase
import Geodesy

/// Point in polygon, boundary inclusive, planar in lon/lat degrees: GEOS's
/// `RayCrossingCounter` rules with an exact orientation predicate, over the
/// edges of the point's latitude band only.
extension PolygonTable {
    /// Whether the polygon covers the point (inside or on the boundary; holes excluded).
    /// - Complexity: O(edges in the point's band) per part whose box holds the point.
    func covers(polygon: Int, lat: Double, lon: Double) -> Bool {
        for p in parts(of: polygon) where partCovers(p, lat: lat, lon: lon) { return true }
        return false
    }

    /// Whether one part (shell minus holes) covers the point.
    func partCovers(_ part: Int, lat py: Double, lon px: Double) -> Bool {
        let b = partBox(part)
        guard py >= b.south && py <= b.north && px >= b.west && px <= b.east else { return false }
        return coords.withUnsafeBufferPointer { c -> Bool in
            var crossings = 0
            // Returns true when the point is on the edge (covered).
            @inline(__always) func count(_ v: Int) -> Bool {
                let x1 = c[2 * v], y1 = c[2 * v + 1], x2 = c[2 * v + 2], y2 = c[2 * v + 3]
                if x1 < px && x2 < px { return false }
                if px == x2 && py == y2 { return true }
                if y1 == py && y2 == py {
                    return px >= min(x1, x2) && px <= max(x1, x2)
                }
                if (y1 > py && y2 <= py) || (y2 > py && y1 <= py) {
                    var o = Orientation.sign(x1, y1, x2, y2, px, py)
                    if o == 0 { return true }
                    if y2 < y1 { o = -o }
                    if o > 0 { crossings += 1 }
                }
                return false
            }
            let bandCount = Int(partBandCount[part])
            if bandCount > 0 {
                let band = Int(partBandFirst[part]) + PolygonTable.band(py, south: b.south, scale: partBandScale[part], count: bandCount)
                if anyBandEdge(band...band, count) { return true }
            } else {
                for r in Int(partRings[part])..<Int(partRings[part + 1]) {
                    for v in Int(ringStarts[r])..<(Int(ringStarts[r + 1]) - 1) where count(v) { return true }
                }
            }
            return crossings & 1 == 1
        }
    }
}
