import GeofenceBase
import GeofenceFences
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import GeometryKit

/// How a fence must relate to a bbox or polygon selection.
public enum SubsetMode: String, Sendable, CaseIterable {
    /// The fence shares at least one point with the area (boundary inclusive). The default.
    case intersects
    /// The whole fence lies in the area (boundary inclusive).
    case within
}

/// What to select (docs/subsets.md).
public enum SubsetSelector: Sendable {
    /// Fences meeting a closed lon/lat box; `west > east` crosses the antimeridian.
    case bbox(GeoBox)
    /// Fences meeting (or within) the polygons of a region, holes respected.
    case within(SelectionRegion)
    /// Fences whose distance from the point (0 inside, else to the boundary) is at most `radius` metres.
    case near(lat: Double, lon: Double, radius: Double)
    /// The `count` fences nearest to the point by the same distance (the ranking of `geofence nearest`).
    case nearest(count: Int, lat: Double, lon: Double)
}

/// Regional subsets of compiled fences.
///
/// Semantics, per shape (the index's definitions, docs/fences.md):
/// - **bbox, intersects**: circle — the geodesic distance from its centre to
///   the box region is at most its radius; polygon — planar lon/lat
///   intersection with the box (`FenceIndex.forEachIntersecting`).
/// - **bbox, within**: circle — centre in the box and at least its radius
///   (geodesic) from every box edge (no edge at a pole or, for a full-width
///   box, at ±180°); polygon — every edge inside one piece of the box.
/// - **polygon, intersects**: circle — its distance to some region feature
///   (`FenceIndex.distance`, 0 when the centre is covered) is at most its
///   radius; polygon — GEOS `intersects` with some feature.
/// - **polygon, within**: circle — centre covered by a feature and its
///   boundary distance there at least the radius; polygon — GEOS `covers` by
///   one feature. (A fence spread over two features is not within either:
///   give them as one MultiPolygon.)
/// - **near**: `FenceIndex.within`; **nearest**: `FenceIndex.nearest`.
///
/// Results: slots of `compiled`; bbox and polygon selections in input order,
/// near and nearest by distance, ties by identifier.
public enum FenceSubset {
    /// The slots of `compiled` that `selector` selects, in the order given above. `mode`
    /// applies to `bbox` and `within` only; `near` and `nearest` ignore it.
    /// - Throws: only for `within`: ``GeofenceError/input(_:)`` with kind
    ///   ``InputError/Kind/malformed`` (file = the region's path) when a region feature is
    ///   invalid for GEOS or cannot be indexed; `GeofenceError.internal` when GEOS fails.
    /// - Complexity: bbox, near, nearest: one index query plus O(r log r) sorting of r
    ///   results (bbox `within`: O(vertices) per hit polygon); within: one box query per region
    ///   feature plus a distance test (circles) or a GEOS predicate (polygons) per candidate
    ///   and feature.
    public static func select(_ selector: SubsetSelector, mode: SubsetMode = .intersects,
                              in compiled: CompiledFences) throws(GeofenceError) -> [Int32] {
        let index = compiled.index
        switch selector {
        case .bbox(let box):
            let hits = index.intersecting(box)
            return mode == .intersects ? hits : hits.filter { isWithin(Int($0), box, compiled) }
        case .within(let region):
            return try select(region, mode: mode, compiled)
        case .near(let lat, let lon, let radius):
            let hits = index.within(radius, ofLat: lat, lon: lon)
            let rank = compiled.options
            let keyed = hits.map { ($0, index.distance(to: $0, lat: lat, lon: lon)) }
            return keyed.sorted { a, b in a.1 != b.1 ? a.1 < b.1 : rank.idRank(a.0) < rank.idRank(b.0) }.map { $0.0 }
        case .nearest(let count, let lat, let lon):
            return index.nearest(count, lat: lat, lon: lon).map { $0.slot }
        }
    }

