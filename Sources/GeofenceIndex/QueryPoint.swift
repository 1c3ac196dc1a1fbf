import GeofenceBase
import Foundation
import Geodesy

/// A query position with the values fence tests reuse, computed on first need
/// (a query that finds no candidate computes no trigonometry).
struct QueryPoint {
    let lat: Double
    let lon: Double
    private var cosStorage = Double.nan
    private var productStorage = (c2: Double.nan, k: Double.nan)
    /// Local plane scales for polygon distances.
    private var scales: (kx: Double, ky: Double)?
    /// The last window asked of `window(metres:)` and its radius.
    private var windowMetres = -1.0
    private var windowStorage = GeoBox.world

    @inline(__always)
    init(lat: Double, lon: Double) {
        precondition(lat >= -90 && lat <= 90, "latitude out of range")
        precondition(lon.isFinite, "longitude not finite")
        self.lat = lat
        self.lon = FenceIndex.normalizedLongitude(lon)
    }

    /// cos(lat).
    @inline(__always)
    mutating func cosLat() -> Double {
        if cosStorage.isNaN { cosStorage = SphericalBounds.cosDegrees(lat) }
        return cosStorage
    }

    /// A lon/lat box holding every position within `metres` (geodesic) of
    /// the point (`SphericalBounds.capBox`); the last one is kept.
    @inline(__always)
    mutating func window(metres: Double) -> GeoBox {
        if metres != windowMetres {
            windowStorage = metres <= 0 ? GeoBox(west: lon, south: lat, east: lon, north: lat)
                : SphericalBounds.capBox(lat: lat, lon: lon, angle: SphericalBounds.capAngle(metres: metres), cosLat: cosLat())
            windowMetres = metres
        }
        return windowStorage
    }

    /// At least |sin(lat)| (from `cosLat`, within 2e-7).
    @inline(__always)
    mutating func sinAbsUpper() -> Double {
        let c = cosLat()
        return Swift.max(0, 1 - c * c).squareRoot() + 1e-7
    }

    /// `cos²φ` and `2 cos φ · sinAbsUpper()`, the terms of
    /// `CompiledCircle.cosProductBounds(_:)`; computed once per point.
    @inline(__always)
    mutating func productTerms() -> (c2: Double, k: Double) {
        if productStorage.c2.isNaN {
            let c = cosLat()
            productStorage = (c * c, 2 * c * sinAbsUpper())
        }
        return productStorage
    }

    mutating func planeScales() -> (kx: Double, ky: Double) {
        if let scales { return scales }
        let s = PolygonTable.planeScales(lat: lat)
        scales = s
        return s
    }
}

extension CompiledCircle {
    /// Bounds of the geodesic distance from the centre to the point, without
    /// transcendental calls: the haversine `h = sin²(Δφ/2) + cos φ1 cos φ2
    /// sin²(Δλ/2)` bounded with `sin` replaced by Taylor polynomials cut after
    /// a negative (lower) or positive (upper) term, the central angle
    /// `2 asin(√h)` bounded by `2x` below and `2(x + x³ / (6(1 - x²)))` above
    /// (the `asin` series has coefficients at most 1/6), then the
    /// `Geodesy.Sphere` bound. Within a few 1e-6 of the haversine up to ~1000 km.
    @inline(__always)
    func distanceBounds(_ p: inout QueryPoint) -> (lower: Double, upper: Double) {
        distanceBounds(lat: p.lat, lon: p.lon, cosLat: p.cosLat())
    }

    /// As `distanceBounds(_:)`, for a point given with the cosine of its latitude.
    @inline(__always)
    func distanceBounds(lat plat: Double, lon plon: Double, cosLat pcos: Double) -> (lower: Double, upper: Double) {
        let cc = cosLat * pcos
        return distanceBounds(lat: plat, lon: plon, productLower: cc, productUpper: cc)
    }

    /// As `distanceBounds(_:)` without the cosine of the centre's latitude (no libm call):
    /// `cos φc cos φp` is bounded from the point's latitude alone (`cosProductBounds`).
    /// Slightly wider than the exact-cosine bounds (a relative `tan φ · |Δφ|` on the
    /// longitude term of the haversine, ~1e-4 for fences of a few kilometres), so a
    /// caller falls back to the tight bounds a little more often; never a different answer.
    @inline(__always)
    func looseBounds(_ p: inout QueryPoint) -> (lower: Double, upper: Double) {
        let cc = cosProductBounds(&p)
        return distanceBounds(lat: p.lat, lon: p.lon, productLower: cc.lower, productUpper: cc.upper)
    }

    /// Bounds of `cos φc · cos φp` (centre, point) from the point's latitude alone. With
    /// `δ = |φc − φp|` (at most π) and `s ≥ |sin φp|`: `cos φc = cos φp cos δ ∓ sin φp sin δ`,
    /// `1 − δ²/2 ≤ cos δ ≤ 1` and `0 ≤ sin δ ≤ δ`, so
    /// `cos φp (1 − δ²/2) − s δ ≤ cos φc ≤ cos φp + s δ`, and `cos φc ≥ 0`. Times `cos φp`,
    /// with `y = δ/2` (the haversine's own half difference), `c2 = cos²φp`, `k = 2 cos φp s`:
    /// `c2 (1 − 2y²) − k y ≤ cos φc cos φp ≤ c2 + k y`. Rounding moves these by a few ulps,
    /// as it moved the product of two rounded cosines these filters used before; the
    /// relative 1e-12 of the sphere bound (`SphericalBounds`) covers both.
    @inline(__always)
    func cosProductBounds(_ p: inout QueryPoint) -> (lower: Double, upper: Double) {
        let t = p.productTerms()
        let y = Swift.abs(p.lat - lat) * (Double.pi / 180 * 0.5)
        let ky = t.k * y
        return (Swift.max(0, t.c2 - (2 * t.c2) * (y * y) - ky), t.c2 + ky)
    }

