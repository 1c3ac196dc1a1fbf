import GeofenceBase
import GeofenceIndex

/// Writes fences back out as a GeoJSON FeatureCollection, one Feature per line,
/// with every source property kept (docs/fences.md: unknown properties are written back untouched).
public enum FenceWriter {
    /// The FeatureCollection text: one Feature per line (see ``feature(_:)``), ending in a
    /// newline. An empty array gives a collection with no features.
    /// - Complexity: O(coordinates + property text of all fences).
    public static func geoJSON(_ fences: [Fence]) -> String {
        var out = "{\"type\":\"FeatureCollection\",\"features\":["
        for (k, f) in fences.enumerated() {
            out += k == 0 ? "\n" : ",\n"
            JSONWriter.write(feature(f), to: &out)
        }
        out += "\n]}\n"
        return out
    }

    /// The GeoJSON Feature of one fence: `id` as a string, the geometry, and the fence's
    /// properties in source order. Circles carry `properties.radius` in metres (the existing
    /// property keeps its text when it equals the radius, else it is replaced; appended when absent).
    /// - Complexity: O(coordinates + properties).
    public static func feature(_ f: Fence) -> JSONValue {
        var props = f.properties
        if case .circle(_, _, let r) = f.shape {
            if let k = props.firstIndex(where: { $0.0 == "radius" }) {
                if props[k].1.doubleValue != r { props[k].1 = .number(r) }
            } else {
                props.append(("radius", .number(r)))
            }
        }
        return .object([("type", .string("Feature")), ("id", .string(f.id)), ("geometry", geometry(f.shape)), ("properties", .object(props))])
    }

    /// The GeoJSON geometry of a shape, positions as `[lon, lat]`: a circle's centre as a
    /// `Point` (the radius is not part of the geometry), one polygon as a `Polygon`, several
    /// as a `MultiPolygon`. Rings are wound as RFC 7946 §3.1.6 asks: exterior rings
    /// counter-clockwise, holes clockwise (``wound(_:)``).
    /// - Complexity: O(coordinates).
    public static func geometry(_ shape: FenceShape) -> JSONValue {
        func pos(_ c: Coordinate) -> JSONValue { .array([.number(c.lon), .number(c.lat)]) }
        func poly(_ rings: [[Coordinate]]) -> JSONValue { .array(wound(rings).map { .array($0.map(pos)) }) }
        switch shape {
        case .circle(let lat, let lon, _):
            return .object([("type", .string("Point")), ("coordinates", pos(Coordinate(lon: lon, lat: lat)))])
        case .polygon(let polys) where polys.count == 1:
            return .object([("type", .string("Polygon")), ("coordinates", poly(polys[0]))])
        case .polygon(let polys):
            return .object([("type", .string("MultiPolygon")), ("coordinates", .array(polys.map(poly)))])
        }
    }

    /// A polygon's rings wound as RFC 7946 §3.1.6 asks: the exterior ring counter-clockwise,
    /// holes clockwise; a ring the other way round is reversed (same positions, same start).
    /// - Complexity: O(positions).
    public static func wound(_ rings: [[Coordinate]]) -> [[Coordinate]] {
        rings.enumerated().map { k, ring in (signedArea(ring) < 0) == (k == 0) ? ring.reversed() : ring }
    }

    /// Twice the signed planar area of a ring in lon/lat (the shoelace sum): positive when it
    /// runs counter-clockwise.
    /// - Complexity: O(positions).
    static func signedArea(_ ring: [Coordinate]) -> Double {
        guard ring.count > 2 else { return 0 }
        var sum = 0.0
        for k in ring.indices {
            let a = ring[k], b = ring[(k + 1) % ring.count]
            sum += a.lon * b.lat - b.lon * a.lat
        }
        return sum
    }
}