    /// bbox `within` for one fence.
    static func isWithin(_ slot: Int, _ box: GeoBox, _ compiled: CompiledFences) -> Bool {
        switch compiled.index.shape(at: Int32(slot))! {
        case .circle(let lat, let lon, let r):
            guard box.contains(lat: lat, lon: lon) else { return false }
            var edges: [GeoBox] = []
            if box.south > -90 { edges.append(GeoBox(west: box.west, south: box.south, east: box.east, north: box.south)) }
            if box.north < 90 { edges.append(GeoBox(west: box.west, south: box.north, east: box.east, north: box.north)) }
            if !(box.west == -180 && box.east == 180) {
                edges.append(GeoBox(west: box.west, south: box.south, east: box.west, north: box.north))
                edges.append(GeoBox(west: box.east, south: box.south, east: box.east, north: box.north))
            }
            return edges.allSatisfy { FenceIndex.geodesicDistance(lat: lat, lon: lon, to: $0) >= r }
        case .polygon(let polys):
            let pieces: [(Double, Double)] = box.crossesAntimeridian ? [(box.west, 180), (-180, box.east)] : [(box.west, box.east)]
            func piece(_ c: Coordinate) -> Int? {
                guard c.lat >= box.south && c.lat <= box.north else { return nil }
                return pieces.firstIndex { c.lon >= $0.0 && c.lon <= $0.1 }
            }
            for rings in polys {
                for ring in rings {
                    for j in 1..<ring.count {
                        guard let a = piece(ring[j - 1]), let b = piece(ring[j]) else { return false }
                        // An edge between the two pieces would cross the gap between them.
                        if a != b && !(abs(ring[j - 1].lon) == 180 && abs(ring[j].lon) == 180) { return false }
                    }
                }
            }
            return true
        }
    }

    static func select(_ region: SelectionRegion, mode: SubsetMode, _ compiled: CompiledFences) throws(GeofenceError) -> [Int32] {
        let index = compiled.index
        // The region's features as an index (circle tests) and as GEOS geometries (polygon tests).
        let regionIndex: FenceIndex
        do {
            regionIndex = try FenceIndex(region.features.enumerated().map { (i, f) in
                Fence.polygon(id: "\(i)", polygons: f)
            })
        } catch {
            throw .malformed(SourceLocation(file: region.path), "cannot use the polygons: \(error)")
        }
        let geos: GEOSContext
        var prepared: [PreparedGeometry] = []
        do {
            geos = try GEOSContext()
            for (i, f) in region.features.enumerated() {
                let g = try geometry(f, geos)
                if let reason = try g.validityReason() {
                    throw GeofenceError.malformed(SourceLocation(file: region.path), "\(region.labels[i]): invalid polygon: \(reason) (repair it, e.g. with 'geofence validate --repair')")
                }
                prepared.append(try g.prepared())
            }
        } catch let e as GeofenceError {
            throw e
        } catch {
            throw .internal("GEOS failed on \(region.path): \(error)")
        }

        var candidates = Set<Int32>()
        for f in region.features.indices {
            for s in index.intersecting(region.box(of: f)) { candidates.insert(s) }
        }
        let features = regionIndex.liveSlots
        var out: [Int32] = []
        for slot in candidates.sorted() {
            let keep: Bool
            switch compiled.index.shape(at: slot)! {
            case .circle(let lat, let lon, let r):
                keep = features.contains { f in
                    switch mode {
                    case .intersects: return regionIndex.distance(to: f, lat: lat, lon: lon) <= r
                    case .within: return regionIndex.contains(f, lat: lat, lon: lon) && regionIndex.boundaryDistance(of: f, lat: lat, lon: lon) >= r
                    }
                }
            case .polygon(let polys):
                do {
                    let g = try geometry(polys, geos)
                    var any = false
                    for p in prepared {
                        if mode == .intersects ? try p.intersects(g) : try p.covers(g) { any = true; break }
                    }
                    keep = any
                } catch {
                    throw .internal("GEOS failed on fence \(compiled.index.identifier(of: slot)): \(error)")
                }
            }
            if keep { out.append(slot) }
        }
        return out
    }

    static func geometry(_ polys: [[[Coordinate]]], _ geos: GEOSContext) throws -> Geometry {
        let converted = polys.map { $0.map { $0.map { (x: $0.lon, y: $0.lat) } } }
        return converted.count == 1 ? try geos.polygon(rings: converted[0]) : try geos.multiPolygon(converted)
    }
}
