import Foundation

// The inverse and direct solvers. Notation follows Karney (2013): β reduced latitude,
// α azimuth, σ arc length on the auxiliary sphere, ω longitude on the auxiliary
// sphere, λ longitude on the ellipsoid, ε the expansion parameter of the series,
// "s…"/"c…" the sine and cosine of an angle. Point 1 is the start, point 2 the end.

/// sin and cos of σ at both ends of a geodesic, and the arc σ12 between them.
@usableFromInline
struct ArcEnds {
    @usableFromInline var ssig1 = 0.0, csig1 = 0.0, ssig2 = 0.0, csig2 = 0.0, sig12 = 0.0

    @inlinable init() {}
}

extension Geodesic {
    /// The inverse problem: distance and the sines and cosines of both azimuths
    /// (not normalized to unit length), in the caller's orientation.
    @usableFromInline
    func solveInverse(lat1: Double, lon1: Double, lat2: Double, lon2: Double)
        -> (s12: Double, salp1: Double, calp1: Double, salp2: Double, calp2: Double)
    {
        typealias M = GeodesicMath
        // Longitude difference in [0, 180], with its rounding error.
        var (lon12, lon12err) = M.difference(lon1, lon2)
        var lonSign: Double = lon12.sign == .minus ? -1 : 1
        lon12 *= lonSign
        lon12err *= lonSign
        let lam12 = lon12 * M.degree
        let (slam12, clam12) = M.sincosd(lon12, plus: lon12err)
        let lon12s = (180 - lon12) - lon12err       // 180° − lon12, the supplement

        // Canonical form: |lat1| ≥ |lat2|, lat1 ≤ 0, 0 ≤ lon12 ≤ 180. The signs record
        // the transformation so that it can be undone on the azimuths.
        var phi1 = M.round(M.checkLatitude(lat1))
        var phi2 = M.round(M.checkLatitude(lat2))
        let swapped = abs(phi1) < abs(phi2) || phi2.isNaN
        if swapped {
            lonSign = -lonSign
            swap(&phi1, &phi2)
        }
        let latSign: Double = phi1.sign == .minus ? 1 : -1
        phi1 *= latSign
        phi2 *= latSign

        var (sbet1, cbet1) = M.sincosd(phi1)
        (sbet1, cbet1) = M.unit(sbet1 * f1, cbet1)
        cbet1 = max(M.tiny, cbet1)                  // +tiny at a pole
        var (sbet2, cbet2) = M.sincosd(phi2)
        (sbet2, cbet2) = M.unit(sbet2 * f1, cbet2)
        cbet2 = max(M.tiny, cbet2)

        // Where |β1| and |β2| are equal to round-off, make them exactly so (the
        // iteration relies on this symmetry): compare via cos β near the poles,
        // via sin β elsewhere.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = Double(signOf: sbet2, magnitudeOf: sbet1) }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }

        let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()

        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        var s12x = 0.0

        var meridian = phi1 == -90 || slam12 == 0
        if meridian {
            // Both points on one full meridian: the geodesic may be that meridian
            // (heading to the target longitude at point 1, north at point 2).
            calp1 = clam12; salp1 = slam12
            calp2 = 1; salp2 = 0
            var arc = ArcEnds()
            arc.ssig1 = sbet1; arc.csig1 = calp1 * cbet1
            arc.ssig2 = sbet2; arc.csig2 = calp2 * cbet2
            arc.sig12 = atan2(max(0, arc.csig1 * arc.ssig2 - arc.ssig1 * arc.csig2) + 0,
                              arc.csig1 * arc.csig2 + arc.ssig1 * arc.ssig2)
            var (s12b, m12b) = lengths(eps: n, arc, dn1: dn1, dn2: dn2)
            if arc.sig12 < M.tol2 || m12b >= 0 {
                // Coincident (or nearly) points must not yield a negative length.
                if arc.sig12 < 3 * M.tiny || (arc.sig12 < M.tol0 && (s12b < 0 || m12b < 0)) {
                    s12b = 0; m12b = 0
                }
                s12x = s12b * b
            } else {
                meridian = false                    // prolate, past the conjugate point
            }
        }

        if !meridian && sbet1 == 0 && (f <= 0 || lon12s >= f * 180) {
            // Along the equator (sbet2 is 0 too, since |β1| ≥ |β2|).
            calp1 = 0; calp2 = 0; salp1 = 1; salp2 = 1
            s12x = a * lam12
        } else if !meridian {
            let start = inverseStart(sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                                     lam12: lam12, slam12: slam12, clam12: clam12)
            salp1 = start.salp1; calp1 = start.calp1
            if start.sig12 >= 0 {
                // Really short line: the auxiliary sphere solution is accurate.
                salp2 = start.salp2; calp2 = start.calp2
                s12x = start.sig12 * b * start.dnm
            } else {
                // Newton's method on α1 for λ12(α1) − λ12 = 0. The root lies in (0, π),
                // where the function increases; [α1a, α1b] brackets it, shrinking with
                // each evaluation, and a step that leaves (0, π) or a non-positive
                // derivative falls back to the bracket's midpoint.
                var salp1a = M.tiny, calp1a = 1.0, salp1b = M.tiny, calp1b = -1.0
                var tripNewton = false, tripBisection = false
                var arc = ArcEnds()
                var eps = 0.0
                for iteration in 0...M.maxIterations {
                    let r = lambda12(sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                                     salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12,
                                     derivative: iteration < M.maxNewton)
                    salp2 = r.salp2; calp2 = r.calp2; arc = r.arc; eps = r.eps
                    let v = r.lam12
                    // Written so that a NaN ends the loop.
                    if tripBisection || !(abs(v) >= (tripNewton ? 8 : 1) * M.tol0) || iteration == M.maxIterations {
                        break
                    }
                    if v > 0 && (iteration > M.maxNewton || calp1 / salp1 > calp1b / salp1b) {
                        salp1b = salp1; calp1b = calp1
                    } else if v < 0 && (iteration > M.maxNewton || calp1 / salp1 < calp1a / salp1a) {
                        salp1a = salp1; calp1a = calp1
                    }
                    if iteration < M.maxNewton && r.dlam12 > 0 {
                        let dalp1 = -v / r.dlam12
                        if abs(dalp1) < .pi {
                            let sdalp1 = sin(dalp1), cdalp1 = cos(dalp1)
                            let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                            if nsalp1 > 0 {
                                calp1 = calp1 * cdalp1 - salp1 * sdalp1
                                salp1 = nsalp1
                                (salp1, calp1) = M.unit(salp1, calp1)
                                // Where the slope vanishes convergence is only linear:
                                // then ask for an ε-sized residual, not a √ε-sized step.
                                tripNewton = abs(v) <= 16 * M.tol0
                                continue
                            }
                        }
                    }
                    // Bisection.
                    salp1 = (salp1a + salp1b) / 2
                    calp1 = (calp1a + calp1b) / 2
                    (salp1, calp1) = M.unit(salp1, calp1)
                    tripNewton = false
                    tripBisection = abs(salp1a - salp1) + (calp1a - calp1) < M.tolb
                        || abs(salp1 - salp1b) + (calp1 - calp1b) < M.tolb
                }
                s12x = distanceOnly(eps: eps, arc) * b
            }
        }

        // Undo the canonical transformation.
        if swapped {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        let swapSign: Double = swapped ? -1 : 1
        salp1 *= swapSign * lonSign; calp1 *= swapSign * latSign
        salp2 *= swapSign * lonSign; calp2 *= swapSign * latSign
        return (0 + s12x, salp1, calp1, salp2, calp2)  // 0 + turns −0 into 0
    }

    /// Distance / b along a geodesic with parameter ε over the arc `arc`: eq. (15)
    /// with the series I1.
    @inline(__always) @usableFromInline
    func distanceOnly(eps: Double, _ arc: ArcEnds) -> Double {
        let c1 = Self.c1(eps)
        let b1 = Self.sinSeries(arc.ssig2, arc.csig2, c1) - Self.sinSeries(arc.ssig1, arc.csig1, c1)
        return (1 + Self.a1m1(eps)) * (arc.sig12 + b1)
    }

    /// Distance / b and reduced length / b over `arc` (eqs. 15, 38–41).
    @usableFromInline
    func lengths(eps: Double, _ arc: ArcEnds, dn1: Double, dn2: Double) -> (s12b: Double, m12b: Double) {
        let a1m1 = Self.a1m1(eps), c1 = Self.c1(eps)
        let a2m1 = Self.a2m1(eps), c2 = Self.c2(eps)
        let m0 = a1m1 - a2m1
        let a1 = 1 + a1m1, a2 = 1 + a2m1
        let b1 = Self.sinSeries(arc.ssig2, arc.csig2, c1) - Self.sinSeries(arc.ssig1, arc.csig1, c1)
        let s12b = a1 * (arc.sig12 + b1)
        let b2 = Self.sinSeries(arc.ssig2, arc.csig2, c2) - Self.sinSeries(arc.ssig1, arc.csig1, c2)
        let j12 = m0 * arc.sig12 + (a1 * b1 - a2 * b2)
        return (s12b, reducedLength(arc, dn1: dn1, dn2: dn2, j12: j12))
    }

    /// Reduced length / b over `arc` alone (the derivative of λ12 with respect to α1
    /// needs only this): the two series of `lengths` combined into one.
    @inline(__always) @usableFromInline
    func reducedLengthOnly(eps: Double, _ arc: ArcEnds, dn1: Double, dn2: Double) -> Double {
        let a1m1 = Self.a1m1(eps), c1 = Self.c1(eps)
        let a2m1 = Self.a2m1(eps), c2 = Self.c2(eps)
        let m0 = a1m1 - a2m1
        let a1 = 1 + a1m1, a2 = 1 + a2m1
        let cb: Series6 = (a1 * c1.0 - a2 * c2.0, a1 * c1.1 - a2 * c2.1, a1 * c1.2 - a2 * c2.2,
                           a1 * c1.3 - a2 * c2.3, a1 * c1.4 - a2 * c2.4, a1 * c1.5 - a2 * c2.5)
        let j12 = m0 * arc.sig12 + (Self.sinSeries(arc.ssig2, arc.csig2, cb) - Self.sinSeries(arc.ssig1, arc.csig1, cb))
        return reducedLength(arc, dn1: dn1, dn2: dn2, j12: j12)
    }

    /// m12 / b from J12, eq. (38). The grouping keeps the cancellation exact for
    /// coincident points.
    @inline(__always) @usableFromInline
    func reducedLength(_ arc: ArcEnds, dn1: Double, dn2: Double, j12: Double) -> Double {
        dn2 * (arc.csig1 * arc.ssig2) - dn1 * (arc.ssig1 * arc.csig2) - arc.csig1 * arc.csig2 * j12
    }

    /// λ12 − λ12⁽⁰⁾ as a function of α1 (the quantity Newton's method drives to 0), its
    /// derivative with respect to α1 (when `derivative`), and the geodesic's other
    /// quantities at that α1.
    @usableFromInline
    func lambda12(sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
                  salp1: Double, calp1 calp1In: Double, slam120: Double, clam120: Double, derivative: Bool)
        -> (lam12: Double, dlam12: Double, salp2: Double, calp2: Double, arc: ArcEnds, eps: Double)
    {
        typealias M = GeodesicMath
        // On the equator heading due north or south, nudge α1 off 90° so that the
        // line is not mistaken for the equator (that case is handled separately).
        let calp1 = sbet1 == 0 && calp1In == 0 ? -M.tiny : calp1In

        let salp0 = salp1 * cbet1                   // Clairaut: sin α0 = sin α1 cos β1
        let calp0 = hypot(calp1, salp1 * sbet1)     // > 0

        // tan β1 = tan σ1 cos α1, tan ω1 = sin α0 tan σ1 (ω needs no normalizing).
        var arc = ArcEnds()
        arc.ssig1 = sbet1
        let somg1 = salp0 * sbet1
        arc.csig1 = calp1 * cbet1
        let comg1 = arc.csig1
        (arc.ssig1, arc.csig1) = M.unit(arc.ssig1, arc.csig1)

        // α2 from Clairaut; when |β2| = |β1| take it from α1 directly (the symmetric
        // case where round-off would otherwise spoil the iteration).
        let salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        let calp2: Double
        if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
            let dq = cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)
            calp2 = ((calp1 * cbet1) * (calp1 * cbet1) + dq).squareRoot() / cbet2
        } else {
            calp2 = abs(calp1)
        }
        arc.ssig2 = sbet2
        let somg2 = salp0 * sbet2
        arc.csig2 = calp2 * cbet2
        let comg2 = arc.csig2
        (arc.ssig2, arc.csig2) = M.unit(arc.ssig2, arc.csig2)

