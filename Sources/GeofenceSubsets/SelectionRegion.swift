import GeofenceBase
import GeofenceFences
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import GeometryKit

/// The polygons of a `--within` file: every Polygon or MultiPolygon in a GeoJSON
/// FeatureCollection, Feature, or bare geometry, each one a *feature* of the
/// region (holes respected). Rings must be closed, in range, and not cross the
/// antimeridian (split them at ±180°, RFC 7946 §3.1.9); each feature must be
/// valid for GEOS.
public struct SelectionRegion: Sendable {
    /// Features: polygons → rings → positions (closed).
    public var features: [[[[Coordinate]]]]
    /// Where each came from (feature index in the file), for messages.
    public var labels: [String]
    /// The file the region was read from (`--bbox` for a box region), the file of every
    /// error about it.
    public var path: String

    /// A region from polygons already in memory (closed rings, lon/lat degrees), not checked
    /// here: ``FenceSubset/select(_:mode:in:)`` rejects features GEOS finds invalid. `labels`
    /// defaults to `feature 0`, `feature 1`, ...; `path` to `<region>`.
    public init(features: [[[[Coordinate]]]], labels: [String]? = nil, path: String = "<region>") {
        self.features = features
        self.labels = labels ?? features.indices.map { "feature \($0)" }
        self.path = path
    }

    /// A lon/lat box as a region: one rectangle, or two when it crosses the antimeridian.
    public init(box: GeoBox) {
        func rect(_ w: Double, _ e: Double) -> [[Coordinate]] {
            [[Coordinate(lon: w, lat: box.south), Coordinate(lon: e, lat: box.south), Coordinate(lon: e, lat: box.north),
              Coordinate(lon: w, lat: box.north), Coordinate(lon: w, lat: box.south)]]
        }
        let polys = box.crossesAntimeridian ? [rect(box.west, 180), rect(-180, box.east)] : [rect(box.west, box.east)]
        self.init(features: [polys], labels: ["bbox"], path: "--bbox")
    }

    /// Reads a GeoJSON file (docs/subsets.md#selectors): every Polygon and MultiPolygon of a
    /// FeatureCollection, a Feature, a bare geometry or a GeometryCollection, one feature each.
    /// GEOS validity is checked later, by ``FenceSubset/select(_:mode:in:)``.
    /// - Throws: ``GeofenceError/input(_:)``: kind ``InputError/Kind/notFound``,
    ///   ``InputError/Kind/notAFile``, ``InputError/Kind/cannotOpen(errno:)`` or
    ///   ``InputError/Kind/readFailed(errno:)`` when the file cannot be read;
    ///   ``InputError/Kind/malformed`` for malformed JSON, a geometry other than Polygon or
    ///   MultiPolygon, a position out of range, an unclosed ring or one with fewer than 4
    ///   positions, a ring crossing the antimeridian, or no polygon at all.
    /// - Complexity: O(file size).
    public static func load(path: String) throws(GeofenceError) -> SelectionRegion {
        let bytes = try readFile(path, what: "polygon file")
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch { throw .malformed(SourceLocation(file: path), "malformed JSON at \(error)") }
        var features: [[[[Coordinate]]]] = []
        var labels: [String] = []
        func geometry(_ g: JSONValue, _ label: String) throws(GeofenceError) {
            guard case .object = g, let type = g["type"]?.stringValue else {
                throw .malformed(SourceLocation(file: path), "\(label): expected a GeoJSON geometry object with a \"type\"")
            }
            guard let coords = g["coordinates"] else {
                if type == "GeometryCollection", let gs = g["geometries"]?.arrayValue {
                    for (i, x) in gs.enumerated() { try geometry(x, "\(label), geometry \(i)") }
                    return
                }
                throw .malformed(SourceLocation(file: path), "\(label): \(type) has no \"coordinates\"")
            }
            switch type {
            case "Polygon":
                features.append([try polygon(coords, "\(label)")]); labels.append(label)
            case "MultiPolygon":
                guard let parts = coords.arrayValue, !parts.isEmpty else {
                    throw .malformed(SourceLocation(file: path), "\(label): MultiPolygon coordinates must be a non-empty array of polygons")
                }
                var polys: [[[Coordinate]]] = []
                for (i, p) in parts.enumerated() { polys.append(try polygon(p, "\(label), polygon \(i)")) }
                features.append(polys); labels.append(label)
            default:
                throw .malformed(SourceLocation(file: path), "\(label): \(type) is not a polygon (give Polygon or MultiPolygon geometries)")
            }
        }
        func polygon(_ v: JSONValue, _ label: String) throws(GeofenceError) -> [[Coordinate]] {
            guard let rings = v.arrayValue, !rings.isEmpty else { throw .malformed(SourceLocation(file: path), "\(label): a polygon needs an array of rings") }
            var out: [[Coordinate]] = []
            for (r, ringValue) in rings.enumerated() {
                let what = r == 0 ? "exterior ring" : "hole \(r)"
                guard let pts = ringValue.arrayValue else { throw .malformed(SourceLocation(file: path), "\(label): \(what) must be an array of positions") }
                var ring: [Coordinate] = []
                for (j, p) in pts.enumerated() {
                    guard let a = p.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue,
                          x.isFinite, y.isFinite, abs(x) <= 180, abs(y) <= 90 else {
                        throw .malformed(SourceLocation(file: path), "\(label): point \(j) of \(what) must be [lon, lat] within [-180, 180] × [-90, 90]")
                    }
                    if let last = ring.last, abs(x - last.lon) > 180 {
                        throw .malformed(SourceLocation(file: path), "\(label): \(what) crosses the antimeridian at point \(j); split it at ±180° (RFC 7946 §3.1.9)")
                    }
                    ring.append(Coordinate(lon: x, lat: y))
                }
                guard ring.count >= 4, ring.first == ring.last else {
                    throw .malformed(SourceLocation(file: path), "\(label): \(what) must be closed with at least 4 positions")
                }
                out.append(ring)
            }
            return out
        }
        switch root["type"]?.stringValue {
        case "FeatureCollection":
            guard let fs = root["features"]?.arrayValue else { throw .malformed(SourceLocation(file: path), "FeatureCollection has no \"features\" array") }
            for (i, f) in fs.enumerated() {
                guard let g = f["geometry"], !g.isNull else { throw .malformed(SourceLocation(file: path), "feature \(i) has no geometry") }
                try geometry(g, "feature \(i)")
            }
        case "Feature":
            guard let g = root["geometry"], !g.isNull else { throw .malformed(SourceLocation(file: path), "the feature has no geometry") }
            try geometry(g, "feature 0")
        case .some:
            try geometry(root, "geometry")
        case nil:
            throw .malformed(SourceLocation(file: path), "expected a GeoJSON object with a \"type\"")
        }
        guard !features.isEmpty else { throw .malformed(SourceLocation(file: path), "no Polygon or MultiPolygon to select with") }
        return SelectionRegion(features: features, labels: labels, path: path)
    }

    /// Lon/lat box of one feature (west <= east; never crossing).
    func box(of feature: Int) -> GeoBox {
        var w = Double.infinity, s = Double.infinity, e = -Double.infinity, n = -Double.infinity
        for poly in features[feature] { for c in poly[0] { w = min(w, c.lon); e = max(e, c.lon); s = min(s, c.lat); n = max(n, c.lat) } }
        return GeoBox(west: w, south: s, east: e, north: n)
    }
}
