import GeofenceKit
import GeofenceTestSupport

/// The point-in-polygon answer by scanning every polygon: the baseline polygon answers are
/// checked against on a sample, and timed as "brute".
///
/// Written independently of the index (no latitude bands, no shared code): flat arrays of
/// the polygons' boxes scanned in order, then, for a box that holds the point, the
/// crossing-number test over every edge of the part, boundary inclusive (a point on any
/// ring, shell or hole, is covered), planar in lon/lat like GEOS and docs/fences.md. The
/// orientation is a plain floating-point cross product: it can only disagree with an exact
/// predicate for points within ~1e-16° of an edge, which random queries do not produce.
struct PolygonBruteForce {
    let shapes: [PolygonShape]
    let west: [Double], south: [Double], east: [Double], north: [Double]

    init(_ polygons: [PolygonRecord]) {
        shapes = polygons.map(\.shape)
        var w: [Double] = [], s: [Double] = [], e: [Double] = [], n: [Double] = []
        for shape in shapes {
            let xy = shape.coordinates
            var bw = 180.0, bs = 90.0, be = -180.0, bn = -90.0
            for v in stride(from: 0, to: xy.count, by: 2) {
                bw = min(bw, xy[v]); be = max(be, xy[v]); bs = min(bs, xy[v + 1]); bn = max(bn, xy[v + 1])
            }
            w.append(bw); s.append(bs); e.append(be); n.append(bn)
        }
        west = w; south = s; east = e; north = n
    }

    var count: Int { shapes.count }

    /// Whether polygon `i` covers the point (inside, or on a ring; holes excluded).
    func covers(_ i: Int, _ p: Point) -> Bool {
        let shape = shapes[i], xy = shape.coordinates, rings = shape.ringStarts, parts = shape.partStarts
        let px = p.lon, py = p.lat
        for part in 0..<shape.partCount {
            var inside = false
            for r in parts[part]..<parts[part + 1] {
                for v in rings[r]..<(rings[r + 1] - 1) {
                    let x1 = xy[2 * v], y1 = xy[2 * v + 1], x2 = xy[2 * v + 2], y2 = xy[2 * v + 3]
                    if x1 == px && y1 == py { return true }
                    if y1 == py && y2 == py {
                        if px >= min(x1, x2) && px <= max(x1, x2) { return true }
                        continue
                    }
                    if (y1 > py) != (y2 > py) {
                        let o = (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1)
                        if o == 0 { return true }
                        if (o > 0) == (y2 > y1) { inside.toggle() }  // the point is left of an upward edge: the ray east crosses it
                    }
                }
            }
            if inside { return true }
        }
        return false
    }

    /// Every polygon covering the point, in slot order (slot = position in the input).
    /// - Complexity: O(n) box tests, plus O(vertices) per polygon whose box holds the point.
    func containing(_ p: Point, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        for i in 0..<count where p.lat >= south[i] && p.lat <= north[i] && p.lon >= west[i] && p.lon <= east[i] {
            if covers(i, p) { out.append(Int32(i)) }
        }
    }
}
