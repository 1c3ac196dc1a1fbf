import CGEOS
import GeofenceKit
import Foundation
import Geodesy

/// GEOS as the independent polygon reference of the tests: covers,
/// intersects with a rectangle, and the boundary distance per the index's
/// documented definition (nearest boundary point in the local plane at the
/// point, then the WGS84 geodesic to it), computed with `GEOSNearestPoints`.
public final class GEOSReference {
    /// The GEOS context of this reference (one thread).
    public let handle: GEOSContextHandle_t

    /// A reference with its own GEOS context.
    public init() {
        handle = GEOS_init_r()
    }

    deinit { GEOS_finish_r(handle) }

    /// An owned geometry.
    /// A GEOS geometry owned by the reference.
    public final class Geometry {
        let ref: GEOSReference
        let ptr: OpaquePointer
        init(_ ref: GEOSReference, _ ptr: OpaquePointer) { self.ref = ref; self.ptr = ptr }
        deinit { GEOSGeom_destroy_r(ref.handle, ptr) }
    }

    private func ring(_ coords: [(Double, Double)]) -> OpaquePointer {
        let seq = GEOSCoordSeq_create_r(handle, UInt32(coords.count), 2)!
        for (i, c) in coords.enumerated() { _ = GEOSCoordSeq_setXY_r(handle, seq, UInt32(i), c.0, c.1) }
        return GEOSGeom_createLinearRing_r(handle, seq)!  // takes ownership of seq
    }

    private func polygon(_ rings: [[(Double, Double)]]) -> OpaquePointer {
        let shell = ring(rings[0])
        var holes: [OpaquePointer?] = rings.dropFirst().map { ring($0) }
        return holes.withUnsafeMutableBufferPointer { hp in
            GEOSGeom_createPolygon_r(handle, shell, hp.baseAddress, UInt32(hp.count))!  // takes ownership of rings
        }
    }

    /// Rings of one part as coordinate pairs, transformed by `map`.
    private func partRings(_ s: PolygonShape, _ p: Int, _ map: (Double, Double) -> (Double, Double)) -> [[(Double, Double)]] {
        (s.partStarts[p]..<s.partStarts[p + 1]).map { r in
            (s.ringStarts[r]..<s.ringStarts[r + 1]).map { v in map(s.coordinates[2 * v], s.coordinates[2 * v + 1]) }
        }
    }

    /// The shape as a GEOS MultiPolygon in lon/lat.
    /// The polygon (all parts) as one GEOS geometry.
    public func geometry(_ s: PolygonShape) -> Geometry {
        var parts: [OpaquePointer?] = (0..<s.partCount).map { polygon(partRings(s, $0) { ($0, $1) }) }
        let g = parts.withUnsafeMutableBufferPointer { pp in
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOLYGON.rawValue), pp.baseAddress, UInt32(pp.count))!
        }
        return Geometry(self, g)
    }

    /// GEOS validity.
    public func isValid(_ g: Geometry) -> Bool { GEOSisValid_r(handle, g.ptr) == 1 }

    /// GEOS covers (boundary inclusive).
    /// Whether the geometry covers the point (boundary inclusive).
    public func covers(_ g: Geometry, lat: Double, lon: Double) -> Bool {
        let pt = GEOSGeom_createPointFromXY_r(handle, lon, lat)!
        defer { GEOSGeom_destroy_r(handle, pt) }
        let r = GEOSCovers_r(handle, g.ptr, pt)  // 2 on exception
        precondition(r != 2)
        return r == 1
    }

    /// GEOS intersects with the closed rectangle.
    /// Whether the geometry meets the lon/lat rectangle.
    public func intersects(_ g: Geometry, west: Double, south: Double, east: Double, north: Double) -> Bool {
        let rect: OpaquePointer
        if west == east || south == north {
            // Degenerate rectangle: a segment or a point.
            let seq = GEOSCoordSeq_create_r(handle, 2, 2)!
            _ = GEOSCoordSeq_setXY_r(handle, seq, 0, west, south)
            _ = GEOSCoordSeq_setXY_r(handle, seq, 1, east, north)
            rect = GEOSGeom_createLineString_r(handle, seq)!
        } else {
            rect = GEOSGeom_createRectangle_r(handle, west, south, east, north)!
        }
        defer { GEOSGeom_destroy_r(handle, rect) }
        let r = GEOSIntersects_r(handle, g.ptr, rect)
        precondition(r != 2)
        return r == 1
    }

    /// Metres per degree (x, y) of the local plane at `lat` (WGS84 radii of curvature).
    public static func scales(lat: Double) -> (Double, Double) {
        let a = 6_378_137.0, f = 1 / 298.257223563
        let e2 = f * (2 - f)
        let phi = lat * .pi / 180
        let w2 = 1 - e2 * sin(phi) * sin(phi)
        let n = a / w2.squareRoot()
        let m = a * (1 - e2) / (w2 * w2.squareRoot())
        return (n * cos(phi) * .pi / 180, m * .pi / 180)
    }

    /// Boundary distance per the index's definition, part by part through GEOS.
    public func boundaryDistance(_ s: PolygonShape, lat: Double, lon: Double) -> Double {
        let (kx, ky) = GEOSReference.scales(lat: lat)
        var best = Double.infinity
        for p in 0..<s.partCount {
            var w = Double.infinity, e = -Double.infinity
            for r in s.partStarts[p]..<s.partStarts[p + 1] {
                for v in s.ringStarts[r]..<s.ringStarts[r + 1] { w = min(w, s.coordinates[2 * v]); e = max(e, s.coordinates[2 * v]) }
            }
            var shift = 0.0
            if (w + e) / 2 - lon > 180 { shift = -360 } else if (w + e) / 2 - lon < -180 { shift = 360 }
            let poly = polygon(partRings(s, p) { x, y in ((x + shift - lon) * kx, (y - lat) * ky) })
            let boundary = GEOSBoundary_r(handle, poly)!
            let origin = GEOSGeom_createPointFromXY_r(handle, 0, 0)!
            let seq = GEOSNearestPoints_r(handle, boundary, origin)!
            var qx = 0.0, qy = 0.0
            _ = GEOSCoordSeq_getXY_r(handle, seq, 0, &qx, &qy)
            GEOSCoordSeq_destroy_r(handle, seq)
            GEOSGeom_destroy_r(handle, origin)
            GEOSGeom_destroy_r(handle, boundary)
            GEOSGeom_destroy_r(handle, poly)
            let qlon = kx > 0 ? qx / kx + lon - shift : lon
            let qlat = qy / ky + lat
            best = min(best, Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: qlat, lon2: qlon))
        }
        return best
    }
}

/// The least value of `f` on `[a, b]` for a function with one minimum there, by golden-section
/// search (`iterations` steps), the end points included.
public func goldenSectionMinimum(_ a: Double, _ b: Double, iterations: Int = 90, _ f: (Double) -> Double) -> Double {
    var a = a, b = b
    let gr = (5.0.squareRoot() - 1) / 2
    var c = b - gr * (b - a), d = a + gr * (b - a)
    var fc = f(c), fd = f(d)
    let fa = f(a), fb = f(b)
    for _ in 0..<iterations {
        if fc < fd { b = d; d = c; fd = fc; c = b - gr * (b - a); fc = f(c) }
        else { a = c; c = d; fc = fd; d = a + gr * (b - a); fd = f(d) }
    }
    return min(fc, fd, fa, fb)
}
