import GeofenceBase
import Foundation
import Geodesy

/// Conservative conversions between WGS84 geodesic metres and great-circle
/// angles on the mean sphere, and spherical distances to lon/lat boxes.
///
/// Everything here rests on the bound documented on `Geodesy.Sphere`: for the
/// geodesic distance `s` and the spherical distance `d` of the same pair of
/// geodetic positions, `|s - d| <= rel * d + abs` (`rel = Sphere.relativeError`,
/// `abs = Sphere.absoluteError`). Hence
///  - `s <= m` implies `d <= (m + abs) / (1 - rel)` (cap angles, boxes);
///  - `s >= (1 - rel) d - abs` (lower bounds for pruning and best-first keys);
///  - `s <= (1 + rel) d + abs` (clearly-inside decisions).
/// A further relative 1e-12 covers the rounding of the trigonometry.
enum SphericalBounds {
    static let radius = Sphere.meanRadius
    static let rel = Sphere.relativeError
    static let abs = Sphere.absoluteError
    static let d2r = Double.pi / 180
    static let r2d = 180 / Double.pi

    /// A central angle (radians) at least the spherical distance of any pair
    /// whose geodesic distance is at most `metres`.
    @inline(__always)
    static func capAngle(metres: Double) -> Double {
        (metres + abs) / (1 - rel) / radius * (1 + 1e-12)
    }

    /// A lower bound of the geodesic distance of a pair whose spherical
    /// central angle is at least `angle` radians.
    @inline(__always)
    static func geodesicLowerBound(angle: Double) -> Double {
        Swift.max(0, angle * radius * (1 - rel) * (1 - 1e-12) - abs)
    }

    /// Lower and upper bounds of the geodesic distance of a pair whose
    /// spherical central angle is exactly `angle` radians (up to rounding).
    @inline(__always)
    static func geodesicBounds(angle: Double) -> (lower: Double, upper: Double) {
        let d = angle * radius
        return (Swift.max(0, d * (1 - rel) * (1 - 1e-12) - abs), d * (1 + rel) * (1 + 1e-12) + abs)
    }

    /// cos(lat) for a latitude in degrees (|lat| <= 90) without a libm call:
    /// Taylor series in `x = |lat|` (radians) up to 45°, of `sin(y)` with
    /// `y = 90° - |lat|` (exact subtraction) beyond, each cut where the next
    /// term is below 1e-17 relative; within a few ulps, and relatively
    /// accurate near the poles.
    @inline(__always)
    static func cosDegrees(_ lat: Double) -> Double {
        let a = Swift.abs(lat)
        if a <= 45 {
            let x = a * d2r, x2 = x * x
            var c = 1.0 / 20_922_789_888_000          // 1/16!
            c = c * x2 - 1.0 / 87_178_291_200          // 1/14!
            c = c * x2 + 1.0 / 479_001_600
            c = c * x2 - 1.0 / 3_628_800
            c = c * x2 + 1.0 / 40_320
            c = c * x2 - 1.0 / 720
            c = c * x2 + 1.0 / 24
            c = c * x2 - 0.5
            return c * x2 + 1
        }
        let y = (90 - a) * d2r, y2 = y * y
        var s = 1.0 / 355_687_428_096_000             // 1/17!
        s = s * y2 - 1.0 / 1_307_674_368_000           // 1/15!
        s = s * y2 + 1.0 / 6_227_020_800
        s = s * y2 - 1.0 / 39_916_800
        s = s * y2 + 1.0 / 362_880
        s = s * y2 - 1.0 / 5040
        s = s * y2 + 1.0 / 120
        s = s * y2 - 1.0 / 6
        return y + y * y2 * s
    }

    /// Haversine central angle (radians); `cos1`, `cos2` are the cosines of the latitudes.
    @inline(__always)
    static func centralAngle(lat1: Double, lon1: Double, cos1: Double,
                             lat2: Double, lon2: Double, cos2: Double) -> Double {
        let sp = sin((lat2 - lat1) * (d2r * 0.5))
        let sl = sin((lon2 - lon1) * (d2r * 0.5))
        let h = sp * sp + cos1 * cos2 * (sl * sl)
        return 2 * asin(Swift.min(1, h.squareRoot()))
    }

    /// Angular (degrees) longitude distance from `lon` to the interval
    /// `[west, east]` (`west <= east`), going either way round; 0 inside.
    @inline(__always)
    static func longitudeGap(_ lon: Double, west: Double, east: Double) -> Double {
        if lon >= west && lon <= east { return 0 }
        var a = west - lon
        if a < 0 { a += 360 }
        var b = lon - east
        if b < 0 { b += 360 }
        return Swift.min(Swift.min(a, b), 180)
    }

    /// A lower bound of the central angle (radians) between the point and any
    /// point of the box `[west, east] × [south, north]` (`west <= east`).
    ///
    /// From `hav(c) = hav(Δφ) + cos φ1 cos φ2 hav(Δλ)`, each term bounded
    /// below over the box: `|Δφ|` by the latitude gap, `cos φ2` by its minimum
    /// on `[south, north]`, `|Δλ|` by the longitude gap.
    @inline(__always)
    static func angleLowerBound(lat: Double, lon: Double, cosLat: Double,
                                west: Double, south: Double, east: Double, north: Double) -> Double {
        let dlat = Swift.max(0, Swift.max(south - lat, lat - north))
        let dlon = longitudeGap(lon, west: west, east: east)
        if dlon == 0 { return dlat * d2r }
        let sl = sin(dlat * (d2r * 0.5))
        let sn = sin(dlon * (d2r * 0.5))
        let cmin = Swift.max(0, cos(Swift.max(Swift.abs(south), Swift.abs(north)) * d2r))
        let h = sl * sl + cosLat * cmin * (sn * sn)
        return 2 * asin(Swift.min(1, h.squareRoot()))
    }

