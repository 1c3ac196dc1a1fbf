import GeofenceBase
import GeofenceIndex
import Foundation
import Geodesy
import GeometryKit

/// What a phone can monitor reliably (docs/fences.md): iOS fires unreliably
/// under ~100 m, and refuses radii over `maximumRegionMonitoringDistance`, a
/// device-dependent value Apple does not publish; set `maxRadius` to what your
/// devices report.
public struct PhoneLimits: Sendable, Hashable {
    /// Metres: circles with a smaller radius get ``FenceWarning/Kind/smallRadius``. Default 100.
    public var minRadius: Double = 100
    /// Metres: circles (and polygons' enclosing circles) with a larger radius are flagged as
    /// over the platform maximum. Default 100 000 (100 km).
    public var maxRadius: Double = 100_000
    /// Limits in metres; defaults 100 m and 100 km. Not checked (`minRadius` ≤ `maxRadius` is
    /// the caller's business).
    public init(minRadius: Double = 100, maxRadius: Double = 100_000) {
        self.minRadius = minRadius; self.maxRadius = maxRadius
    }
}

/// A circle a phone can monitor in place of a polygon.
public struct EnclosingCircle: Sendable, Hashable {
    /// Latitude of the centre in degrees.
    public var lat: Double
    /// Longitude of the centre in degrees, in [-180, 180].
    public var lon: Double
    /// Metres: the geodesic distance from the centre to the farthest boundary point.
    public var radius: Double
}

/// Checks polygons with GEOS (`GEOSisValidReason`), repairs them (`GEOSMakeValid`)
/// and lists the warnings that matter on a phone. One validator per thread (it owns a GEOS context).
public final class FenceValidator {
    let geos: GEOSContext

    /// A validator with its own GEOS context.
    /// - Throws: `GeofenceError.internal` when the GEOS context cannot be created.
    public init() throws(GeofenceError) {
        do { geos = try GEOSContext() } catch { throw .internal("cannot create a GEOS context: \(error)") }
    }

    /// A GEOS geometry for a polygon fence's rings (x = lon, y = lat): a Polygon for one
    /// polygon, else a MultiPolygon.
    /// - Throws: `GEOSError` when GEOS rejects the rings (an unclosed ring, a ring of fewer
    ///   than 4 points).
    /// - Complexity: O(coordinates).
    public func geometry(_ polygons: [[[Coordinate]]]) throws -> Geometry {
        let converted = polygons.map { $0.map { $0.map { (x: $0.lon, y: $0.lat) } } }
        if converted.count == 1 { return try geos.polygon(rings: converted[0]) }
        return try geos.multiPolygon(converted)
    }

