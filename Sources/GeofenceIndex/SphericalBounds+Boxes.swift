import GeofenceBase
import Foundation
import Geodesy

/// Spherical bounds between two lon/lat boxes, and boxes grown by a central
/// angle, on the same sphere bound as the rest of `SphericalBounds`. A point
/// is the box with `west == east` and `south == north`; the point-to-box
/// bounds of `SphericalBounds.swift` are these with such a box.
///
/// Boxes here are `[west, east] × [south, north]` with `west <= east` (not
/// crossing the antimeridian) and latitudes within [-90, 90].
extension SphericalBounds {
    /// The angular gap (degrees, at most 180) between two longitude intervals
    /// `[w1, e1]`, `[w2, e2]` (each `w <= e`, within [-180, 180]), going
    /// either way round; 0 when they meet.
    @inline(__always)
    package static func longitudeGap(_ w1: Double, _ e1: Double, _ w2: Double, _ e2: Double) -> Double {
        if w1 <= e2 && w2 <= e1 { return 0 }
        var a = w2 - e1
        if a < 0 { a += 360 }
        var b = w1 - e2
        if b < 0 { b += 360 }
        return Swift.min(Swift.min(a, b), 180)
    }

    /// The minimum of cos φ over the latitudes `[s, n]` (degrees).
    @inline(__always)
    package static func cosMin(_ s: Double, _ n: Double) -> Double {
        Swift.max(0, cos(Swift.max(Swift.abs(s), Swift.abs(n)) * d2r))
    }

    /// The smallest and largest |φ| over the latitudes `[s, n]` (degrees, `s <= n`).
    @inline(__always)
    package static func absRange(_ s: Double, _ n: Double) -> (min: Double, max: Double) {
        let lo = (s <= 0 && n >= 0) ? 0 : Swift.min(Swift.abs(s), Swift.abs(n))
        return (lo, Swift.max(Swift.abs(s), Swift.abs(n)))
    }

    /// A lower bound of the central angle (radians) between any point of the
    /// box `[w1, e1] × [s1, n1]` and any point of the box `[w2, e2] × [s2, n2]`;
    /// `cosMin`, `cosMin2`: at most cos φ over each box's latitudes (`cosMin(_:_:)`,
    /// or the cosine of a point's latitude). `cosMin2` is evaluated only when
    /// the longitude intervals are apart.
    ///
    /// From `hav c = hav Δφ + cos φ1 cos φ2 hav Δλ`, each term bounded below
    /// over the boxes: |Δφ| by the latitude gap, |Δλ| by the longitude gap,
    /// each cosine by its minimum over its box.
    @inline(__always)
    package static func angleLowerBound(_ w1: Double, _ s1: Double, _ e1: Double, _ n1: Double, cosMin: Double,
                                        _ w2: Double, _ s2: Double, _ e2: Double, _ n2: Double,
                                        cosMin2: @autoclosure () -> Double) -> Double {
        let dlat = Swift.max(0, Swift.max(s2 - n1, s1 - n2))
        let dlon = longitudeGap(w1, e1, w2, e2)
        if dlon == 0 { return dlat * d2r }
        return haversineAngle(dlat: dlat, dlon: dlon, cos1: cosMin, cos2: cosMin2())
    }

    /// A lon/lat box holding every position within the central angle `angle`
    /// (radians) of some point of the box `[west, east] × [south, north]`: the
    /// whole longitude range when that neighbourhood reaches a pole or wraps
    /// onto itself; crossing the antimeridian when needed. With a point
    /// (`west == east`, `south == north`) it is the box of the point's cap.
    ///
    /// The cap of a point at latitude φ spans `asin(sin α / cos φ)` of
    /// longitude either side, largest at the largest |φ| of the box.
    package static func capBox(west: Double, south: Double, east: Double, north: Double, angle: Double) -> GeoBox {
        if angle >= Double.pi { return .world }
        let rd = outwardDegrees(radians: angle)
        let s = south - rd, n = north + rd
        if n >= 90 || s <= -90 {
            return GeoBox(west: -180, south: Swift.max(-90, s), east: 180, north: Swift.min(90, n))
        }
        let q = sin(angle) / cosMin(south, north)
        if !(q < 1) { return GeoBox(west: -180, south: s, east: 180, north: n) }
        let dl = outwardDegrees(radians: asin(q))
        if (east - west) + 2 * dl >= 360 { return GeoBox(west: -180, south: s, east: 180, north: n) }
        var w = west - dl, e = east + dl
        if w < -180 { w += 360 }
        if e > 180 { e -= 360 }
        if w <= e && (west - dl < -180 || east + dl > 180) {
            // Wrapped onto itself: the full range.
            return GeoBox(west: -180, south: s, east: 180, north: n)
        }
        return GeoBox(west: w, south: s, east: e, north: n)
    }
}
