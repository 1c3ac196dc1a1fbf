import Foundation
import Geodesy

/// A query position with the values fence tests reuse, computed on first need
/// (a query that finds no candidate computes no trigonometry).
struct QueryPoint {
    let lat: Double
    let lon: Double
    private var cosStorage = Double.nan
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
        if cosStorage.isNaN { cosStorage = cos(lat * (Double.pi / 180)) }
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
        let d2r = Double.pi / 180
        let yl = Swift.abs(p.lat - lat) * (d2r * 0.5)
        var dlon = Swift.abs(p.lon - lon)
        if dlon > 180 { dlon = 360 - dlon }
        let yn = dlon * (d2r * 0.5)
        let cc = cosLat * p.cosLat()
        let l2 = yl * yl, n2 = yn * yn
        let sLatLo = yl * (1 - (l2 / 6) * (1 - (l2 / 20) * (1 - l2 / 42)))
        let sLonLo = yn * (1 - (n2 / 6) * (1 - (n2 / 20) * (1 - n2 / 42)))
        let sLatHi = yl * (1 - (l2 / 6) * (1 - l2 / 20))
        let sLonHi = yn * (1 - (n2 / 6) * (1 - n2 / 20))
        let hLo = sLatLo * sLatLo + cc * (sLonLo * sLonLo)
        let hHi = sLatHi * sLatHi + cc * (sLonHi * sLonHi)
        let angleLo = 2 * hLo.squareRoot()
        let x = hHi.squareRoot()
        let angleHi = x < 0.9 ? 2 * (x + x * x * x / (6 * (1 - x * x))) : 2 * asin(Swift.min(1, x))
        return (SphericalBounds.geodesicLowerBound(angle: angleLo), SphericalBounds.geodesicBounds(angle: angleHi).upper)
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
        let b = distanceBounds(&p)
        if b.upper - radius <= extra { return true }
        if b.lower - radius > extra { return false }
        return exactDistance(p) - radius <= extra
    }

    /// DESIGN §3 state (see `FenceState`).
    @inline(__always)
    func state(_ p: inout QueryPoint, accuracy a: Double, margin m: Double) -> FenceState {
        let b = distanceBounds(&p)
        if b.upper + a <= radius { return .inside }
        if b.lower - a > radius + m { return .outside }
        if b.lower + a > radius && b.upper - a <= radius { return .uncertain }
        let d = exactDistance(p)
        if d + a <= radius { return .inside }
        if d - a > radius + m { return .outside }
        if d - a > radius { return .outsideWithinMargin }
        return .uncertain
    }
}
