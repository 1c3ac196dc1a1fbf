import GeofenceBase
import Geodesy

/// Exact (planar lon/lat) intersection of a polygon with a lon/lat rectangle.
extension PolygonTable {
    /// Whether the polygon (closed) intersects the closed rectangle
    /// `[west, east] × [south, north]` (`west <= east`).
    /// - Complexity: O(vertices) of the parts whose box meets the rectangle.
    func intersects(polygon: Int, west: Double, south: Double, east: Double, north: Double) -> Bool {
        var any = false
        for p in parts(of: polygon) {
            let b = partBox(p)
            guard b.west <= east && b.east >= west && b.south <= north && b.north >= south else { continue }
            any = true
            if partTouchesRectangle(p, west: west, south: south, east: east, north: north) { return true }
        }
        // No vertex inside and no edge crossing: the rectangle is inside the polygon or disjoint from it.
        return any && covers(polygon: polygon, lat: south, lon: west)
    }

    private func partTouchesRectangle(_ part: Int, west: Double, south: Double, east: Double, north: Double) -> Bool {
        coords.withUnsafeBufferPointer { c -> Bool in
            for r in Int(partRings[part])..<Int(partRings[part + 1]) {
                let v0 = Int(ringStarts[r]), v1 = Int(ringStarts[r + 1])
                for v in v0..<v1 {
                    let x = c[2 * v], y = c[2 * v + 1]
                    if x >= west && x <= east && y >= south && y <= north { return true }
                }
                for v in v0..<(v1 - 1) {
                    let x1 = c[2 * v], y1 = c[2 * v + 1], x2 = c[2 * v + 2], y2 = c[2 * v + 3]
                    if max(x1, x2) < west || min(x1, x2) > east || max(y1, y2) < south || min(y1, y2) > north { continue }
                    if PolygonTable.segmentsIntersect(x1, y1, x2, y2, west, south, east, south)
                        || PolygonTable.segmentsIntersect(x1, y1, x2, y2, east, south, east, north)
                        || PolygonTable.segmentsIntersect(x1, y1, x2, y2, east, north, west, north)
                        || PolygonTable.segmentsIntersect(x1, y1, x2, y2, west, north, west, south) { return true }
                }
            }
            return false
        }
    }

    /// Whether two closed segments share a point (exact orientation tests).
    static func segmentsIntersect(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                                  _ cx: Double, _ cy: Double, _ dx: Double, _ dy: Double) -> Bool {
        let o1 = Orientation.sign(ax, ay, bx, by, cx, cy)
        let o2 = Orientation.sign(ax, ay, bx, by, dx, dy)
        let o3 = Orientation.sign(cx, cy, dx, dy, ax, ay)
        let o4 = Orientation.sign(cx, cy, dx, dy, bx, by)
        if o1 * o2 < 0 && o3 * o4 < 0 { return true }
        @inline(__always) func within(_ px: Double, _ py: Double, _ qx: Double, _ qy: Double, _ x: Double, _ y: Double) -> Bool {
            x >= min(px, qx) && x <= max(px, qx) && y >= min(py, qy) && y <= max(py, qy)
        }
        if o1 == 0 && within(ax, ay, bx, by, cx, cy) { return true }
        if o2 == 0 && within(ax, ay, bx, by, dx, dy) { return true }
        if o3 == 0 && within(cx, cy, dx, dy, ax, ay) { return true }
        if o4 == 0 && within(cx, cy, dx, dy, bx, by) { return true }
        return false
    }
}
