import GeofenceBase
import GeofenceFences
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import Geodesy

/// Conservative bounds of WGS84 geodesic distances between points and lon/lat
/// boxes, for tile bundles. Everything rests on the sphere bound documented on
/// `Geodesy.Sphere` (|s − d| ≤ rel·d + abs between the geodesic `s` and the
/// great-circle distance `d` on the mean sphere), the same one the index uses,
/// with a further relative 1e-12 for rounding.
enum GeoBounds {
    static let radius = Sphere.meanRadius
    static let rel = Sphere.relativeError
    static let abs = Sphere.absoluteError
    static let d2r = Double.pi / 180
    static let r2d = 180 / Double.pi
    /// More than any WGS84 geodesic distance (half a meridian is 20,003,931.46 m).
    static let maxDistance = 20_004_000.0

    /// A lower bound of the geodesic distance of a pair at least `angle` radians apart on the sphere.
    @inline(__always)
    static func lower(angle: Double) -> Double {
        Swift.max(0, angle * radius * (1 - rel) * (1 - 1e-12) - abs)
    }

    /// An upper bound of the geodesic distance of a pair at most `angle` radians apart on the sphere.
    @inline(__always)
    static func upper(angle: Double) -> Double {
        angle * radius * (1 + rel) * (1 + 1e-12) + abs
    }

    /// A central angle (radians) at least the spherical distance of any pair within `metres` (geodesic).
    @inline(__always)
    static func capAngle(metres: Double) -> Double {
        (metres + abs) / (1 - rel) / radius * (1 + 1e-12)
    }

    /// Haversine central angle in radians.
    @inline(__always)
    static func centralAngle(lat1: Double, lon1: Double, cos1: Double, lat2: Double, lon2: Double, cos2: Double) -> Double {
        let sp = sin((lat2 - lat1) * (d2r * 0.5))
        let sl = sin((lon2 - lon1) * (d2r * 0.5))
        let h = sp * sp + cos1 * cos2 * (sl * sl)
        return 2 * asin(Swift.min(1, h.squareRoot()))
    }

    /// The angular gap (degrees, at most 180) between two longitude intervals
    /// `[w1, e1]`, `[w2, e2]` (each `w <= e`, within [-180, 180]), going either way round; 0 when they meet.
    @inline(__always)
    static func longitudeGap(_ w1: Double, _ e1: Double, _ w2: Double, _ e2: Double) -> Double {
        if w1 <= e2 && w2 <= e1 { return 0 }
        var a = w2 - e1
        if a < 0 { a += 360 }
        var b = w1 - e2
        if b < 0 { b += 360 }
        return Swift.min(Swift.min(a, b), 180)
    }

    /// A lower bound of the central angle (radians) between any point of one
    /// box and any point of another (boxes `[w, e] × [s, n]`, `w <= e`).
    ///
    /// From `hav c = hav Δφ + cos φ1 cos φ2 hav Δλ`, each term bounded below
    /// over the boxes: |Δφ| by the latitude gap, |Δλ| by the longitude gap,
    /// each cosine by its minimum over the box's latitudes (`cosMin`).
    @inline(__always)
    static func angleLowerBound(_ w1: Double, _ s1: Double, _ e1: Double, _ n1: Double, cosMin: Double,
                                _ w2: Double, _ s2: Double, _ e2: Double, _ n2: Double, cosMin2: Double) -> Double {
        let dlat = Swift.max(0, Swift.max(s2 - n1, s1 - n2))
        let dlon = longitudeGap(w1, e1, w2, e2)
        if dlon == 0 { return dlat * d2r }
        let sl = sin(dlat * (d2r * 0.5))
        let sn = sin(dlon * (d2r * 0.5))
        let h = sl * sl + cosMin * cosMin2 * (sn * sn)
        return 2 * asin(Swift.min(1, h.squareRoot()))
    }

    /// The minimum of cos φ over `[s, n]`.
    @inline(__always)
    static func cosMin(_ s: Double, _ n: Double) -> Double {
        Swift.max(0, cos(Swift.max(Swift.abs(s), Swift.abs(n)) * d2r))
    }

    /// The smallest and largest |φ| over `[s, n]`.
    @inline(__always)
    static func absRange(_ s: Double, _ n: Double) -> (min: Double, max: Double) {
        let lo = (s <= 0 && n >= 0) ? 0 : Swift.min(Swift.abs(s), Swift.abs(n))
        return (lo, Swift.max(Swift.abs(s), Swift.abs(n)))
    }

    /// A lon/lat box holding every point within `metres` (geodesic) of the box
    /// `[west, east] × [south, north]` (`west <= east`); the whole longitude
    /// range when that neighbourhood reaches a pole or wraps.
    static func expanded(west: Double, south: Double, east: Double, north: Double, by metres: Double) -> GeoBox {
        let angle = capAngle(metres: metres)
        if angle >= Double.pi { return .world }
        let pad = 1e-9
        let ad = angle * r2d * (1 + 1e-12) + pad
        let s = south - ad, n = north + ad
        if s <= -90 || n >= 90 {
            return GeoBox(west: -180, south: Swift.max(-90, s), east: 180, north: Swift.min(90, n))
        }
        // The cap of a point at latitude φ spans asin(sin α / cos φ) of longitude, largest at the largest |φ| of the box.
        let q = sin(angle) / cos(Swift.max(Swift.abs(south), Swift.abs(north)) * d2r)
        if !(q < 1) { return GeoBox(west: -180, south: s, east: 180, north: n) }
        let dl = asin(q) * r2d * (1 + 1e-12) + pad
        if (east - west) + 2 * dl >= 360 { return GeoBox(west: -180, south: s, east: 180, north: n) }
        var w = west - dl, e = east + dl
        if w < -180 { w += 360 }
        if e > 180 { e -= 360 }
        return GeoBox(west: w, south: s, east: e, north: n)
    }

    // MARK: WGS84 radii of curvature

    static let a = Geodesic.wgs84A
    static let e2 = Geodesic.wgs84F * (2 - Geodesic.wgs84F)

    /// N(φ) cos φ: metres per radian of longitude along the parallel (decreasing in |φ|).
    @inline(__always)
    static func parallelRadius(_ lat: Double) -> Double {
        let phi = lat * d2r
        let s = sin(phi)
        return a * cos(phi) / (1 - e2 * s * s).squareRoot()
    }

    /// M(φ): the meridional radius of curvature, metres per radian of latitude (increasing in |φ|).
    @inline(__always)
    static func meridionalRadius(_ lat: Double) -> Double {
        let s = sin(lat * d2r)
        let w2 = 1 - e2 * s * s
        return a * (1 - e2) / (w2 * w2.squareRoot())
    }
}
