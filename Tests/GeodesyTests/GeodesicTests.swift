import XCTest
import GeofenceTestSupport
@testable import Geodesy

/// Published WGS84 geodesics. Source: the test set of GeographicLib (C. F. F. Karney,
/// "Test set for geodesics", doi:10.5281/zenodo.32156), as used in GeographicLib's own
/// test suites (geodtest.c `testcases`, and the `GeodSolve*` regression checks).
final class GeodesicTests: XCTestCase {
    struct Case { var lat1, lon1, azi1, lat2, lon2, azi2, s12: Double }

    /// Rows of GeographicLib's test set (lat1, lon1, azi1, lat2, lon2, azi2, s12), exact to
    /// ~1e-18° and 0.1 µm; chosen to cover both hemispheres, a near-pole start (row 6),
    /// an antimeridian crossing (row 5) and unrolled longitudes (lon2 > 180 or < -180).
    let cases: [Case] = [
        Case(lat1: 35.60777, lon1: -139.44815, azi1: 111.098748429560326,
             lat2: -11.17491, lon2: -69.95921, azi2: 129.289270889708762, s12: 8935244.5604818305),
        Case(lat1: 55.52454, lon1: 106.05087, azi1: 22.020059880982801,
             lat2: 77.03196, lon2: 197.18234, azi2: 109.112041110671519, s12: 4105086.1713924406),
        Case(lat1: -21.97856, lon1: 142.59065, azi1: -32.44456876433189,
             lat2: 41.84138, lon2: 98.56635, azi2: -41.84359951440466, s12: 8394328.894657671),
        Case(lat1: -66.99028, lon1: 112.2363, azi1: 173.73491240878403,
             lat2: -12.70631, lon2: 285.90344, azi2: 2.512956620913668, s12: 11150344.2312080241),
        Case(lat1: -17.42761, lon1: 173.34268, azi1: -159.033557661192928,
             lat2: -15.84784, lon2: 5.93557, azi2: -20.787484651536988, s12: 16076603.1631180673),
        Case(lat1: -87.85331, lon1: 85.66836, azi1: -65.120313040242748,
             lat2: 66.48646, lon2: 16.09921, azi2: -4.888658719272296, s12: 17286615.3147144645),
        Case(lat1: -25.72959, lon1: -144.90758, azi1: -153.647468693117198,
             lat2: -57.70581, lon2: -269.17879, azi2: -48.343983158876487, s12: 9413446.7452453107),
        Case(lat1: 6.96833, lon1: 52.74123, azi1: 92.581585386317712,
             lat2: -7.39675, lon2: 206.17291, azi2: 90.721692165923907, s12: 17102477.2496958388),
    ]

