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
///
/// Box-to-box bounds and boxes grown by a distance are in `SphericalBounds+Boxes.swift`.
package enum SphericalBounds {
    /// The mean sphere's radius in metres (`Sphere.meanRadius`).
    package static let radius = Sphere.meanRadius
    /// The relative term of the sphere bound (`Sphere.relativeError`).
    package static let rel = Sphere.relativeError
    /// The absolute term of the sphere bound in metres (`Sphere.absoluteError`).
    package static let abs = Sphere.absoluteError
    /// Radians per degree.
    package static let d2r = Double.pi / 180
    /// Degrees per radian.
    package static let r2d = 180 / Double.pi

    /// A central angle (radians) at least the spherical distance of any pair
    /// whose geodesic distance is at most `metres`.
    @inline(__always)
    package static func capAngle(metres: Double) -> Double {
        (metres + abs) / (1 - rel) / radius * (1 + 1e-12)
    }

    /// A lower bound of the geodesic distance of a pair whose spherical
    /// central angle is at least `angle` radians.
    @inline(__always)
    package static func geodesicLowerBound(angle: Double) -> Double {
        Swift.max(0, angle * radius * (1 - rel) * (1 - 1e-12) - abs)
    }

    /// An upper bound of the geodesic distance of a pair whose spherical
    /// central angle is at most `angle` radians.
    @inline(__always)
    package static func geodesicUpperBound(angle: Double) -> Double {
        angle * radius * (1 + rel) * (1 + 1e-12) + abs
    }

    /// Lower and upper bounds of the geodesic distance of a pair whose
    /// spherical central angle is exactly `angle` radians (up to rounding).
    @inline(__always)
    static func geodesicBounds(angle: Double) -> (lower: Double, upper: Double) {
        (geodesicLowerBound(angle: angle), geodesicUpperBound(angle: angle))
    }

    /// `angle` radians in degrees, rounded outward: raised by a relative
    /// 1e-12 and an absolute 1e-9° (the margins of every box built here).
    @inline(__always)
    package static func outwardDegrees(radians angle: Double) -> Double {
        angle * r2d * (1 + 1e-12) + 1e-9
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

    /// The haversine central angle (radians) for a latitude difference
    /// `dlat` and a longitude difference `dlon` (degrees) between latitudes
    /// with cosines `cos1` and `cos2`: `2 asin √(hav Δφ + cos φ1 cos φ2 hav Δλ)`.
    @inline(__always)
    package static func haversineAngle(dlat: Double, dlon: Double, cos1: Double, cos2: Double) -> Double {
        let sp = sin(dlat * (d2r * 0.5))
        let sl = sin(dlon * (d2r * 0.5))
        let h = sp * sp + cos1 * cos2 * (sl * sl)
        return 2 * asin(Swift.min(1, h.squareRoot()))
    }

    /// Haversine central angle (radians); `cos1`, `cos2` are the cosines of the latitudes.
    @inline(__always)
    package static func centralAngle(lat1: Double, lon1: Double, cos1: Double,
                                     lat2: Double, lon2: Double, cos2: Double) -> Double {
        haversineAngle(dlat: lat2 - lat1, dlon: lon2 - lon1, cos1: cos1, cos2: cos2)
    }

    /// Angular (degrees) longitude distance from `lon` to the interval
    /// `[west, east]` (`west <= east`), going either way round; 0 inside.
    @inline(__always)
    static func longitudeGap(_ lon: Double, west: Double, east: Double) -> Double {
        longitudeGap(lon, lon, west, east)
    }

    /// A lower bound of the central angle (radians) between the point and any
    /// point of the box `[west, east] × [south, north]` (`west <= east`): the
    /// box-to-box bound with the point as a box, `cos φ2` bounded by its
    /// minimum on `[south, north]`.
    @inline(__always)
    static func angleLowerBound(lat: Double, lon: Double, cosLat: Double,
                                west: Double, south: Double, east: Double, north: Double) -> Double {
        angleLowerBound(lon, lat, lon, lat, cosMin: cosLat, west, south, east, north, cosMin2: cosMin(south, north))
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
        let rd = outwardDegrees(radians: angle)
        let south = lat - rd, north = lat + rd
        let s = angle / cosLat * (1 + 1e-12)
        guard angle < 0.01, north < 89, south > -89, s < 0.1 else { return capBox(lat: lat, lon: lon, angle: angle) }
        let dl = outwardDegrees(radians: s + s * s * s / (6 * (1 - s * s)))
        var west = lon - dl, east = lon + dl
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        return GeoBox(west: west, south: south, east: east, north: north)
    }

    /// The lon/lat box of the spherical cap of `angle` radians around a point:
    /// it contains every position within that central angle. Full longitude
    /// range when the cap holds a pole; crosses the antimeridian when needed.
    static func capBox(lat: Double, lon: Double, angle: Double) -> GeoBox {
        capBox(west: lon, south: lat, east: lon, north: lat, angle: angle)
    }
}
