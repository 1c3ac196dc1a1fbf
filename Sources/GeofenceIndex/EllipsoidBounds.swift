import GeofenceBase
import Foundation
import Geodesy

/// Lower bounds of WGS84 geodesic distances that follow the ellipsoid, for
/// best-first keys: far tighter than the sphere bound (`SphericalBounds`),
/// whose relative slack (0.75%) would let a whole distant city of fences
/// through to the exact geodesic.
///
/// Proof. In geodetic coordinates the ellipsoid's metric is
/// `ds² = M(φ)² dφ² + N(φ)² cos²φ dλ²`, with `M ≤ N` both increasing in `|φ|`.
/// Along the shortest geodesic between two points, `|φ|` has no interior
/// minimum except a crossing of the equator (Clairaut), so it stays at least
/// `φ*` = the smaller endpoint `|φ|`, or 0 when the endpoints lie in different
/// hemispheres. There `M ≥ m := M(φ*)` and `N ≥ k m` with `k := N(φ*)/M(φ*)`,
/// hence `s ≥ m · L`, with `L` the length of the path in the metric
/// `dφ² + cos²φ d(kλ)²` — the unit sphere in the coordinates `(φ, kλ)`. So `L`
/// is at least the unit-sphere distance between `(φ1, kλ1)` and `(φ2, kλ2)`,
/// the longitude difference being the shortest geodesic's own (at most 180°),
/// scaled by `k`. For a box, each term of the haversine is bounded below over
/// the box, as in `SphericalBounds.angleLowerBound`, and the distance to the
/// bounding meridians' great circles is a second bound. `sin` is replaced by
/// Taylor lower bounds, `asin(x)` by `x + x³/6 + 3x⁵/40` below `x = 0.1` (its
/// series has positive terms; relative loss < 1e-9), and `sin φ*` by a lower
/// bound too (lowering `m` and `k`). No calls to libm within ~1,300 km.
///
/// A second bound follows the meridian exactly: with the rectifying latitude
/// `μ` (`M dφ = R_r dμ`, `R_r` the rectifying radius) the metric is
/// `R_r² dμ² + N² cos²φ dλ²`, and `N cos φ ≥ R_r cos μ` at every latitude
/// (the ratio falls from 1.0017 at the equator to 1 at the poles), so
/// `s ≥ R_r · σ((μ1, λ1), (μ2, λ2))` on the unit sphere. `μ` comes from a
/// table (0.1°) with linear interpolation, its error (< 1e-8 rad) subtracted.
/// The first bound is tight along parallels, the second along meridians; keys
/// take the larger.
package enum EllipsoidBounds {
    /// The WGS84 equatorial radius in metres.
    package static let a = Geodesic.wgs84A
    /// The WGS84 first eccentricity squared, `f (2 − f)`.
    package static let e2 = Geodesic.wgs84F * (2 - Geodesic.wgs84F)
    static var d2r: Double { SphericalBounds.d2r }
    static let n = Geodesic.wgs84F / (2 - Geodesic.wgs84F)
    /// Rectifying radius (mean meridian radius).
    static let rectifyingRadius = a / (1 + n) * (1 + n * n / 4 + n * n * n * n / 64)
    /// μ(φ) in radians for φ = -90°, -89.9°, ..., 90°; allocated once, never
    /// freed, never written after initialisation (hence safe to share).
    nonisolated(unsafe) static let muTable: UnsafeBufferPointer<Double> = {
        let buffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: 1801)
        for i in 0...1800 { buffer[i] = rectifyingLatitude(Double(i) * 0.1 - 90) }
        return UnsafeBufferPointer(buffer)
    }()
    /// The WGS84 radii of curvature at latitude `lat` (degrees), metres per
    /// radian: `parallel` = N(φ) cos φ along the parallel (decreasing in |φ|),
    /// `meridional` = M(φ) along the meridian (increasing in |φ|). The local
    /// plane of `PolygonTable.planeScales(lat:)` is these per degree.
    @inline(__always)
    package static func radii(lat: Double) -> (parallel: Double, meridional: Double) {
        let phi = lat * SphericalBounds.d2r
        let s = sin(phi)
        let w2 = 1 - e2 * s * s
        return (a / w2.squareRoot() * cos(phi), meridionalRadius(w2: w2))
    }

    /// M = a (1 − e²) / w³, the meridional radius of curvature (metres per
    /// radian) where `w2` = w² = 1 − e² sin²φ.
    @inline(__always)
    package static func meridionalRadius(w2: Double) -> Double {
        a * (1 - e2) / (w2 * w2.squareRoot())
    }

    /// Callers use these bounds from this distance (metres) on; nearer, the
    /// cheaper sphere bound's slack (0.75%) costs little.
    static let from = 100_000.0
    /// Bound of the table interpolation plus series error, radians.
    static let muError = 1e-8

    /// Rectifying latitude (radians) by its series in the third flattening.
    static func rectifyingLatitude(_ latDeg: Double) -> Double {
        let phi = latDeg * d2r
        let n2 = n * n, n3 = n2 * n, n4 = n2 * n2
        return phi - (1.5 * n - 9 * n3 / 16) * sin(2 * phi) + (15 * n2 / 16 - 15 * n4 / 32) * sin(4 * phi)
            - (35 * n3 / 48) * sin(6 * phi) + (315 * n4 / 512) * sin(8 * phi)
    }

    /// μ(φ) from the table (radians), within `muError`.
    @inline(__always)
    static func mu(_ latDeg: Double, _ table: UnsafeBufferPointer<Double>) -> Double {
        let x = (latDeg + 90) * 10
        let i = Swift.min(Swift.max(Int(x), 0), 1799)
        let t = x - Double(i)
        return table[i] + t * (table[i + 1] - table[i])
    }

    /// `m` and `k` for the smallest `|φ|` (degrees) on the path, both lowered.
    @inline(__always)
    static func scales(minAbsLat: Double) -> (m: Double, k: Double) {
        let s = SphericalBounds.sinLowerBound(minAbsLat * d2r)
        let w = 1 - e2 * (s * s)
        return (meridionalRadius(w2: w), w / (1 - e2))
    }

    /// `2 asin(√h)`, bounded below by its series cut after three (positive)
    /// terms up to `x = 0.1` (~1,300 km; relative loss < 1e-9).
    @inline(__always)
    static func angle(fromHaversine h: Double) -> Double {
        let x = Swift.min(1, h.squareRoot())
        if x > 0.1 { return 2 * asin(x) }
        let x2 = x * x
        return 2 * x * (1 + x2 * (1.0 / 6 + x2 * (3.0 / 40)))
    }

    /// `|sin(k g)|` bounded below, for `k g` in degrees (0...181.3).
    @inline(__always)
    static func foldedSin(_ kg: Double) -> Double {
        let t = kg >= 180 ? kg - 180 : kg
        return SphericalBounds.sinLowerBound(Swift.min(t, 180 - t) * d2r)
    }

    @inline(__always)
    static func metres(_ m: Double, _ angle: Double) -> Double {
        Swift.max(0, m * angle * (1 - 1e-12) - 1e-6)
    }

    /// A lower bound (metres) of the geodesic distance between two points
    /// (`cos1`, `cos2`: cosines of the latitudes; `mu1`: rectifying latitude
    /// of the first, `cosMu1` its cosine; `table`: `muTable`).
    @inline(__always)
    static func lowerBound(lat1: Double, lon1: Double, cos1: Double, mu1: Double, cosMu1: Double,
                           lat2: Double, lon2: Double, cos2: Double, table: UnsafeBufferPointer<Double>) -> Double {
        let first = lowerBound(lat1: lat1, lon1: lon1, cos1: cos1, lat2: lat2, lon2: lon2, cos2: cos2)
        var dlon = Swift.abs(lon2 - lon1)
        if dlon > 180 { dlon = 360 - dlon }
        let dmu = Swift.max(0, Swift.abs(mu(lat2, table) - mu1) - 2 * muError)
        let sl = SphericalBounds.sinLowerBound(dmu * 0.5)
        let sn = SphericalBounds.sinLowerBound(dlon * (d2r * 0.5))
        // cos μ2 >= cos φ2 (|μ| <= |φ|).
        let second = metres(rectifyingRadius, angle(fromHaversine: sl * sl + cosMu1 * cos2 * (sn * sn)))
        return Swift.max(first, second)
    }

    /// A lower bound (metres) of the geodesic distance between two points
    /// (`cos1`, `cos2`: cosines of the latitudes), first bound only.
    @inline(__always)
    static func lowerBound(lat1: Double, lon1: Double, cos1: Double, lat2: Double, lon2: Double, cos2: Double) -> Double {
        let minAbs = (lat1 >= 0) == (lat2 >= 0) ? Swift.min(Swift.abs(lat1), Swift.abs(lat2)) : 0
        let (m, k) = scales(minAbsLat: minAbs)
        var dlon = Swift.abs(lon2 - lon1)
        if dlon > 180 { dlon = 360 - dlon }
        let kd = Swift.min(k * dlon, 360 - 180 * k)
        let sl = SphericalBounds.sinLowerBound(Swift.abs(lat2 - lat1) * (d2r * 0.5))
        let sn = SphericalBounds.sinLowerBound(kd * (d2r * 0.5))
        return metres(m, angle(fromHaversine: sl * sl + cos1 * cos2 * (sn * sn)))
    }

    /// A lower bound (metres) of the geodesic distance from a point to any
    /// point of the box, both bounds (`mu`, `cosMu`: the point's rectifying
    /// latitude and its cosine; `table`: `muTable`).
    @inline(__always)
    static func lowerBound(lat: Double, lon: Double, cosLat: Double, mu muP: Double, cosMu: Double,
                           west: Double, south: Double, east: Double, north: Double,
                           table: UnsafeBufferPointer<Double>) -> Double {
        let first = lowerBound(lat: lat, lon: lon, cosLat: cosLat, west: west, south: south, east: east, north: north)
        let dmu: Double
        if lat < south { dmu = Swift.max(0, mu(south, table) - muP - 2 * muError) }
        else if lat > north { dmu = Swift.max(0, muP - mu(north, table) - 2 * muError) }
        else { dmu = 0 }
        if lon >= west && lon <= east { return Swift.max(first, metres(rectifyingRadius, dmu)) }
        var ga = west - lon
        if ga < 0 { ga += 360 }
        if ga > 180 { ga = 360 - ga }
        var gb = lon - east
        if gb < 0 { gb += 360 }
        if gb > 180 { gb = 360 - gb }
        let sl = SphericalBounds.sinLowerBound(dmu * 0.5)
        let sn = SphericalBounds.sinLowerBound(Swift.min(ga, gb) * (d2r * 0.5))
        let cmin = Swift.max(0, SphericalBounds.sinLowerBound((90 - Swift.max(Swift.abs(south), Swift.abs(north))) * d2r))
        let haversine = angle(fromHaversine: sl * sl + cosMu * cmin * (sn * sn))
        let meridian = cosMu * Swift.min(foldedSin(ga), foldedSin(gb))
        return Swift.max(first, metres(rectifyingRadius, Swift.max(haversine, meridian)))
    }

    /// A lower bound (metres) of the geodesic distance from a point to any
    /// point of the box `[west, east] × [south, north]` (`west <= east`), first bound only.
    @inline(__always)
    static func lowerBound(lat: Double, lon: Double, cosLat: Double,
                           west: Double, south: Double, east: Double, north: Double) -> Double {
        let boxMinAbs = south >= 0 ? south : (north <= 0 ? -north : 0)
        let sameSide = (south >= 0 && lat >= 0) || (north <= 0 && lat <= 0)
        let (m, k) = scales(minAbsLat: sameSide ? Swift.min(Swift.abs(lat), boxMinAbs) : 0)
        let dlat = Swift.max(0, Swift.max(south - lat, lat - north))
        if lon >= west && lon <= east { return metres(m, dlat * d2r) }
        var ga = west - lon
        if ga < 0 { ga += 360 }
        if ga > 180 { ga = 360 - ga }
        var gb = lon - east
        if gb < 0 { gb += 360 }
        if gb > 180 { gb = 360 - gb }
        let kd = Swift.min(k * Swift.min(ga, gb), 360 - 180 * k)
        let sl = SphericalBounds.sinLowerBound(dlat * (d2r * 0.5))
        let sn = SphericalBounds.sinLowerBound(kd * (d2r * 0.5))
        let cmin = Swift.max(0, SphericalBounds.sinLowerBound((90 - Swift.max(Swift.abs(south), Swift.abs(north))) * d2r))
        let haversine = angle(fromHaversine: sl * sl + cosLat * cmin * (sn * sn))
        let meridian = cosLat * Swift.min(foldedSin(k * ga), foldedSin(k * gb))
        return metres(m, Swift.max(haversine, meridian))
    }

    // MARK: Upper bound (short distances)

    /// Separations (radians: `|Δφ| + cos φ |Δλ|`) up to which `upperBound` applies.
    static let upperReach = 0.02

    /// An upper bound (metres) of the geodesic distance between two points
    /// less than `upperReach` apart, away from the poles; `.infinity`
    /// otherwise. `cos1`, `cos2`: cosines of the latitudes; `sin1`: at least
    /// `|sin φ1|`.
    ///
    /// Proof. The geodesic distance is at most the length of any path. With
    /// `M ≤ M̄`, `N ≤ N̄` on the path, the metric `M² dφ² + N² cos²φ dλ²` is at
    /// most `M̄² (dφ² + cos²φ d(k̄λ)²)` with `k̄ = N̄ / M̄`: the unit sphere in
    /// the coordinates `(φ, k̄λ)`, scaled by `M̄`. The path is that sphere's
    /// minor arc between `(φ1, k̄λ1)` and `(φ2, k̄λ2)`, of length `σ`: the
    /// haversine distance (`sin` bounded above by its Taylor series cut after
    /// a positive term, `2 asin √h` by `2(x + x³ / (6(1 - x²)))`). Along a
    /// great-circle arc `sin φ` is a sinusoid in the arc length, so `|sin φ|`
    /// exceeds its larger endpoint value by at most `1 - cos(σ / 2) ≤ σ² / 8`,
    /// with `σ ≤ |Δφ| + k̄ cos φ |Δλ|` (meridian, then the parallel of the
    /// endpoint nearer a pole) and `k̄ < 1.0068`. `M` and `N` grow with
    /// `|sin φ|`, so `M̄`, `N̄` are taken at that bound.
    /// Within ~1e-5 relative of the geodesic at 10 km, ~1e-6 at 1 km.
    @inline(__always)
    static func upperBound(lat1: Double, lon1: Double, cos1: Double, sin1: Double,
                           lat2: Double, lon2: Double, cos2: Double) -> Double {
        var dlon = Swift.abs(lon2 - lon1)
        if dlon > 180 { dlon = 360 - dlon }
        let dphi = Swift.abs(lat2 - lat1) * d2r, dlam = dlon * d2r
        let path = dphi + 1.0068 * Swift.min(cos1, cos2) * dlam
        let sin2 = Swift.max(0, 1 - cos2 * cos2).squareRoot() + 1e-7
        let sh = Swift.max(sin1, sin2) + path * path * 0.125
        guard path < upperReach, dlam < 0.5, sh < 0.9998 else { return .infinity }
        let w = 1 - e2 * (sh * sh)
        let mBar = meridionalRadius(w2: w)
        let kBar = w / (1 - e2)
        let yl = dphi * 0.5, yn = kBar * dlam * 0.5
        let l2 = yl * yl, n2 = yn * yn
        let sl = yl * (1 - (l2 / 6) * (1 - l2 / 20))
        let sn = yn * (1 - (n2 / 6) * (1 - n2 / 20))
        let h = sl * sl + cos1 * cos2 * (sn * sn)
        let x = h.squareRoot()
        let sigma = 2 * (x + x * x * x / (6 * (1 - x * x)))
        return mBar * sigma * (1 + 1e-12) + 1e-6
    }
}