    /// Difference of two angles in degrees, reduced to [-180, 180].
    func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }

    func testInverseMatchesTestSet() {
        for (i, c) in cases.enumerated() {
            let r = Geodesic.wgs84.inverse(lat1: c.lat1, lon1: c.lon1, lat2: c.lat2, lon2: c.lon2)
            XCTAssertEqual(r.distance, c.s12, accuracy: 1e-8, "s12 row \(i)")
            XCTAssertEqual(r.azimuth1, c.azi1, accuracy: 1e-12, "azi1 row \(i)")
            XCTAssertEqual(r.azimuth2, c.azi2, accuracy: 1e-12, "azi2 row \(i)")
            XCTAssertEqual(Geodesic.wgs84.distance(lat1: c.lat1, lon1: c.lon1, lat2: c.lat2, lon2: c.lon2), r.distance)
        }
    }

    func testDirectMatchesTestSet() {
        for (i, c) in cases.enumerated() {
            let r = Geodesic.wgs84.direct(lat: c.lat1, lon: c.lon1, azimuth: c.azi1, distance: c.s12)
            XCTAssertEqual(r.lat, c.lat2, accuracy: 1e-12, "lat2 row \(i)")
            // direct reduces longitude to [-180, 180]; the test set unrolls it.
            XCTAssertEqual(angleDifference(r.lon, c.lon2), 0, accuracy: 1e-12, "lon2 row \(i)")
            XCTAssertEqual(r.azimuth, c.azi2, accuracy: 1e-12, "azi2 row \(i)")
            XCTAssertTrue((-180...180).contains(r.lon))
        }
    }

    /// GeodSolve0 / GeodSolve1: JFK (40.6, -73.8) to Paris CDG (49.01666667, 2.55).
    func testJFKToCDG() {
        let r = Geodesic.wgs84.inverse(lat1: 40.6, lon1: -73.8, lat2: 49.01666667, lon2: 2.55)
        XCTAssertEqual(r.azimuth1, 53.47022, accuracy: 0.5e-5)
        XCTAssertEqual(r.azimuth2, 111.59367, accuracy: 0.5e-5)
        XCTAssertEqual(r.distance, 5853226, accuracy: 0.5)

        let d = Geodesic.wgs84.direct(lat: 40.63972222, lon: -73.77888889, azimuth: 53.5, distance: 5850e3)
        XCTAssertEqual(d.lat, 49.01467, accuracy: 0.5e-5)
        XCTAssertEqual(d.lon, 2.56106, accuracy: 0.5e-5)
        XCTAssertEqual(d.azimuth, 111.62947, accuracy: 0.5e-5)
    }

    /// GeodSolve4 (very short line) and GeodSolve6 (nearly antipodal, near the poles).
    func testShortAndNearlyAntipodal() {
        XCTAssertEqual(Geodesic.wgs84.distance(lat1: 36.493349428792, lon1: 0, lat2: 36.49334942879201, lon2: 0.0000008),
                       0.072, accuracy: 0.5e-3)
        XCTAssertEqual(Geodesic.wgs84.distance(lat1: 88.202499451857, lon1: 0,
                                               lat2: -88.202499451857, lon2: 179.981022032992859592),
                       20003898.214, accuracy: 0.5e-3)
        XCTAssertEqual(Geodesic.wgs84.distance(lat1: 89.262080389218, lon1: 0,
                                               lat2: -89.262080389218, lon2: 179.992207982775375662),
                       20003925.854, accuracy: 0.5e-3)
    }

    /// GeodSolve33: along the equator, and the equatorial antipode (the geodesic runs over a pole).
    func testEquatorialAndAntipodal() {
        let g = Geodesic.wgs84
        let r179 = g.inverse(lat1: 0, lon1: 0, lat2: 0, lon2: 179)
        XCTAssertEqual(r179.distance, 19926189, accuracy: 0.5)
        XCTAssertEqual(r179.azimuth1, 90, accuracy: 0.5e-5)
        XCTAssertEqual(r179.azimuth2, 90, accuracy: 0.5e-5)
        let r1795 = g.inverse(lat1: 0, lon1: 0, lat2: 0, lon2: 179.5)
        XCTAssertEqual(r1795.distance, 19980862, accuracy: 0.5)
        XCTAssertEqual(r1795.azimuth1, 55.96650, accuracy: 0.5e-5)
        XCTAssertEqual(r1795.azimuth2, 124.03350, accuracy: 0.5e-5)
        let r180 = g.inverse(lat1: 0, lon1: 0, lat2: 0, lon2: 180)
        XCTAssertEqual(r180.distance, 20003931, accuracy: 0.5)
        XCTAssertEqual(r180.azimuth1, 0, accuracy: 0.5e-5)
        XCTAssertEqual(abs(r180.azimuth2), 180, accuracy: 0.5e-5)
        XCTAssertEqual(g.distance(lat1: 0, lon1: 0, lat2: 1, lon2: 180), 19893357, accuracy: 0.5)
    }

    /// Inverse then direct returns to the second point (everywhere, including across ±180°).
    func testDirectInvertsInverse() {
        var rng = SeededGenerator(seed: 84)
        for _ in 0..<2_000 {
            let lat1 = Double.random(in: -89.9...89.9, using: &rng), lon1 = Double.random(in: -180...180, using: &rng)
            let lat2 = Double.random(in: -89.9...89.9, using: &rng), lon2 = Double.random(in: -180...180, using: &rng)
            let inv = Geodesic.wgs84.inverse(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            let dir = Geodesic.wgs84.direct(lat: lat1, lon: lon1, azimuth: inv.azimuth1, distance: inv.distance)
            XCTAssertEqual(dir.lat, lat2, accuracy: 1e-9)
            XCTAssertEqual(angleDifference(dir.lon, lon2), 0, accuracy: 1e-9)
        }
    }
}

