import Foundation

/// Fast great-circle distances on a sphere, used to filter before the exact
/// ellipsoidal geodesic.
///
/// Bound: for any two points, the WGS84 geodesic distance `s` and the
/// great-circle distance `d` on the sphere of radius `meanRadius`, computed
/// from the same geodetic latitudes and longitudes, satisfy
/// `|s - d| <= relativeError * d + absoluteError`. The worst relative error
/// measured over 200,000 seeded pairs (near-pole, antimeridian, tiny and
/// near-antipodal included; `SphereBoundTests`) is 0.558%, on a ~111 km meridian
/// segment across the equator, so the 0.75% bound leaves a margin of about 1.34.
/// The bound is used only to decide when the exact geodesic must be consulted,
/// never as an answer.
public enum Sphere {
    /// IUGG mean Earth radius R1 = (2a + b) / 3, metres.
    public static let meanRadius = 6_371_008.771_415
    /// Relative error bound of the spherical distance against WGS84 geodesics.
    public static let relativeError = 0.0075
    /// Absolute slack, metres, covering floating-point rounding at tiny distances.
    public static let absoluteError = 0.001

    /// Haversine central angle (radians) between two points in degrees.
    @inlinable
    public static func centralAngle(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let d2r = Double.pi / 180
        let p1 = lat1 * d2r, p2 = lat2 * d2r
        let dp = p2 - p1, dl = (lon2 - lon1) * d2r
        let sp = sin(dp * 0.5), sl = sin(dl * 0.5)
        let h = sp * sp + cos(p1) * cos(p2) * sl * sl
        return 2 * asin(min(1, h.squareRoot()))
    }

    /// Great-circle distance in metres on the mean sphere.
    @inlinable
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        meanRadius * centralAngle(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
    }

    /// An interval certainly containing the WGS84 geodesic distance, given a spherical distance.
    @inlinable
    public static func geodesicBounds(sphericalDistance d: Double) -> ClosedRange<Double> {
        let slack = relativeError * d + absoluteError
        return max(0, d - slack)...(d + slack)
    }
}
