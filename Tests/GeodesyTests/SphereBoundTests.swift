import Foundation
import XCTest
import GeofenceTestSupport
@testable import Geodesy

/// Checks the bound documented in `Sphere`: |s − d| ≤ relativeError·d + absoluteError for
/// the WGS84 geodesic s and the mean-sphere great circle d, on ~200k seeded pairs.
final class SphereBoundTests: XCTestCase {
    struct Worst { var ratio = 0.0; var pair = (lat1: 0.0, lon1: 0.0, lat2: 0.0, lon2: 0.0); var s = 0.0; var d = 0.0 }

    func randomLatitude(_ rng: inout SeededGenerator) -> Double {
        // Uniform on the sphere: sin(lat) uniform.
        asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
    }

    /// Wraps a longitude into [-180, 180].
    func wrap(_ lon: Double) -> Double {
        var l = (lon + 180).truncatingRemainder(dividingBy: 360)
        if l < 0 { l += 360 }
        return l - 180
    }

    func testSphericalDistanceBoundOn200kPairs() {
        var rng = SeededGenerator(seed: 0x5EED_0001)
        var pairs: [(lat1: Double, lon1: Double, lat2: Double, lon2: Double)] = []
        pairs.reserveCapacity(200_000)
        func lon() -> Double { Double.random(in: -180...180, using: &rng) }

        // 80k uniform pairs over the globe.
        for _ in 0..<80_000 { pairs.append((randomLatitude(&rng), lon(), randomLatitude(&rng), lon())) }
        // 20k near the poles (both ends within 10° of the same or opposite pole).
        for _ in 0..<20_000 {
            let sign1: Double = Bool.random(using: &rng) ? 1 : -1
            let sign2: Double = Double.random(in: 0...1, using: &rng) < 0.8 ? sign1 : -sign1
            pairs.append((sign1 * Double.random(in: 80...90, using: &rng), lon(),
                          sign2 * Double.random(in: 80...90, using: &rng), lon()))
        }
        // 20k across the antimeridian.
        for _ in 0..<20_000 {
            pairs.append((randomLatitude(&rng), Double.random(in: 170...180, using: &rng),
                          randomLatitude(&rng), Double.random(in: -180...(-170), using: &rng)))
        }
        // 20k tiny: 1 µm to ~100 m, any direction, any latitude.
        for _ in 0..<20_000 {
            let lat1 = Double.random(in: -89.99...89.99, using: &rng), lon1 = lon()
            let scale = pow(10, Double.random(in: -11...(-3), using: &rng))   // degrees
            let dlat = scale * Double.random(in: -1...1, using: &rng)
            let dlon = scale * Double.random(in: -1...1, using: &rng)
            pairs.append((lat1, lon1, max(-90, min(90, lat1 + dlat)), wrap(lon1 + dlon)))
        }
        // 20k short (1 m – 100 km), in all directions, at all latitudes: where the sphere's
        // curvature differs most from the ellipsoid's (meridians near the equator).
        for _ in 0..<20_000 {
            let lat1 = Double.random(in: -89.9...89.9, using: &rng), lon1 = lon()
            let distance = pow(10, Double.random(in: 0...5, using: &rng))
            let azimuth = Double.random(in: -180...180, using: &rng)
            let p = Geodesic.wgs84.direct(lat: lat1, lon: lon1, azimuth: azimuth, distance: distance)
            pairs.append((lat1, lon1, p.lat, p.lon))
        }
        // 20k nearly antipodal: the antipode moved by up to 1°.
        for _ in 0..<20_000 {
            let lat1 = randomLatitude(&rng), lon1 = lon()
            let lat2 = max(-90, min(90, -lat1 + Double.random(in: -1...1, using: &rng)))
            pairs.append((lat1, lon1, lat2, wrap(lon1 + 180 + Double.random(in: -1...1, using: &rng))))
        }
        // 20k along meridians and the equator.
        for _ in 0..<10_000 {
            let lon1 = lon()
            pairs.append((randomLatitude(&rng), lon1, randomLatitude(&rng), lon1))
        }
        for _ in 0..<10_000 {
            pairs.append((0, lon(), 0, lon()))
        }
        XCTAssertEqual(pairs.count, 200_000)

        var worstRelative = Worst()        // max |s − d| / d over d ≥ 1 m
        var worstOfBound = Worst()         // max |s − d| / (bound), must be ≤ 1
        var violations = 0
        for p in pairs {
            let s = Geodesic.wgs84.distance(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2)
            let d = Sphere.distance(lat1: p.lat1, lon1: p.lon1, lat2: p.lat2, lon2: p.lon2)
            let error = abs(s - d)
            let bound = Sphere.relativeError * d + Sphere.absoluteError
            if error > bound { violations += 1 }
            if error / bound > worstOfBound.ratio { worstOfBound = Worst(ratio: error / bound, pair: p, s: s, d: d) }
            if d >= 1, error / d > worstRelative.ratio { worstRelative = Worst(ratio: error / d, pair: p, s: s, d: d) }
            XCTAssertTrue(Sphere.geodesicBounds(sphericalDistance: d).contains(s) || error > bound)
        }
        print(String(format: "Sphere bound: worst relative error %.6f (%.4f%%) at %@: s = %.3f m, d = %.3f m; worst error/bound %.4f",
                     worstRelative.ratio, worstRelative.ratio * 100, "\(worstRelative.pair)",
                     worstRelative.s, worstRelative.d, worstOfBound.ratio))
        XCTAssertEqual(violations, 0, "worst error/bound \(worstOfBound.ratio) at \(worstOfBound.pair), s = \(worstOfBound.s), d = \(worstOfBound.d)")
        XCTAssertLessThanOrEqual(worstRelative.ratio, Sphere.relativeError)
    }
}
