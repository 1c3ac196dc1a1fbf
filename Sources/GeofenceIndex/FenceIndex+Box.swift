import GeofenceBase
import Foundation
import Geodesy

/// Box queries: fences whose real shape meets a lon/lat box.
extension FenceIndex {
    /// Calls `body` with every live fence that intersects the closed box
    /// (a box crossing the antimeridian has `west > east`), in tree order,
    /// until it returns false. Circles: the geodesic distance from the centre
    /// to the box region (`lat ∈ [south, north]`, `lon ∈ [west, east]`) is at
    /// most the radius. Polygons: planar lon/lat intersection, as GEOS
    /// `intersects` with the box polygon.
    /// - Complexity: O(log n + k) expected for k fences whose boxes meet the box
    ///   (polygons O(vertices) each).
    /// - Precondition: the box is in range: `-90 ≤ south ≤ north ≤ 90`, `west` and `east` in [-180,
    ///   180].
    public func forEachIntersecting(_ box: GeoBox, _ body: (Int32) -> Bool) {
        precondition(box.south <= box.north && box.south >= -90 && box.north <= 90
                     && box.west >= -180 && box.west <= 180 && box.east >= -180 && box.east <= 180, "box out of range")
        _ = forEachCandidate(QueryWindow(box)) { r in
            fenceIntersects(r, box) ? body(table.slotOf[r]) : true
        }
    }

    /// Replaces `results` with the fences intersecting the box, in tree order.
    /// - Complexity: O(log n + k) expected.
    /// - Precondition: the box is in range: `-90 ≤ south ≤ north ≤ 90`, `west` and `east` in [-180,
    ///   180].
    public func intersecting(_ box: GeoBox, into results: inout [Int32]) {
        if !results.isEmpty { results.removeAll(keepingCapacity: true) }
        forEachIntersecting(box) { results.append($0); return true }
    }

    /// The fences intersecting the box, in increasing slot order.
    /// - Complexity: O(log n + k log k) expected.
    /// - Precondition: the box is in range: `-90 ≤ south ≤ north ≤ 90`, `west` and `east` in [-180,
    ///   180].
    public func intersecting(_ box: GeoBox) -> [Int32] {
        var r: [Int32] = []
        intersecting(box, into: &r)
        return r.sorted()
    }

    func fenceIntersects(_ record: Int, _ box: GeoBox) -> Bool {
        let poly = table.circles[record].polygon
        if poly >= 0 {
            if box.crossesAntimeridian {
                return table.polygons.intersects(polygon: Int(poly), west: box.west, south: box.south, east: 180, north: box.north)
                    || table.polygons.intersects(polygon: Int(poly), west: -180, south: box.south, east: box.east, north: box.north)
            }
            return table.polygons.intersects(polygon: Int(poly), west: box.west, south: box.south, east: box.east, north: box.north)
        }
        let c = table.circles[record]
        if box.contains(lat: c.lat, lon: c.lon) { return true }
        var lb = Double.infinity
        let pieces = box.crossesAntimeridian ? [(box.west, 180.0), (-180.0, box.east)] : [(box.west, box.east)]
        for (w, e) in pieces {
            lb = min(lb, SphericalBounds.angleLowerBound(lat: c.lat, lon: c.lon, cosLat: c.cosLat,
                                                         west: w, south: box.south, east: e, north: box.north))
        }
        if SphericalBounds.geodesicLowerBound(angle: lb) > c.radius { return false }
        return FenceIndex.geodesicDistance(lat: c.lat, lon: c.lon, to: box) <= c.radius
    }

    /// The WGS84 geodesic distance from a point to the box region (0 inside).
    ///
    /// Along a parallel the distance grows with the longitude difference, so
    /// the nearest point of the box is at the point's own longitude when that
    /// lies in the box (a meridian arc), else on one of the two bounding
    /// meridians, found by bisection on the azimuth there (the derivative of
    /// the distance along a meridian is `-cos(azimuth)`).
    /// - Complexity: O(1) geodesics, up to ~110 near a box corner.
    public static func geodesicDistance(lat: Double, lon: Double, to box: GeoBox) -> Double {
        let g = Geodesic.wgs84
        if box.contains(lat: lat, lon: lon) { return 0 }
        let inLon = box.crossesAntimeridian ? (lon >= box.west || lon <= box.east) : (lon >= box.west && lon <= box.east)
        if inLon {
            let t = min(max(lat, box.south), box.north)
            return g.distance(lat1: lat, lon1: lon, lat2: t, lon2: lon)
        }
        return min(meridianSegmentDistance(lat: lat, lon: lon, meridian: box.west, south: box.south, north: box.north),
                   meridianSegmentDistance(lat: lat, lon: lon, meridian: box.east, south: box.south, north: box.north))
    }

    static func meridianSegmentDistance(lat: Double, lon: Double, meridian: Double, south: Double, north: Double) -> Double {
        let g = Geodesic.wgs84
        // cos of the azimuth at (phi, meridian) towards the point: > 0 when moving north brings it closer.
        func slope(_ phi: Double) -> Double {
            var a = g.inverse(lat1: phi, lon1: meridian, lat2: lat, lon2: lon).azimuth1
            a *= Double.pi / 180
            return a.isFinite ? cos(a) : 0
        }
        func dist(_ phi: Double) -> Double { g.distance(lat1: lat, lon1: lon, lat2: phi, lon2: meridian) }
        if south == north { return dist(south) }
        if slope(south) <= 0 { return dist(south) }
        if slope(north) >= 0 { return dist(north) }
        var lo = south, hi = north
        for _ in 0..<60 {
            let mid = 0.5 * (lo + hi)
            if mid <= lo || mid >= hi { break }
            if slope(mid) > 0 { lo = mid } else { hi = mid }
        }
        return min(dist(lo), dist(hi))
    }
}
