import Foundation

/// Geodesics on an ellipsoid of revolution (WGS84 by default), by C. F. F. Karney's
/// algorithms ("Algorithms for geodesics", J. Geodesy 87, 43–55, 2013), in pure Swift.
///
/// The series in the third flattening `n` are carried to sixth order, so that results
/// are accurate to round-off (about 15 nm on WGS84) for |f| < 1/50. The inverse
/// problem is solved by Newton's method on the azimuth at the first point, started
/// from a spherical estimate (or, for nearly antipodal points, from the solution of
/// the astroid equation) and guarded by a bracket so that it falls back to bisection
/// if Newton's method ever steps out of it.
///
/// The value holds only precomputed `Double`s (ellipsoid constants and the
/// coefficients of the series that depend on `n`), so it is `Sendable` and costs
/// nothing to share; the solvers allocate nothing.
public struct Geodesic: Sendable {
    /// WGS84 semi-major axis, metres.
    public static let wgs84A = 6_378_137.0
    /// WGS84 flattening.
    public static let wgs84F = 1.0 / 298.257223563

    /// The WGS84 ellipsoid.
    public static let wgs84 = Geodesic(a: wgs84A, f: wgs84F)

    /// Equatorial radius (metres).
    @usableFromInline let a: Double
    /// Flattening.
    @usableFromInline let f: Double
    /// 1 − f, the ratio of the polar to the equatorial radius.
    @usableFromInline let f1: Double
    /// Second eccentricity squared, e² / (1 − e²).
    @usableFromInline let ep2: Double
    /// Third flattening, f / (2 − f).
    @usableFromInline let n: Double
    /// Polar radius (metres).
    @usableFromInline let b: Double
    /// Threshold on σ12 below which a line is "really short" and the auxiliary-sphere
    /// solution is used directly.
    @usableFromInline let etol2: Double
    /// A3(ε) = Σ a3.k εᵏ (k = 0…5), the coefficients being polynomials in n.
    @usableFromInline let a3: (Double, Double, Double, Double, Double, Double)
    /// C31(ε) = Σ c31.(k − 1) εᵏ, k = 1…5; the coefficients are polynomials in n.
    @usableFromInline let c31: (Double, Double, Double, Double, Double)
    /// C32(ε) = Σ c32.(k − 2) εᵏ, k = 2…5.
    @usableFromInline let c32: (Double, Double, Double, Double)
    /// C33(ε) = Σ c33.(k − 3) εᵏ, k = 3…5.
    @usableFromInline let c33: (Double, Double, Double)
    /// C34(ε) = Σ c34.(k − 4) εᵏ, k = 4…5.
    @usableFromInline let c34: (Double, Double)
    /// C35(ε) = c35 ε⁵.
    @usableFromInline let c35: Double

    /// An ellipsoid with equatorial radius `a` (metres) and flattening `f`
    /// (negative for a prolate ellipsoid, 0 for a sphere).
    /// - Complexity: O(1); evaluates the series coefficients that depend on the flattening once.
    public init(a: Double, f: Double) {
        self.a = a
        self.f = f
        f1 = 1 - f
        let e2 = f * (2 - f)
        ep2 = e2 / (f1 * f1)
        let n = f / (2 - f)
        self.n = n
        b = a * f1
        etol2 = 0.1 * GeodesicMath.tol2 / (max(0.001, abs(f)) * min(1, 1 - f / 2) / 2).squareRoot()

        // Eq. (24) of the paper: A3 to order ε⁵.
        let n2 = n * n
        a3 = (1,
              (n - 1) / 2,
              (3 * n2 - n - 2) / 8,
              (-n2 - 3 * n - 1) / 16,
              (-2 * n - 3) / 64,
              -3.0 / 128)
        // Eq. (25): the Fourier coefficients C3ₗ to order ε⁵.
        c31 = ((1 - n) / 4,
               (1 - n2) / 8,
               (3 + 3 * n - n2) / 64,
               (5 + 2 * n) / 128,
               3.0 / 128)
        c32 = ((2 - 3 * n + n2) / 32,
               (3 - 2 * n - 3 * n2) / 64,
               (3 + n) / 128,
               5.0 / 256)
        c33 = ((5 - 9 * n + 5 * n2) / 192,
               (9 - 10 * n) / 384,
               7.0 / 512)
        c34 = ((7 - 14 * n) / 512,
               7.0 / 512)
        c35 = 21.0 / 2560
    }

    /// The result of an inverse problem.
    public struct Inverse: Sendable, Hashable {
        /// Distance in metres.
        public var distance: Double
        /// Azimuth at the first point, degrees clockwise from north.
        public var azimuth1: Double
        /// Azimuth at the second point (forward direction), degrees.
        public var azimuth2: Double

