import GeofenceBase
import Geodesy

/// Whether any point of a polygon's boundary lies in a lon/lat window: the
/// cheap, conservative early-out of accuracy and margin decisions. A window
/// holding every position within `t` metres of a point (`SphericalBounds.capBox`)
/// that meets no edge proves the boundary distance is above `t`, without
/// locating the nearest edge or computing a geodesic.
extension PolygonTable {
    /// Whether some edge of the polygon has its lon/lat box meeting the window
    /// (`west > east`: crossing the antimeridian). False proves that no
    /// boundary point lies in the window; true proves nothing.
    /// - Complexity: O(edges in the latitude bands the window spans) per part whose box meets it.
    func boundaryMayMeet(polygon: Int, window w: GeoBox) -> Bool {
        let crosses = w.west > w.east
        @inline(__always) func lonMeets(_ lo: Double, _ hi: Double) -> Bool {
            crosses ? (hi >= w.west || lo <= w.east) : (hi >= w.west && lo <= w.east)
        }
        for part in parts(of: polygon) {
            let b = partBox(part)
            guard b.south <= w.north && b.north >= w.south && lonMeets(b.west, b.east) else { continue }
            let hit = coords.withUnsafeBufferPointer { c -> Bool in
                @inline(__always) func meets(_ v: Int) -> Bool {
                    let x1 = c[2 * v], y1 = c[2 * v + 1], x2 = c[2 * v + 2], y2 = c[2 * v + 3]
                    return min(y1, y2) <= w.north && max(y1, y2) >= w.south && lonMeets(min(x1, x2), max(x1, x2))
                }
                let bandCount = Int(partBandCount[part])
                if bandCount > 0 {
                    let first = Int(partBandFirst[part]), scale = partBandScale[part]
                    // Every edge with a point at latitude y is listed in band(y), and band() is monotone.
                    let b0 = PolygonTable.band(Swift.max(w.south, b.south), south: b.south, scale: scale, count: bandCount)
                    let b1 = PolygonTable.band(Swift.min(w.north, b.north), south: b.south, scale: scale, count: bandCount)
                    if anyBandEdge((first + b0)...(first + b1), meets) { return true }
                } else {
                    for r in Int(partRings[part])..<Int(partRings[part + 1]) {
                        for v in Int(ringStarts[r])..<(Int(ringStarts[r + 1]) - 1) where meets(v) { return true }
                    }
                }
                return false
            }
            if hit { return true }
        }
        return false
    }
}
