import GeofenceTestSupport
import CGEOS
import GeofenceIndex
import Foundation
import Geodesy
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceLogs
@testable import GeofenceFences
@testable import GeofenceEvaluation
@testable import GeofencePlanning
@testable import GeofenceSimulation
@testable import GeofenceSubsets

typealias EngineFence = Fence

/// The reference for subset and bundle tests: every fence examined on its
/// own, never through `FenceIndex` — circles with `Geodesic.wgs84` (centre
/// first, like the index), polygons with GEOS: covers, intersects, and the
/// boundary distance by the index's documented definition (nearest boundary
/// point in the local plane at the point, via `GEOSNearestPoints`, then the
/// WGS84 geodesic to it).
final class SubsetReference {
    let handle: GEOSContextHandle_t
    /// The shared reference for boundary distances (its own GEOS context).
    let planar = GEOSReference()
    let fences: [EngineFence]
    /// Per fence: the GEOS (multi)polygon in lon/lat, nil for circles.
    private var geoms: [OpaquePointer?] = []
    /// Per fence: lon/lat box of the vertices (polygons) or the centre (circles).
    private(set) var boxes: [GeoBox] = []

    private var circleLat: [Double] = [], circleLon: [Double] = [], circleCos: [Double] = [], circleRadius: [Double] = []

    init(_ fences: [EngineFence]) {
        handle = GEOS_init_r()
        self.fences = fences
        for f in fences {
            if case .circle(let lat, let lon, let r) = f.shape {
                circleLat.append(lat); circleLon.append(lon); circleCos.append(cos(lat * .pi / 180)); circleRadius.append(r)
            } else {
                circleLat.append(0); circleLon.append(0); circleCos.append(0); circleRadius.append(-1)
            }
            switch f.shape {
            case .circle(let lat, let lon, _):
                geoms.append(nil)
                boxes.append(GeoBox(west: lon, south: lat, east: lon, north: lat))
            case .polygon(let polys):
                geoms.append(multiPolygon(polys.map { $0.map { $0.map { ($0.lon, $0.lat) } } }))
                let all = polys.flatMap { $0.flatMap { $0 } }
                boxes.append(GeoBox(west: all.map(\.lon).min()!, south: all.map(\.lat).min()!,
                                    east: all.map(\.lon).max()!, north: all.map(\.lat).max()!))
            }
        }
    }

    deinit {
        for g in geoms { if let g { GEOSGeom_destroy_r(handle, g) } }
        GEOS_finish_r(handle)
    }

    // MARK: GEOS plumbing

    private func ring(_ coords: [(Double, Double)]) -> OpaquePointer {
        let seq = GEOSCoordSeq_create_r(handle, UInt32(coords.count), 2)!
        for (i, c) in coords.enumerated() { _ = GEOSCoordSeq_setXY_r(handle, seq, UInt32(i), c.0, c.1) }
        return GEOSGeom_createLinearRing_r(handle, seq)!  // takes ownership of seq
    }

    func polygon(_ rings: [[(Double, Double)]]) -> OpaquePointer {
        let shell = ring(rings[0])
        var holes: [OpaquePointer?] = rings.dropFirst().map { ring($0) }
        return holes.withUnsafeMutableBufferPointer { hp in
            GEOSGeom_createPolygon_r(handle, shell, hp.baseAddress, UInt32(hp.count))!  // takes ownership of the rings
        }
    }