        /// A result from its parts.
        /// - Complexity: O(1).
        @inlinable
        public init(distance: Double, azimuth1: Double, azimuth2: Double) {
            self.distance = distance; self.azimuth1 = azimuth1; self.azimuth2 = azimuth2
        }
    }

    /// Shortest distance and azimuths between two points (degrees). Latitudes must be in
    /// [-90, 90] (otherwise the result is NaN); longitudes may be any finite value.
    /// Azimuths are in [-180, 180]; at a pole, the azimuth is the limit approaching the
    /// pole along the given meridian.
    /// - Complexity: O(1): a handful of Newton iterations (about 2–3 on average, at most
    ///   a fixed bound) of series evaluations of fixed length; no allocation.
    @inlinable
    public func inverse(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Inverse {
        let r = solveInverse(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        return Inverse(distance: r.s12,
                       azimuth1: GeodesicMath.atan2d(r.salp1, r.calp1),
                       azimuth2: GeodesicMath.atan2d(r.salp2, r.calp2))
    }

    /// Shortest distance in metres between two points given in degrees (as `inverse`,
    /// without converting the azimuths).
    /// - Complexity: O(1), as `inverse`; no allocation.
    @inlinable
    public func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        solveInverse(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2).s12
    }

    /// The point reached from (`lat`, `lon`) after `distance` metres (may be negative)
    /// on the initial `azimuth` (degrees clockwise from north), and the forward azimuth
    /// there. Longitude and azimuth are in [-180, 180].
    /// - Complexity: O(1): a fixed number of series evaluations, no iteration; no allocation.
    @inlinable
    public func direct(lat: Double, lon: Double, azimuth: Double, distance: Double) -> (lat: Double, lon: Double, azimuth: Double) {
        solveDirect(lat1: lat, lon1: lon, azi1: azimuth, s12: distance)
    }
}

// MARK: - Series in ε (coefficients independent of the ellipsoid)

/// A sine series Σ cₖ sin(2kσ), k = 1…6.
@usableFromInline typealias Series6 = (Double, Double, Double, Double, Double, Double)
/// A sine series Σ cₖ sin(2kσ), k = 1…5.
@usableFromInline typealias Series5 = (Double, Double, Double, Double, Double)

extension Geodesic {
    /// A1 − 1, eq. (17): A1 = (1 + ε²/4 + ε⁴/64 + ε⁶/256) / (1 − ε).
    @inline(__always) @usableFromInline
    static func a1m1(_ eps: Double) -> Double {
        let e2 = eps * eps
        let t = e2 * (1.0 / 4 + e2 * (1.0 / 64 + e2 * (1.0 / 256)))
        return (t + eps) / (1 - eps)
    }

    /// C1ₗ, eq. (18): coefficients of the distance series I1.
    @inline(__always) @usableFromInline
    static func c1(_ eps: Double) -> Series6 {
        let e2 = eps * eps
        let d1 = eps, d2 = d1 * eps, d3 = d2 * eps, d4 = d3 * eps, d5 = d4 * eps, d6 = d5 * eps
        return (d1 * (-1.0 / 2 + e2 * (3.0 / 16 - e2 * (1.0 / 32))),
                d2 * (-1.0 / 16 + e2 * (1.0 / 32 - e2 * (9.0 / 2048))),
                d3 * (-1.0 / 48 + e2 * (3.0 / 256)),
                d4 * (-5.0 / 512 + e2 * (3.0 / 512)),
                d5 * (-7.0 / 1280),
                d6 * (-7.0 / 2048))
    }

    /// C1′ₗ, eq. (21): coefficients of the reverted series, σ from τ.
    @inline(__always) @usableFromInline
    static func c1p(_ eps: Double) -> Series6 {
        let e2 = eps * eps
        let d1 = eps, d2 = d1 * eps, d3 = d2 * eps, d4 = d3 * eps, d5 = d4 * eps, d6 = d5 * eps
        return (d1 * (1.0 / 2 + e2 * (-9.0 / 32 + e2 * (205.0 / 1536))),
                d2 * (5.0 / 16 + e2 * (-37.0 / 96 + e2 * (1335.0 / 4096))),
                d3 * (29.0 / 96 - e2 * (75.0 / 128)),
                d4 * (539.0 / 1536 - e2 * (2391.0 / 2560)),
                d5 * (3467.0 / 7680),
                d6 * (38081.0 / 61440))
    }