    /// The haversine bounds of `distanceBounds(_:)` for `cos φc cos φp` within
    /// `[productLower, productUpper]` (the lower distance from the lower product).
    @inline(__always)
    func distanceBounds(lat plat: Double, lon plon: Double, productLower ccLo: Double, productUpper ccHi: Double)
        -> (lower: Double, upper: Double) {
        let d2r = Double.pi / 180
        let yl = Swift.abs(plat - lat) * (d2r * 0.5)
        var dlon = Swift.abs(plon - lon)
        if dlon > 180 { dlon = 360 - dlon }
        let yn = dlon * (d2r * 0.5)
        let l2 = yl * yl, n2 = yn * yn
        // y - y³/6 + y⁵/120 (upper), minus y⁷/5040 (lower).
        let sLatHi = yl * (1 - l2 * (1.0 / 6) * (1 - l2 * (1.0 / 20)))
        let sLonHi = yn * (1 - n2 * (1.0 / 6) * (1 - n2 * (1.0 / 20)))
        let sLatLo = sLatHi - yl * (l2 * l2 * l2) * (1.0 / 5040)
        let sLonLo = sLonHi - yn * (n2 * n2 * n2) * (1.0 / 5040)
        let hLo = sLatLo * sLatLo + ccLo * (sLonLo * sLonLo)
        let hHi = sLatHi * sLatHi + ccHi * (sLonHi * sLonHi)
        let angleLo = 2 * hLo.squareRoot()
        let x = hHi.squareRoot()
        // asin(x) <= x + x³/6 + (3/40) x⁵ / (1 - x²) (later coefficients are smaller); 0.0758 >= (3/40) / 0.99.
        let x2 = x * x
        let angleHi = x < 0.1 ? 2 * x * (1 + x2 * (1.0 / 6 + x2 * 0.0758))
            : x < 0.9 ? 2 * (x + x * x2 / (6 * (1 - x2))) : 2 * asin(Swift.min(1, x))
        return (SphericalBounds.geodesicLowerBound(angle: angleLo), SphericalBounds.geodesicBounds(angle: angleHi).upper)
    }

    /// Bounds of the geodesic distance from the centre to the point that
    /// follow the ellipsoid (`EllipsoidBounds`: the lower one for any pair,
    /// the upper one within ~100 km, else infinite): a few millimetres apart
    /// at a few kilometres, where the sphere bound leaves 0.75%.
    @inline(__always)
    func tightBounds(_ p: inout QueryPoint) -> (lower: Double, upper: Double) {
        let c = p.cosLat()
        let centreCos = cosLat
        return (EllipsoidBounds.lowerBound(lat1: p.lat, lon1: p.lon, cos1: c, lat2: lat, lon2: lon, cos2: centreCos),
                EllipsoidBounds.upperBound(lat1: p.lat, lon1: p.lon, cos1: c, sin1: p.sinAbsUpper(), lat2: lat, lon2: lon, cos2: centreCos))
    }

    /// The exact geodesic distance from the centre to the point (centre first:
    /// the one function every comparison uses, so answers are reproducible).
    @inline(__always)
    func exactDistance(_ p: QueryPoint) -> Double {
        Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: p.lat, lon2: p.lon)
    }

    /// `d - radius <= extra` for the exact distance `d`, deciding from the
    /// bounds when they are clear.
    @inline(__always)
    func isWithin(_ p: inout QueryPoint, extra: Double) -> Bool {
        let b = looseBounds(&p)
        if b.upper - radius <= extra { return true }
        if b.lower - radius > extra { return false }
        return refinedIsWithin(&p, extra: extra)
    }

    /// `isWithin` past the loose bounds: the tight bounds (with the centre's cosine), then
    /// the exact distance. Out of line: few candidates get here.
    @inline(never)
    func refinedIsWithin(_ p: inout QueryPoint, extra: Double) -> Bool {
        let t = tightBounds(&p)
        if t.upper - radius <= extra { return true }
        if t.lower - radius > extra { return false }
        return exactDistance(p) - radius <= extra
    }

    /// The state for every distance in `[lower, upper]`, or nil when they differ
    /// (rounding is monotone, so the exact test's comparisons go the same way).
    @inline(__always)
    func decide(_ lower: Double, _ upper: Double, _ a: Double, _ m: Double) -> FenceState? {
        if upper + a <= radius { return .inside }
        if lower - a > radius + m { return .outside }
        guard lower + a > radius else { return nil }
        if upper - a <= radius { return .uncertain }
        if lower - a > radius && upper - a <= radius + m { return .outsideWithinMargin }
        return nil
    }

    /// docs/evaluation.md state (see `FenceState`): the loose haversine bounds decide most
    /// candidates without the centre's cosine; the rest go to `refinedState`.
    @inline(__always)
    func state(_ p: inout QueryPoint, accuracy a: Double, margin m: Double) -> FenceState {
        let b = looseBounds(&p)
        if let s = decide(b.lower, b.upper, a, m) { return s }
        return refinedState(&p, accuracy: a, margin: m)
    }

    /// The state past the loose bounds: the tight bounds (with the centre's cosine), then
    /// the exact distance. Out of line: few candidates get here.
    @inline(never)
    func refinedState(_ p: inout QueryPoint, accuracy a: Double, margin m: Double) -> FenceState {
        let t = tightBounds(&p)
        if let s = decide(t.lower, t.upper, a, m) { return s }
        let d = exactDistance(p)
        if d + a <= radius { return .inside }
        if d - a > radius + m { return .outside }
        if d - a > radius { return .outsideWithinMargin }
        return .uncertain
    }
}