    /// A lower bound of `sin(y)` for `y` in `[0, π/2]` without calling `sin`:
    /// the Taylor series cut after a negative term (alternating, decreasing terms).
    @inline(__always)
    static func sinLowerBound(_ y: Double) -> Double {
        let y2 = y * y
        return y * (1 - (y2 / 6) * (1 - (y2 / 20) * (1 - y2 / 42)))
    }

    /// As `angleLowerBound`, without transcendental calls (for best-first
    /// keys): `sin` replaced by `sinLowerBound`, `2 asin(√h)` by `2 √h`;
    /// and, as the haversine bound is weak for boxes reaching a pole, also at
    /// least the distance to the great circles of the two bounding meridians,
    /// `asin(cos φ |sin Δλ|) >= cos φ |sin Δλ|` (the nearest point of a box
    /// not spanning the point's longitude lies on one of them).
    /// Tight for nearby boxes, a few percent loose at thousands of kilometres.
    @inline(__always)
    static func fastAngleLowerBound(lat: Double, lon: Double, cosLat: Double,
                                    west: Double, south: Double, east: Double, north: Double) -> Double {
        let dlat = Swift.max(0, Swift.max(south - lat, lat - north))
        if lon >= west && lon <= east { return dlat * d2r }
        var a = west - lon
        if a < 0 { a += 360 }
        var b = lon - east
        if b < 0 { b += 360 }
        let dlon = Swift.min(Swift.min(a, b), 180)
        let sl = sinLowerBound(dlat * (d2r * 0.5))
        let sn = sinLowerBound(dlon * (d2r * 0.5))
        let cmin = Swift.max(0, sinLowerBound((90 - Swift.max(Swift.abs(south), Swift.abs(north))) * d2r))
        let h = sl * sl + cosLat * cmin * (sn * sn)
        // |sin g| = sin(y) with y the distance from g to the nearest multiple of 180°, in [0, 90].
        @inline(__always) func foldedSin(_ g: Double) -> Double {
            let g1 = g > 180 ? 360 - g : g
            return sinLowerBound(Swift.min(g1, 180 - g1) * d2r)
        }
        let meridian = cosLat * Swift.min(foldedSin(a), foldedSin(b))
        return Swift.max(2 * h.squareRoot(), meridian)
    }

    /// A lower bound of the central angle between two points, without
    /// transcendental calls (`cos1`, `cos2`: cosines of the latitudes).
    @inline(__always)
    static func fastAngleLowerBound(lat1: Double, lon1: Double, cos1: Double,
                                    lat2: Double, lon2: Double, cos2: Double) -> Double {
        let dlat = Swift.abs(lat2 - lat1)
        var dlon = Swift.abs(lon2 - lon1)
        if dlon > 180 { dlon = 360 - dlon }
        let sl = sinLowerBound(dlat * (d2r * 0.5))
        let sn = sinLowerBound(dlon * (d2r * 0.5))
        let h = sl * sl + cos1 * cos2 * (sn * sn)
        return 2 * h.squareRoot()
    }

    /// As `capBox`, without transcendental calls for small caps away from
    /// the poles (`cosLat`: the cosine of the latitude): the half-width
    /// `asin(sin(angle) / cos(lat))` is bounded above with `sin(x) <= x` and
    /// `asin(x) <= x + x³ / (6(1 - x²))` (the `asin` series has coefficients
    /// at most 1/6), so the box contains `capBox`'s. Falls back to `capBox`.
    @inline(__always)
    static func capBox(lat: Double, lon: Double, angle: Double, cosLat: Double) -> GeoBox {
        let pad = 1e-9
        let rd = angle * r2d * (1 + 1e-12) + pad
        let south = lat - rd, north = lat + rd
        let s = angle / cosLat * (1 + 1e-12)
        guard angle < 0.01, north < 89, south > -89, s < 0.1 else { return capBox(lat: lat, lon: lon, angle: angle) }
        let dl = (s + s * s * s / (6 * (1 - s * s))) * r2d * (1 + 1e-12) + pad
        var west = lon - dl, east = lon + dl
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        return GeoBox(west: west, south: south, east: east, north: north)
    }

    /// The lon/lat box of the spherical cap of `angle` radians around a point:
    /// it contains every position within that central angle. Full longitude
    /// range when the cap holds a pole; crosses the antimeridian when needed.
    static func capBox(lat: Double, lon: Double, angle: Double) -> GeoBox {
        if angle >= Double.pi { return .world }
        let pad = 1e-9
        let rd = angle * r2d * (1 + 1e-12) + pad
        let south = lat - rd, north = lat + rd
        if north >= 90 || south <= -90 {
            return GeoBox(west: -180, south: Swift.max(-90, south), east: 180, north: Swift.min(90, north))
        }
        let s = sin(angle) / cos(lat * d2r)
        if !(s < 1) { return GeoBox(west: -180, south: south, east: 180, north: north) }
        let dl = asin(s) * r2d * (1 + 1e-12) + pad
        if dl >= 180 { return GeoBox(west: -180, south: south, east: 180, north: north) }
        var west = lon - dl, east = lon + dl
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        if west <= east && (lon - dl < -180 || lon + dl > 180) {
            // Wrapped onto itself: the full range.
            return GeoBox(west: -180, south: south, east: 180, north: north)
        }
        return GeoBox(west: west, south: south, east: east, north: north)
    }
}