    /// A2 − 1, eq. (42), in the form A2 = (1 − 3ε²/4 − 7ε⁴/64 − 11ε⁶/256) / (1 + ε).
    @inline(__always) @usableFromInline
    static func a2m1(_ eps: Double) -> Double {
        let e2 = eps * eps
        let t = -e2 * (3.0 / 4 + e2 * (7.0 / 64 + e2 * (11.0 / 256)))
        return (t - eps) / (1 + eps)
    }

    /// C2ₗ, eq. (43): coefficients of the reduced-length series I2.
    @inline(__always) @usableFromInline
    static func c2(_ eps: Double) -> Series6 {
        let e2 = eps * eps
        let d1 = eps, d2 = d1 * eps, d3 = d2 * eps, d4 = d3 * eps, d5 = d4 * eps, d6 = d5 * eps
        return (d1 * (1.0 / 2 + e2 * (1.0 / 16 + e2 * (1.0 / 32))),
                d2 * (3.0 / 16 + e2 * (1.0 / 32 + e2 * (35.0 / 2048))),
                d3 * (5.0 / 48 + e2 * (5.0 / 256)),
                d4 * (35.0 / 512 + e2 * (7.0 / 512)),
                d5 * (63.0 / 1280),
                d6 * (77.0 / 2048))
    }

    /// A3(ε) for this ellipsoid.
    @inline(__always) @usableFromInline
    func a3f(_ eps: Double) -> Double {
        a3.0 + eps * (a3.1 + eps * (a3.2 + eps * (a3.3 + eps * (a3.4 + eps * a3.5))))
    }

    /// C3ₗ(ε) for this ellipsoid, l = 1…5.
    @inline(__always) @usableFromInline
    func c3f(_ eps: Double) -> Series5 {
        let d1 = eps, d2 = d1 * eps, d3 = d2 * eps, d4 = d3 * eps, d5 = d4 * eps
        return (d1 * (c31.0 + eps * (c31.1 + eps * (c31.2 + eps * (c31.3 + eps * c31.4)))),
                d2 * (c32.0 + eps * (c32.1 + eps * (c32.2 + eps * c32.3))),
                d3 * (c33.0 + eps * (c33.1 + eps * c33.2)),
                d4 * (c34.0 + eps * c34.1),
                d5 * c35)
    }

    /// Σ cₖ sin(2kσ), k = 1…6, by Clenshaw's recurrence, given sin σ and cos σ.
    @inline(__always) @usableFromInline
    static func sinSeries(_ s: Double, _ c: Double, _ k: Series6) -> Double {
        let ar = 2 * (c - s) * (c + s)              // 2 cos 2σ
        var y1 = k.5
        var y0 = ar * y1 + k.4
        y1 = ar * y0 - y1 + k.3
        y0 = ar * y1 - y0 + k.2
        y1 = ar * y0 - y1 + k.1
        y0 = ar * y1 - y0 + k.0
        return 2 * s * c * y0                       // sin 2σ · y0
    }

    /// Σ cₖ sin(2kσ), k = 1…5, by Clenshaw's recurrence, given sin σ and cos σ.
    @inline(__always) @usableFromInline
    static func sinSeries(_ s: Double, _ c: Double, _ k: Series5) -> Double {
        let ar = 2 * (c - s) * (c + s)
        var y0 = k.4
        var y1 = ar * y0 + k.3
        y0 = ar * y1 - y0 + k.2
        y1 = ar * y0 - y1 + k.1
        y0 = ar * y1 - y0 + k.0
        return 2 * s * c * y0
    }
}

// MARK: - Angles in degrees

/// Exact angle arithmetic in degrees and the solvers' tolerances.
@usableFromInline
enum GeodesicMath {
    @usableFromInline static let degree = Double.pi / 180
    /// sqrt of the smallest normal number: a positive stand-in for zero that survives squaring.
    @usableFromInline static let tiny = Double.leastNormalMagnitude.squareRoot()
    @usableFromInline static let tol0 = Double.ulpOfOne
    @usableFromInline static let tol1 = 200 * tol0
    @usableFromInline static let tol2 = tol0.squareRoot()
    /// Convergence of the bisection bracket.
    @usableFromInline static let tolb = tol0
    @usableFromInline static let xthresh = 1000 * tol2
    /// Newton iterations before falling back to pure bisection, and the overall cap.
    @usableFromInline static let maxNewton = 20
    @usableFromInline static let maxIterations = maxNewton + Double.significandBitCount + 1 + 10

    /// NaN for latitudes outside [-90, 90].
    @inline(__always) @usableFromInline
    static func checkLatitude(_ x: Double) -> Double { abs(x) > 90 ? .nan : x }