    func multiPolygon(_ polys: [[[(Double, Double)]]]) -> OpaquePointer {
        var parts: [OpaquePointer?] = polys.map { polygon($0) }
        return parts.withUnsafeMutableBufferPointer { pp in
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOLYGON.rawValue), pp.baseAddress, UInt32(pp.count))!  // takes ownership
        }
    }

    func destroy(_ g: OpaquePointer) { GEOSGeom_destroy_r(handle, g) }

    func covers(_ g: OpaquePointer, lat: Double, lon: Double) -> Bool {
        let pt = GEOSGeom_createPointFromXY_r(handle, lon, lat)!
        defer { GEOSGeom_destroy_r(handle, pt) }
        let r = GEOSCovers_r(handle, g, pt)  // 2 on exception
        precondition(r != 2)
        return r == 1
    }

    func intersects(_ a: OpaquePointer, _ b: OpaquePointer) -> Bool {
        let r = GEOSIntersects_r(handle, a, b)  // 2 on exception
        precondition(r != 2)
        return r == 1
    }

    func coversGeometry(_ a: OpaquePointer, _ b: OpaquePointer) -> Bool {
        let r = GEOSCovers_r(handle, a, b)  // 2 on exception
        precondition(r != 2)
        return r == 1
    }

    /// The region of a bbox: one rectangle, or two across the antimeridian (a
    /// segment when the box is degenerate).
    func boxGeometry(_ box: GeoBox) -> OpaquePointer {
        if box.west == box.east || box.south == box.north {
            let seq = GEOSCoordSeq_create_r(handle, 2, 2)!
            _ = GEOSCoordSeq_setXY_r(handle, seq, 0, box.west, box.south)
            _ = GEOSCoordSeq_setXY_r(handle, seq, 1, box.east, box.north)
            return GEOSGeom_createLineString_r(handle, seq)!  // takes ownership of seq
        }
        func rect(_ w: Double, _ e: Double) -> [[(Double, Double)]] {
            [[(w, box.south), (e, box.south), (e, box.north), (w, box.north), (w, box.south)]]
        }
        return multiPolygon(box.crossesAntimeridian ? [rect(box.west, 180), rect(-180, box.east)] : [rect(box.west, box.east)])
    }

    // MARK: Distances

    /// Metres per degree of the local plane (the shared GEOS reference's).
    static func scales(lat: Double) -> (Double, Double) { GEOSReference.scales(lat: lat) }

    /// Boundary distance of polygons given as rings (the index's definition), part by part through GEOS.
    func boundaryDistance(_ polys: [[[Coordinate]]], lat: Double, lon: Double) -> Double {
        planar.boundaryDistance(PolygonShape(polygons: polys), lat: lat, lon: lon)
    }


    /// The planner's distance to fence `i` (0 inside).
    func distance(_ i: Int, lat: Double, lon: Double) -> Double {
        switch fences[i].shape {
        case .circle(let clat, let clon, let r):
            return max(0, Geodesic.wgs84.distance(lat1: clat, lon1: clon, lat2: lat, lon2: lon) - r)
        case .polygon(let polys):
            if covers(geoms[i]!, lat: lat, lon: lon) { return 0 }
            return boundaryDistance(polys, lat: lat, lon: lon)
        }
    }

    func geometry(_ i: Int) -> OpaquePointer? { geoms[i] }

    /// A generous lower bound of the distance to fence `i` (pruning only):
    /// the haversine bound to its box (`hav c ≥ hav Δφ_gap + cos φ_p cos φ_max hav Δλ_gap`)
    /// on a sphere 2% smaller than the mean one (the ellipsoid differs by under 0.6%), minus the radius.
    func lowerBound(_ i: Int, lat: Double, lon: Double) -> Double {
        let b = boxes[i]
        var r = 0.0
        if case .circle(_, _, let radius) = fences[i].shape { r = radius }
        let dlat = max(0, b.south - lat, lat - b.north)
        var dlon = 0.0
        if !(lon >= b.west && lon <= b.east) {
            var a = b.west - lon; if a < 0 { a += 360 }
            var c = lon - b.east; if c < 0 { c += 360 }
            dlon = min(a, c, 180)
        }
        let rad = Double.pi / 180
        let cmin = cos(max(abs(b.south), abs(b.north)) * rad)
        let h = pow(sin(dlat * rad / 2), 2) + cos(lat * rad) * max(0, cmin) * pow(sin(dlon * rad / 2), 2)
        let angle = 2 * asin(min(1, h.squareRoot()))
        return max(0, angle * 6_371_008.8 * 0.98 - r)
    }

    /// All fences ranked by distance from the point, nearest first, ties by
    /// identifier bytes; only as many as needed to settle the `k` nearest and
    /// everything tied with the k-th (distances computed exactly for every fence
    /// that could be that near).
    func ranked(_ k: Int, lat: Double, lon: Double) -> [(index: Int, distance: Double)] {
        // Prune with a generous upper bound for circles (great-circle distance + 2%):
        // the k-th smallest of those bounds is at least the k-th distance.
        var lows = [Double](repeating: 0, count: fences.count)
        var ups: [Double] = []
        let rad = Double.pi / 180, cosP = cos(lat * rad)
        for i in fences.indices {
            if circleRadius[i] > 0 {
                // Haversine on the mean sphere; the ellipsoid differs by under 0.6%.
                let sp = sin((circleLat[i] - lat) * rad / 2), sl = sin((circleLon[i] - lon) * rad / 2)
                let d = 2 * asin(min(1, (sp * sp + cosP * circleCos[i] * sl * sl).squareRoot())) * 6_371_008.8
                lows[i] = max(0, d * 0.98 - circleRadius[i])
                let u = max(0, d * 1.02 + 1 - circleRadius[i])
                if ups.count < k || u < ups[k - 1] {
                    ups.insert(u, at: ups.firstIndex { $0 > u } ?? ups.count)
                    if ups.count > k { ups.removeLast() }
                }
            } else {
                lows[i] = lowerBound(i, lat: lat, lon: lon)
            }
        }
        var cutoff = Double.infinity
        if ups.count >= k { cutoff = ups[k - 1] }
        var order: [(Int, Double)] = []
        for i in fences.indices where lows[i] <= cutoff { order.append((i, lows[i])) }
        order.sort { $0.1 < $1.1 }
        var found: [(index: Int, distance: Double)] = []
        var best: [Double] = []  // the k smallest distances so far, sorted
        for (i, lb) in order {
            if best.count >= k && lb > best[k - 1] + 1 { break }
            let d = distance(i, lat: lat, lon: lon)
            found.append((i, d))
            if best.count < k || d < best[k - 1] {
                best.insert(d, at: best.firstIndex { $0 > d } ?? best.count)
                if best.count > k { best.removeLast() }
            }
        }
        return found.sorted { a, b in
            a.distance != b.distance ? a.distance < b.distance
                : fences[a.index].id.utf8.lexicographicallyPrecedes(fences[b.index].id.utf8)
        }
    }

    /// Geodesic distance from a point to a lon/lat box (golden-section search
    /// along the meridian edges; independent of `FenceIndex.geodesicDistance`).
    static func boxDistance(lat: Double, lon: Double, _ box: GeoBox) -> Double {
        let g = Geodesic.wgs84
        if box.contains(lat: lat, lon: lon) { return 0 }
        let inLon = box.west <= box.east ? (lon >= box.west && lon <= box.east) : (lon >= box.west || lon <= box.east)
        if inLon { return g.distance(lat1: lat, lon1: lon, lat2: min(max(lat, box.south), box.north), lon2: lon) }
        var best = Double.infinity
        for m in [box.west, box.east] {
            func f(_ phi: Double) -> Double { g.distance(lat1: lat, lon1: lon, lat2: phi, lon2: m) }
            best = min(best, goldenSectionMinimum(box.south, box.north, iterations: 80, f))
        }
        return best
    }
}

/// Shared loading for subset tests.
enum SubsetData {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static func load(_ paths: [String]) throws -> [EngineFence] {
        let set = try FenceSet.load(paths: paths, crs: nil)
        return try set.usable(skipInvalid: true).fences
    }

    static func data(_ name: String) -> String { root + "/data/" + name }

    nonisolated(unsafe) static var cache: [String: [EngineFence]] = [:]
    static func cached(_ names: [String]) throws -> [EngineFence] {
        let key = names.joined(separator: "+")
        if let f = cache[key] { return f }
        let f = try load(names.map { $0.hasPrefix("/") ? $0 : data($0) })
        cache[key] = f
        return f
    }
}