        // σ12 and ω12, both in [0, π].
        arc.sig12 = atan2(max(0, arc.csig1 * arc.ssig2 - arc.ssig1 * arc.csig2) + 0,
                          arc.csig1 * arc.csig2 + arc.ssig1 * arc.ssig2)
        let somg12 = max(0, comg1 * somg2 - somg1 * comg2) + 0
        let comg12 = comg1 * comg2 + somg1 * somg2
        // η = ω12 − λ12⁽⁰⁾, computed as one angle to keep its accuracy.
        let eta = atan2(somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)

        let k2 = calp0 * calp0 * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let c3 = c3f(eps)
        let b312 = Self.sinSeries(arc.ssig2, arc.csig2, c3) - Self.sinSeries(arc.ssig1, arc.csig1, c3)
        let domg12 = -f * a3f(eps) * salp0 * (arc.sig12 + b312)   // λ12 − ω12, eq. (8)
        let lam12 = eta + domg12

        var dlam12 = 0.0
        if derivative {
            if calp2 == 0 {
                dlam12 = -2 * f1 * dn1 / sbet1
            } else {
                // dλ12/dα1 = (m12 / a) / (cos α2 cos β2), eq. (46).
                dlam12 = reducedLengthOnly(eps: eps, arc, dn1: dn1, dn2: dn2)
                dlam12 *= f1 / (calp2 * cbet2)
            }
        }
        return (lam12, dlam12, salp2, calp2, arc, eps)
    }

    /// A starting α1 for Newton's method (σ12 < 0 in the result), or the complete
    /// solution (α1, α2, σ12 ≥ 0 and the mean `dnm`) for really short lines. Points in
    /// canonical form (β1 ≤ 0, |β2| ≤ |β1|, 0 ≤ λ12 ≤ π).
    @usableFromInline
    func inverseStart(sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
                      lam12: Double, slam12: Double, clam12: Double)
        -> (sig12: Double, salp1: Double, calp1: Double, salp2: Double, calp2: Double, dnm: Double)
    {
        typealias M = GeodesicMath
        var sig12 = -1.0, salp2 = 0.0, calp2 = 0.0, dnm = 0.0
        // β12 = β2 − β1 in [0, π); β12a = β2 + β1 in (−π, 0].
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1
        let shortLine = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        if shortLine {
            // Scale the longitude by the mean of dn over the line, at
            // sin²((β1 + β2)/2) = (sβ1 + sβ2)² / ((sβ1 + sβ2)² + (cβ1 + cβ2)²).
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * dnm)
            somg12 = sin(omg12); comg12 = cos(omg12)
        } else {
            somg12 = slam12; comg12 = clam12
        }

        // The azimuth of the great circle on the auxiliary sphere with ω12 = λ12.
        var salp1 = cbet2 * somg12
        var calp1 = comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)

        let ssig12 = hypot(salp1, calp1)
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

        if shortLine && ssig12 < etol2 {
            // Really short: that great circle is the answer.
            salp2 = cbet1 * somg12
            calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
            (salp2, calp2) = M.unit(salp2, calp2)
            sig12 = atan2(ssig12, csig12)
        } else if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * .pi * cbet1 * cbet1 {
            // Not nearly antipodal (or too eccentric for the astroid): the spherical
            // estimate is a good start.
        } else {
            // Nearly antipodal. Scale to coordinates (x, y) centred on the antipode of
            // point 1, where the singular point is (−1, 0), and estimate from there.
            let x: Double, y: Double, lamscale: Double, betscale: Double
            let lam12x = atan2(-slam12, -clam12)    // λ12 − π
            if f >= 0 {
                // x along the longitude, y along the latitude.
                let k2 = sbet1 * sbet1 * ep2
                let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
                lamscale = f * cbet1 * a3f(eps) * .pi
                betscale = lamscale * cbet1
                x = lam12x / lamscale
                y = sbet12a / betscale
            } else {
                // Prolate: x along the latitude, y along the longitude.
                let cbet12a = cbet2 * cbet1 - sbet2 * sbet1
                let bet12a = atan2(sbet12a, cbet12a)
                var arc = ArcEnds()
                arc.ssig1 = sbet1; arc.csig1 = -cbet1; arc.ssig2 = sbet2; arc.csig2 = cbet2
                arc.sig12 = .pi + bet12a
                let a1m1 = Self.a1m1(n), a2m1 = Self.a2m1(n)
                let m0 = a1m1 - a2m1
                let m12b = reducedLengthOnly(eps: n, arc, dn1: dn1, dn2: dn2)
                x = -1 + m12b / (cbet1 * cbet2 * m0 * .pi)
                betscale = x < -0.01 ? sbet12a / x : -f * cbet1 * cbet1 * .pi
                lamscale = betscale / cbet1
                y = lam12x / lamscale
            }

            if y > -M.tol1 && x > -1 - M.xthresh {
                // Near the cut through the antipode.
                if f >= 0 {
                    salp1 = min(1, -x); calp1 = -(1 - salp1 * salp1).squareRoot()
                } else {
                    calp1 = max(x > -M.tol1 ? 0 : -1, x); salp1 = (1 - calp1 * calp1).squareRoot()
                }
            } else {
                // Solve the astroid problem for ω12 (working with π − ω12, since ω12 is
                // near π) and use the spherical formula with it.
                let k = Self.astroid(x, y)
                let omg12a = lamscale * (f >= 0 ? -x * k / (1 + k) : -y * (1 + k) / k)
                somg12 = sin(omg12a); comg12 = -cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
            }
        }
        // A start outside (0, π) (or NaN) is replaced by α1 = 90°.
        if !(salp1 <= 0) {
            (salp1, calp1) = M.unit(salp1, calp1)
        } else {
            salp1 = 1; calp1 = 0
        }
        return (sig12, salp1, calp1, salp2, calp2, dnm)
    }

    /// The positive root k of k⁴ + 2k³ − (x² + y² − 1)k² − 2y²k − y² = 0 (eq. 55), by the
    /// closed-form solution of the resolvent cubic, arranged to avoid cancellation.
    @usableFromInline
    static func astroid(_ x: Double, _ y: Double) -> Double {
        let p = x * x, q = y * y
        let r = (p + q - 1) / 6
        guard !(q == 0 && r <= 0) else { return 0 }  // y = 0 inside the astroid
        let s = p * q / 4                           // r³ times the cubic's s
        let r2 = r * r, r3 = r * r2
        let disc = s * (s + 2 * r3)                 // 0 on the astroid p^⅓ + q^⅓ = 1
        var u = r
        if disc >= 0 {
            var t3 = s + r3
            t3 += t3 < 0 ? -disc.squareRoot() : disc.squareRoot()   // the larger root
            let t = cbrt(t3)
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            // Three real roots: take the one without cancellation.
            let ang = atan2((-disc).squareRoot(), -(s + r3))
            u += 2 * r * cos(ang / 3)
        }
        let v = (u * u + q).squareRoot()
        let uv = u < 0 ? q / (v - u) : u + v        // u + v > 0
        let w = (uv - q) / (2 * v)
        return uv / ((uv + w * w).squareRoot() + w)
    }

    /// The direct problem: position and forward azimuth after distance `s12` from
    /// (`lat1`, `lon1`) on azimuth `azi1`, all in degrees; longitude in [-180, 180].
    @usableFromInline
    func solveDirect(lat1: Double, lon1: Double, azi1: Double, s12: Double) -> (lat: Double, lon: Double, azimuth: Double) {
        typealias M = GeodesicMath
        let (salp1, calp1) = M.sincosd(M.round(M.normalize(azi1)))
        var (sbet1, cbet1) = M.sincosd(M.round(M.checkLatitude(lat1)))
        (sbet1, cbet1) = M.unit(sbet1 * f1, cbet1)
        cbet1 = max(M.tiny, cbet1)

        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)
        // σ1 and ω1 of point 1, measured from the equator crossing northward.
        let somg1 = salp0 * sbet1
        let comg1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        let (ssig1, csig1) = M.unit(sbet1, comg1)

        let k2 = calp0 * calp0 * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let a1m1 = Self.a1m1(eps), c1 = Self.c1(eps), c1p = Self.c1p(eps)
        let b11 = Self.sinSeries(ssig1, csig1, c1)
        let sb11 = sin(b11), cb11 = cos(b11)
        // τ1 = σ1 + B11, the scaled distance of point 1 from the equator crossing.
        let stau1 = ssig1 * cb11 + csig1 * sb11
        let ctau1 = csig1 * cb11 - ssig1 * sb11

        // σ12 from τ12 by the reverted series, eq. (20).
        let tau12 = s12 / (b * (1 + a1m1))
        let st = sin(tau12), ct = cos(tau12)
        let b12 = -Self.sinSeries(stau1 * ct + ctau1 * st, ctau1 * ct - stau1 * st, c1p)
        var sig12 = tau12 - (b12 - b11)
        var ssig12 = sin(sig12), csig12 = cos(sig12)
        if abs(f) > 0.01 {
            // One Newton step on s(σ) for more eccentric ellipsoids, where the
            // reverted series alone is not accurate to round-off.
            let ssig2 = ssig1 * csig12 + csig1 * ssig12
            let csig2 = csig1 * csig12 - ssig1 * ssig12
            let b12n = Self.sinSeries(ssig2, csig2, c1)
            let serr = (1 + a1m1) * (sig12 + (b12n - b11)) - s12 / b
            sig12 -= serr / (1 + k2 * ssig2 * ssig2).squareRoot()
            ssig12 = sin(sig12); csig12 = cos(sig12)
        }

        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12
        let sbet2 = calp0 * ssig2
        var cbet2 = hypot(salp0, calp0 * csig2)
        if cbet2 == 0 {
            cbet2 = M.tiny; csig2 = M.tiny           // meridian through a pole
        }
        let salp2 = salp0, calp2 = calp0 * csig2

        let somg2 = salp0 * ssig2, comg2 = csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let c3 = c3f(eps)
        let b31 = Self.sinSeries(ssig1, csig1, c3)
        let a3c = -f * salp0 * a3f(eps)
        let lam12 = omg12 + a3c * (sig12 + (Self.sinSeries(ssig2, csig2, c3) - b31))
        let lon12 = lam12 / M.degree
        let lon2 = M.normalize(M.normalize(lon1) + M.normalize(lon12))
        return (M.atan2d(sbet2, f1 * cbet2), lon2, M.atan2d(salp2, calp2))
    }
}
