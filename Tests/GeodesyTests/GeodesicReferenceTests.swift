import CPROJ
import Foundation
import XCTest
import GeofenceTestSupport
@testable import Geodesy

/// Compares `Geodesic` (pure Swift) against PROJ's `geod_inverse` / `geod_direct`, an
/// independent implementation of the same algorithms, on seeded random pairs that
/// cover the hard regimes: tiny and nearly antipodal separations, the equator,
/// meridians, the poles, the antimeridian and unreduced longitudes.
final class GeodesicReferenceTests: XCTestCase {
    typealias Pair = (lat1: Double, lon1: Double, lat2: Double, lon2: Double)

    /// Distance agreement: 10 nm, or 1e-14 of the distance, whichever is larger.
    static func distanceTolerance(_ s: Double) -> Double { max(1e-8, 1e-14 * s) }
    /// Azimuth and position agreement, degrees (positions as arcs on the sphere).
    static let angleTolerance = 1e-9

    /// PROJ's geodesic for an ellipsoid.
    static func reference(a: Double, f: Double) -> geod_geodesic {
        var g = geod_geodesic()
        geod_init(&g, a, f)
        return g
    }

    /// Difference of two angles in degrees, reduced to [-180, 180].
    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }

    /// Latitude uniform over the sphere (sin(lat) uniform).
    static func latitude(_ rng: inout SeededGenerator) -> Double {
        asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
    }

    static func longitude(_ rng: inout SeededGenerator) -> Double { Double.random(in: -180...180, using: &rng) }

    /// Seeded pairs by regime (`count` is the size of the larger groups).
    static func pairs(count: Int, reference g: geod_geodesic, seed: UInt64) -> [(group: String, pair: Pair)] {
        var g = g
        var rng = SeededGenerator(seed: seed)
        var out: [(group: String, pair: Pair)] = []
        func add(_ group: String, _ n: Int, _ make: (inout SeededGenerator) -> Pair) {
            for _ in 0..<n { out.append((group, make(&rng))) }
        }
        let small = count / 4
        add("uniform", count) { r in (latitude(&r), longitude(&r), latitude(&r), longitude(&r)) }
        add("tiny (1 mm – 10 m)", count) { r in
            let lat1 = latitude(&r), lon1 = longitude(&r)
            let azimuth = Double.random(in: -180...180, using: &r)
            let s = pow(10, Double.random(in: -3...1, using: &r))
            var lat2 = 0.0, lon2 = 0.0
            geod_direct(&g, lat1, lon1, azimuth, s, &lat2, &lon2, nil)
            return (lat1, lon1, lat2, lon2)
        }
        add("nearly antipodal (1e-3° – 1°)", count) { r in
            let lat1 = latitude(&r), lon1 = longitude(&r)
            let offset = pow(10, Double.random(in: -3...0, using: &r))
            let direction = Double.random(in: 0..<(2 * .pi), using: &r)
            return (lat1, lon1, max(-90, min(90, -lat1 + offset * sin(direction))), lon1 + 180 + offset * cos(direction))
        }
        add("nearly antipodal, same |lat|", small) { r in
            let lat1 = latitude(&r), lon1 = longitude(&r)
            return (lat1, lon1, -lat1, lon1 + 180 + Double.random(in: -1...1, using: &r))
        }
        add("equator", small) { r in (0, longitude(&r), 0, longitude(&r)) }
        add("equator, nearly antipodal", small) { r in
            let lon1 = longitude(&r)
            return (0, lon1, 0, lon1 + 180 + Double.random(in: -1...1, using: &r))
        }
        add("meridian (same longitude)", small) { r in
            let lon = longitude(&r)
            return (latitude(&r), lon, latitude(&r), lon)
        }
        add("meridian (longitudes 180° apart)", small) { r in
            let lon = longitude(&r)
            return (latitude(&r), lon, latitude(&r), lon + (lon < 0 ? 180 : -180))
        }
        add("pole to anywhere", small) { r in
            (Bool.random(using: &r) ? 90 : -90, longitude(&r), latitude(&r), longitude(&r))
        }
        add("anywhere to pole", small / 2) { r in
            (latitude(&r), longitude(&r), Bool.random(using: &r) ? 90 : -90, longitude(&r))
        }
        add("pole to pole", small / 2) { r in
            (Bool.random(using: &r) ? 90 : -90, longitude(&r), Bool.random(using: &r) ? 90 : -90, longitude(&r))
        }
        add("near a pole", small) { r in
            let sign: Double = Bool.random(using: &r) ? 1 : -1
            return (sign * Double.random(in: 89...90, using: &r), longitude(&r),
                    sign * Double.random(in: 89...90, using: &r), longitude(&r))
        }
        add("antimeridian", small) { r in
            (latitude(&r), Double.random(in: 170...180, using: &r), latitude(&r), Double.random(in: -180...(-170), using: &r))
        }
        add("longitudes outside [-180, 180]", small) { r in
            (latitude(&r), Double.random(in: -720...720, using: &r), latitude(&r), Double.random(in: -720...720, using: &r))
        }
        add("coincident", small / 4) { r in
            let p = (latitude(&r), longitude(&r))
            return (p.0, p.1, p.0, p.1 + 360 * Double(Int.random(in: -1...1, using: &r)))
        }
        return out
    }

    /// The largest difference seen and where.
    struct Worst: CustomStringConvertible {
        var value = 0.0
        var place = ""
        mutating func update(_ v: Double, _ group: String, _ input: @autoclosure () -> String) {
            if v > value || v.isNaN { value = v; place = "\(group): \(input())" }
        }
        var description: String { "\(value) (\(place))" }
    }

    /// Inverse against `geod_inverse` on every pair; returns the number of pairs checked.
    @discardableResult
    func checkInverse(a: Double, f: Double, count: Int, seed: UInt64) -> Int {
        var g = Self.reference(a: a, f: f)
        let geodesic = Geodesic(a: a, f: f)
        let cases = Self.pairs(count: count, reference: g, seed: seed)
        var distanceFailures = 0, azimuthFailures = 0, azimuthChecks = 0
        var worstDistance = Worst(), worstAzimuth = Worst()
        for (group, p) in cases {
            var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
            geod_inverse(&g, p.lat1, p.lon1, p.lat2, p.lon2, &s12, &azi1, &azi2)
            let r = geodesic.inverse(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2)
            let ds = abs(r.distance - s12)
            worstDistance.update(ds, group, "\(p)")
            if !(ds <= Self.distanceTolerance(s12)) { distanceFailures += 1 }
            XCTAssertEqual(geodesic.distance(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2), r.distance)
            // Azimuths are undefined for coincident points and at a pole.
            guard s12 > 0, abs(p.lat1) != 90, abs(p.lat2) != 90 else { continue }
            azimuthChecks += 1
            let da = max(abs(Self.angleDifference(r.azimuth1, azi1)), abs(Self.angleDifference(r.azimuth2, azi2)))
            worstAzimuth.update(da, group, "\(p)")
            if !(da <= Self.angleTolerance) { azimuthFailures += 1 }
        }
        print("inverse vs PROJ (a \(a), f \(f)): \(cases.count) pairs, \(azimuthChecks) with azimuths; "
              + "max |Δs| \(worstDistance), max |Δazi| \(worstAzimuth)")
        XCTAssertEqual(distanceFailures, 0, "distances off PROJ beyond tolerance; worst \(worstDistance)")
        XCTAssertEqual(azimuthFailures, 0, "azimuths off PROJ beyond \(Self.angleTolerance)°; worst \(worstAzimuth)")
        return cases.count
    }

    /// Direct against `geod_direct` from the first point of every pair, with random
    /// azimuths (unreduced) and distances (either sign, up to 1.5 times around the
    /// ellipsoid), and with the azimuth and distance of the pair's own inverse.
    @discardableResult
    func checkDirect(a: Double, f: Double, count: Int, seed: UInt64) -> Int {
        var g = Self.reference(a: a, f: f)
        let geodesic = Geodesic(a: a, f: f)
        var rng = SeededGenerator(seed: seed ^ 0xD1EC7)
        let cases = Self.pairs(count: count, reference: g, seed: seed)
        var failures = 0, lonRange = 0
        var worstPosition = Worst(), worstAzimuth = Worst()
        for (group, p) in cases {
            var s12 = 0.0, azi1 = 0.0
            geod_inverse(&g, p.lat1, p.lon1, p.lat2, p.lon2, &s12, &azi1, nil)
            let random = (Double.random(in: -540...540, using: &rng), Double.random(in: -3 * a * .pi...3 * a * .pi, using: &rng))
            for (azimuth, distance) in [random, (azi1, s12)] {
                var lat2 = 0.0, lon2 = 0.0, azi2 = 0.0
                geod_direct(&g, p.lat1, p.lon1, azimuth, distance, &lat2, &lon2, &azi2)
                let r = geodesic.direct(lat: p.lat1, lon: p.lon1, azimuth: azimuth, distance: distance)
                // Position difference as an arc, degrees: longitude scaled by cos(lat),
                // so that a point at (or within round-off of) a pole, whose longitude is
                // arbitrary, compares by where it is.
                let dp = max(abs(r.lat - lat2), abs(Self.angleDifference(r.lon, lon2)) * cos(lat2 * .pi / 180))
                let da = abs(Self.angleDifference(r.azimuth, azi2))
                let start = "lat \(p.lat1), lon \(p.lon1), azimuth \(azimuth), distance \(distance)"
                worstPosition.update(dp, group, start)
                worstAzimuth.update(da, group, start)
                if !(dp <= Self.angleTolerance && da <= Self.angleTolerance) { failures += 1 }
                if !(-180...180).contains(r.lon) { lonRange += 1 }
            }
        }
        print("direct vs PROJ (a \(a), f \(f)): \(2 * cases.count) lines; max |Δposition| \(worstPosition), "
              + "max |Δazi2| \(worstAzimuth)")
        XCTAssertEqual(failures, 0, "direct off PROJ beyond \(Self.angleTolerance)°; worst position \(worstPosition), azimuth \(worstAzimuth)")
        XCTAssertEqual(lonRange, 0, "direct longitudes outside [-180, 180]")
        return 2 * cases.count
    }

    /// WGS84, 200,000+ pairs.
    func testInverseMatchesPROJOnWGS84() {
        let n = checkInverse(a: Geodesic.wgs84A, f: Geodesic.wgs84F, count: 45_000, seed: 0x6E0D_E51C)
        XCTAssertGreaterThanOrEqual(n, 200_000)
    }

    func testDirectMatchesPROJOnWGS84() {
        let n = checkDirect(a: Geodesic.wgs84A, f: Geodesic.wgs84F, count: 45_000, seed: 0x0D12_EC70)
        XCTAssertGreaterThanOrEqual(n, 200_000)
    }

    /// Other flattenings, oblate and prolate (the prolate ones take other branches of the
    /// nearly antipodal start; |f| > 0.01 adds a Newton step to the direct problem), and
    /// the sphere.
    func testOtherEllipsoidsMatchPROJ() {
        for (i, f) in [0, 1.0 / 150, -1.0 / 150, 1.0 / 60, -1.0 / 60].enumerated() {
            checkInverse(a: 6_400_000, f: f, count: 2_000, seed: 0xE111_0000 + UInt64(i))
            checkDirect(a: 6_400_000, f: f, count: 1_000, seed: 0xE111_1000 + UInt64(i))
        }
    }

    /// Direct then inverse returns the distance and both azimuths, for lines short
    /// enough (< 19,000 km) to be shortest paths.
    func testDirectThenInverseRoundTrip() {
        let g = Geodesic.wgs84
        var rng = SeededGenerator(seed: 0x2017_D7)
        var worstDistance = Worst(), worstAzimuth = Worst()
        var failures = 0
        for i in 0..<50_000 {
            let lat1 = i % 50 == 0 ? (Bool.random(using: &rng) ? 90 : -90) : Self.latitude(&rng)
            let lon1 = Double.random(in: -540...540, using: &rng)
            let azimuth = Double.random(in: -180...180, using: &rng)
            let s = pow(10, Double.random(in: -3...log10(1.9e7), using: &rng))
            let d = g.direct(lat: lat1, lon: lon1, azimuth: azimuth, distance: s)
            let r = g.inverse(lat1: lat1, lon1: lon1, lat2: d.lat, lon2: d.lon)
            let start = "lat \(lat1), lon \(lon1), azimuth \(azimuth), distance \(s)"
            let ds = abs(r.distance - s)
            worstDistance.update(ds, "round trip", start)
            // 15 nm (GeographicLib's accuracy) plus the rounding of the end point to doubles.
            if !(ds <= 2e-8) { failures += 1 }
            // That rounding (~3 nm) also moves the azimuths, by up to ~3e-12 rad per km of
            // line: compare them on lines of 10 km and more, and not at a pole.
            if s >= 10_000, abs(lat1) != 90, abs(d.lat) != 90 {
                let da = max(abs(Self.angleDifference(r.azimuth1, azimuth)), abs(Self.angleDifference(r.azimuth2, d.azimuth)))
                worstAzimuth.update(da, "round trip", start)
                if !(da <= 1e-9) { failures += 1 }
            }
        }
        print("direct → inverse: max |Δs| \(worstDistance), max |Δazi| \(worstAzimuth)")
        XCTAssertEqual(failures, 0, "round trip: worst distance \(worstDistance), azimuth \(worstAzimuth)")
    }

    /// Latitudes outside [-90, 90] give NaN, as in PROJ.
    func testInvalidLatitudeIsNaN() {
        XCTAssertTrue(Geodesic.wgs84.distance(lat1: 91, lon1: 0, lat2: 0, lon2: 0).isNaN)
        XCTAssertTrue(Geodesic.wgs84.direct(lat: -90.5, lon: 0, azimuth: 0, distance: 1).lat.isNaN)
    }
}