    /// Adds a problem for every polygon GEOS finds invalid (``FenceProblem/Kind/invalidPolygon``,
    /// repairable, with GEOS's reason) or cannot build (``FenceProblem/Kind/malformedGeometry``),
    /// then sorts `set.problems` by file, then line or feature. The fences themselves stay.
    /// - Complexity: GEOS validity checks of every polygon (about O(n log n) in its vertices).
    public func checkPolygons(_ set: inout FenceSet) {
        var found: [FenceProblem] = []
        for f in set.fences {
            guard case .polygon(let polys) = f.shape else { continue }
            do {
                let g = try geometry(polys)
                if let reason = try g.validityReason() {
                    found.append(FenceProblem(.invalidPolygon, "invalid polygon: \(reason)", at: f.source, fence: f.id, repairable: true))
                }
            } catch {
                found.append(FenceProblem(.malformedGeometry, "GEOS cannot build the polygon: \(error)", at: f.source, fence: f.id))
            }
        }
        guard !found.isEmpty else { return }
        set.problems.append(contentsOf: found)
        let order = Dictionary(set.files.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        set.problems.sort { a, b in
            let fa = order[a.location.file] ?? 0, fb = order[b.location.file] ?? 0
            if fa != fb { return fa < fb }
            return (a.location.line ?? a.location.feature ?? 0) < (b.location.line ?? b.location.feature ?? 0)
        }
    }

    /// The outcome of `repair`.
    public struct Repair: Sendable {
        /// Fences to keep: untouched valid ones and repaired ones, in input order.
        public var fences: [Fence]
        /// Identifiers of fences that were changed.
        public var repaired: [String]
        /// Problems that repair cannot fix; their fences are not in `fences`.
        public var unrepairable: [FenceProblem]
    }

    /// Repairs what can be repaired: unclosed rings (already closed by the loader)
    /// and invalid polygons (through `GEOSMakeValid`, keeping the polygonal part).
    /// Fences named by a non-repairable problem are left out and the problem is returned in
    /// ``Repair/unrepairable``, with a problem for each polygon the repair fails on or
    /// collapses; every fence with a repairable problem is listed in ``Repair/repaired``.
    /// - Complexity: O(fences + problems), plus `GEOSMakeValid` on each invalid polygon.
    public func repair(_ set: FenceSet) -> Repair {
        // By location: a later duplicate's problem is not about the first definition.
        var byFence: [SourceLocation: [FenceProblem]] = [:]
        var unrepairable: [FenceProblem] = []
        for p in set.problems {
            if p.repairable, p.fenceID != nil { byFence[p.location, default: []].append(p) } else { unrepairable.append(p) }
        }
        let dropped = Set(unrepairable.filter { $0.kind != .duplicateIdentifier }.map(\.location))
        var out: [Fence] = []
        var repaired: [String] = []
        for var f in set.fences {
            if dropped.contains(f.source) { continue }
            guard let problems = byFence[f.source] else { out.append(f); continue }
            if problems.contains(where: { $0.kind == .invalidPolygon }), case .polygon(let polys) = f.shape {
                do {
                    let fixed = try geometry(polys).makeValid()
                    let parts = try fixed.polygons()
                    guard !parts.isEmpty else {
                        unrepairable.append(FenceProblem(.invalidPolygon, "repair left no area (the polygon collapses to lines or points)",
                                                         at: f.source, fence: f.id))
                        continue
                    }
                    f.shape = .polygon(parts.map { $0.map { $0.map { Coordinate(lon: $0.x, lat: $0.y) } } })
                } catch {
                    unrepairable.append(FenceProblem(.invalidPolygon, "repair failed: \(error)", at: f.source, fence: f.id))
                    continue
                }
            }
            repaired.append(f.id)
            out.append(f)
        }
        return Repair(fences: out, repaired: repaired, unrepairable: unrepairable)
    }

    /// The circle a phone monitors for a polygon: centre from GEOS's minimum bounding
    /// circle (planar in lon/lat), radius the geodesic distance to the farthest
    /// boundary point, edges densified to 0.05° so their interior is covered too.
    ///
    /// A multipolygon split at the antimeridian (Fiji, Chukotka) is shifted to one
    /// side (negative longitudes + 360°) when that makes it narrower, so its circle is
    /// not drawn around the whole world.
    /// - Throws: `GEOSError` when GEOS cannot build the geometry,
    ///   `GeometryInputError.emptyGeometry` for empty input.
    /// - Complexity: O(coordinates + densified points), the latter one per 0.05° of edge length.
    public func enclosingCircle(_ polygons: [[[Coordinate]]]) throws -> EnclosingCircle {
        var polygons = polygons
        let lons = polygons.flatMap { $0.flatMap { $0.map(\.lon) } }
        if let lo = lons.min(), let hi = lons.max(), hi - lo > 180 {
            let shifted = lons.map { $0 < 0 ? $0 + 360 : $0 }
            if shifted.max()! - shifted.min()! < hi - lo {
                polygons = polygons.map { $0.map { $0.map { Coordinate(lon: $0.lon < 0 ? $0.lon + 360 : $0.lon, lat: $0.lat) } } }
            }
        }
        var c = try geometry(polygons).minimumBoundingCircle()
        if c.centerX > 180 { c.centerX -= 360 }
        var r = 0.0
        let g = Geodesic.wgs84
        for poly in polygons {
            guard let shell = poly.first else { continue }
            for k in 0..<max(0, shell.count - 1) {
                let a = shell[k], b = shell[k + 1]
                let steps = max(1, Int((max(abs(b.lon - a.lon), abs(b.lat - a.lat)) / 0.05).rounded(.up)))
                for s in 0..<steps {
                    let t = Double(s) / Double(steps)
                    let lat = a.lat + (b.lat - a.lat) * t, lon = a.lon + (b.lon - a.lon) * t
                    r = max(r, g.distance(lat1: c.centerY, lon1: c.centerX, lat2: lat, lon2: lon))
                }
            }
        }
        return EnclosingCircle(lat: c.centerY, lon: c.centerX, radius: r)
    }

    /// Warnings for fences going to a phone: small radius, radius over the maximum,
    /// polygons that a phone can only monitor as their enclosing circle (every polygon gets
    /// this warning, unless its circle cannot be computed). In fence order.
    /// - Complexity: O(circles) plus ``enclosingCircle(_:)`` for each polygon.
    public func warnings(_ fences: [Fence], limits: PhoneLimits) -> [FenceWarning] {
        var out: [FenceWarning] = []
        for f in fences {
            switch f.shape {
            case .circle(_, _, let r):
                if r < limits.minRadius {
                    out.append(FenceWarning(location: f.source, fenceID: f.id, kind: .smallRadius,
                                            message: "radius \(metres(r)) is under \(metres(limits.minRadius)); iOS fires unreliably for small regions"))
                } else if r > limits.maxRadius {
                    out.append(FenceWarning(location: f.source, fenceID: f.id, kind: .largeRadius,
                                            message: "radius \(metres(r)) is over the platform maximum \(metres(limits.maxRadius)); the OS will refuse it"))
                }
            case .polygon(let polys):
                if let c = try? enclosingCircle(polys) {
                    var m = "a phone can only monitor this polygon as its enclosing circle: centre \(coord(c.lat)),\(coord(c.lon)), radius \(metres(c.radius))"
                    if c.radius > limits.maxRadius { m += ", over the platform maximum \(metres(limits.maxRadius))" }
                    out.append(FenceWarning(location: f.source, fenceID: f.id, kind: .polygonAsCircle, message: m))
                }
            }
        }
        return out
    }
}

/// A distance for messages: `60 m`, `12.5 m`, `192 km`; any finite value (no integer
/// conversion that could trap), `%.4g` beyond a billion kilometres.
func metres(_ m: Double) -> String {
    guard m.isFinite else { return "\(m) m" }
    if m >= 1e12 { return String(format: "%.4g km", m / 1000) }
    if m >= 10_000 { return "\(Int((m / 1000).rounded())) km" }
    if m == m.rounded() { return "\(Int(m)) m" }
    return String(format: "%.1f m", m)
}

func coord(_ d: Double) -> String { String(format: "%.6f", d) }