    /// Rounds tiny magnitudes to multiples of 2⁻⁵⁷ (degrees), so that values very close
    /// to 0 become exactly 0 rather than leaving denormal-scale sines.
    @inline(__always) @usableFromInline
    static func round(_ x: Double) -> Double {
        let z = 1.0 / 16
        var y = abs(x)
        let w = z - y
        y = w > 0 ? z - w : y
        return Double(signOf: x, magnitudeOf: y)
    }

    /// x reduced to [-180, 180] exactly (180 keeps the sign of x).
    @inline(__always) @usableFromInline
    static func normalize(_ x: Double) -> Double {
        let y = x.remainder(dividingBy: 360)
        return abs(y) == 180 ? Double(signOf: x, magnitudeOf: 180) : y
    }

    /// u + v as a rounded sum and its exact error (Knuth's two-sum).
    @inline(__always) @usableFromInline
    static func twoSum(_ u: Double, _ v: Double) -> (sum: Double, error: Double) {
        let s = u + v
        var up = s - v
        var vpp = s - up
        up -= u
        vpp -= v
        return (s, s != 0 ? 0 - (up + vpp) : s)
    }

    /// y − x reduced to [-180, 180], as a rounded value and its (exact) rounding error.
    /// The difference is −180 only when the exact difference is just above −180.
    @inline(__always) @usableFromInline
    static func difference(_ x: Double, _ y: Double) -> (d: Double, error: Double) {
        let first = twoSum((-x).remainder(dividingBy: 360), y.remainder(dividingBy: 360))
        let second = twoSum(first.sum.remainder(dividingBy: 360), first.error)
        var d = second.sum
        let t = second.error
        if d == 0 || abs(d) == 180 {
            d = Double(signOf: t == 0 ? y - x : -t, magnitudeOf: d)
        }
        return (d, t)
    }

    /// sin and cos of x degrees, with x reduced exactly to [-45, 45] first so that
    /// multiples of 90 give exact zeros and ones.
    @inline(__always) @usableFromInline
    static func sincosd(_ x: Double) -> (sin: Double, cos: Double) {
        let r = x.remainder(dividingBy: 90)         // exact, |r| ≤ 45
        return quadrant(x, r, r * degree)
    }

    /// sin and cos of x + t degrees, for x in [-180, 180] and a small correction t
    /// (the rounding error of x): the reduced angle is rounded by `round` before use.
    @inline(__always) @usableFromInline
    static func sincosd(_ x: Double, plus t: Double) -> (sin: Double, cos: Double) {
        let r = x.remainder(dividingBy: 90)
        return quadrant(x, r, round(r + t) * degree)
    }

    /// sin and cos of x from the reduced angle (radians) and the quadrant of x.
    @inline(__always) @usableFromInline
    static func quadrant(_ x: Double, _ r: Double, _ radians: Double) -> (sin: Double, cos: Double) {
        let s = sin(radians), c = cos(radians)
        // The quadrant: (x − r) / 90 is an exact integer (for |x| < 2⁵³).
        var q = ((x - r) / 90).truncatingRemainder(dividingBy: 4)
        if q < 0 { q += 4 }
        var sinx: Double, cosx: Double
        if q == 0 {
            sinx = s; cosx = c
        } else if q == 1 {
            sinx = c; cosx = -s
        } else if q == 2 {
            sinx = -s; cosx = -c
        } else {                                    // 3, or NaN
            sinx = -c; cosx = s
        }
        cosx += 0                                   // −0 → +0
        if sinx == 0 { sinx = Double(signOf: x, magnitudeOf: 0) }
        return (sinx, cosx)
    }

    /// atan2(y, x) in degrees, in [-180, 180], computed in the octant where atan2 is
    /// accurate and mapped back exactly.
    @inline(__always) @usableFromInline
    static func atan2d(_ y: Double, _ x: Double) -> Double {
        var x = x, y = y
        var q = 0
        if abs(y) > abs(x) { swap(&x, &y); q = 2 }
        if x.sign == .minus { x = -x; q += 1 }
        let ang = atan2(y, x) / degree              // in [-45, 45]
        switch q {
        case 1: return Double(signOf: y, magnitudeOf: 180) - ang
        case 2: return 90 - ang
        case 3: return -90 + ang
        default: return ang
        }
    }

    /// (s, c) scaled to unit length. `hypot` rather than the plain square root: short
    /// lines take their azimuths and arcs from differences of such values, where an ulp
    /// shows (and `hypot` cannot underflow on the tiny values used at the poles).
    @inline(__always) @usableFromInline
    static func unit(_ s: Double, _ c: Double) -> (Double, Double) {
        let r = hypot(s, c)
        return (s / r, c / r)
    }
}
