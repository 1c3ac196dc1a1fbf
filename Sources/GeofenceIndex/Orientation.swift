import GeofenceBase
import Geodesy

/// Exact orientation of three points in the plane (lon/lat degrees), the
/// predicate behind point-in-polygon and segment intersection.
///
/// A floating-point filter (Shewchuk's `orient2d` error bound) answers almost
/// always; when it cannot, the determinant is evaluated exactly as a sum of
/// error-free products (`fma`) and two-sums. No allocation.
enum Orientation {
    /// Sign of `(b - a) × (c - a)`: +1 when `c` is left of `a→b`
    /// (counter-clockwise), -1 when right, 0 when collinear.
    @inline(__always)
    static func sign(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
        let detLeft = (ax - cx) * (by - cy)
        let detRight = (ay - cy) * (bx - cx)
        let det = detLeft - detRight
        let detSum: Double
        if detLeft > 0 {
            if detRight <= 0 { return det > 0 ? 1 : (det < 0 ? -1 : 0) }
            detSum = detLeft + detRight
        } else if detLeft < 0 {
            if detRight >= 0 { return det > 0 ? 1 : (det < 0 ? -1 : 0) }
            detSum = -detLeft - detRight
        } else {
            return det > 0 ? 1 : (det < 0 ? -1 : 0)
        }
        // Shewchuk's ccwerrboundA = (3 + 16 eps) eps, eps = 2^-53.
        let errBound = 3.3306690738754716e-16 * detSum
        if det >= errBound { return 1 }
        if -det >= errBound { return -1 }
        return exactSign(ax, ay, bx, by, cx, cy)
    }

    @inline(__always)
    static func twoSum(_ a: Double, _ b: Double) -> (Double, Double) {
        let s = a + b
        let bb = s - a
        let err = (a - (s - bb)) + (b - bb)
        return (s, err)
    }

    @inline(__always)
    static func twoDiff(_ a: Double, _ b: Double) -> (Double, Double) {
        let s = a - b
        let bb = a - s
        let err = (a - (s + bb)) + (bb - b)
        return (s, err)
    }

    @inline(__always)
    static func twoProduct(_ a: Double, _ b: Double) -> (Double, Double) {
        let p = a * b
        return (p, (-p).addingProduct(a, b))
    }

    /// Exact sign of `(bx - ax)(cy - ay) - (by - ay)(cx - ax)`.
    @inline(never)
    static func exactSign(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
        let (u1, u0) = twoDiff(bx, ax)   // bx - ax = u1 + u0 exactly
        let (v1, v0) = twoDiff(cy, ay)
        let (w1, w0) = twoDiff(by, ay)
        let (z1, z0) = twoDiff(cx, ax)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 40) { e -> Int in
            var m = 0
            @inline(__always) func grow(_ b: Double) {
                var q = b
                var k = 0
                for i in 0..<m {
                    let (s, h) = twoSum(q, e[i])
                    q = s
                    if h != 0 { e[k] = h; k += 1 }
                }
                e[k] = q
                m = k + 1
            }
            @inline(__always) func add(_ x: Double, _ y: Double, _ sign: Double) {
                let (p, pe) = twoProduct(x, y)
                grow(sign * p)
                grow(sign * pe)
            }
            add(u1, v1, 1); add(u1, v0, 1); add(u0, v1, 1); add(u0, v0, 1)
            add(w1, z1, -1); add(w1, z0, -1); add(w0, z1, -1); add(w0, z0, -1)
            var i = m - 1
            while i >= 0 {
                if e[i] > 0 { return 1 }
                if e[i] < 0 { return -1 }
                i -= 1
            }
            return 0
        }
    }
}
