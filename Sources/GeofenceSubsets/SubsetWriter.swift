import GeofenceBase
import GeofenceIndex
import GeofenceFences
import GeofenceEvaluation
import Foundation

/// Output formats of `geofence subset`.
public enum SubsetFormat: String, Sendable, CaseIterable {
    /// A FeatureCollection, one Feature per line (`FenceWriter.geoJSON`).
    case geojson
    /// One Feature per line.
    case ndjson
    /// `id,lat,lon,radius` then the other properties as columns (circles only).
    case csv
}

/// Writes selected fences with their properties as read (docs/fences.md: unknown
/// properties are written back untouched; number literals keep their text).
public enum SubsetWriter {
    /// The text of `fences` in `format` (docs/subsets.md#output-formats), in the order given,
    /// ending in a newline.
    /// - Throws: `GeofenceError.invalidArgument` (parameter `format`) for CSV when a fence is a polygon.
    /// - Complexity: O(coordinates + property text of all fences).
    public static func text(_ fences: [Fence], format: SubsetFormat) throws(GeofenceError) -> String {
        switch format {
        case .geojson:
            return FenceWriter.geoJSON(fences)
        case .ndjson:
            var out = ""
            for f in fences {
                JSONWriter.write(FenceWriter.feature(f), to: &out)
                out += "\n"
            }
            return out
        case .csv:
            return try csv(fences)
        }
    }

    static let coreColumns: Set<String> = ["id", "lat", "lon", "radius"]

    /// CSV: `id,lat,lon,radius`, then every other property name in order of first
    /// appearance; strings as they are, other values as JSON text, missing ones empty.
    static func csv(_ fences: [Fence]) throws(GeofenceError) -> String {
        let polygons = fences.filter { !$0.shape.isCircle }
        if let first = polygons.first {
            throw .argument("format", "CSV holds circles only; the result has \(polygons.count) polygon fence\(polygons.count == 1 ? "" : "s") (first: \(first.id)); write GeoJSON or NDJSON")
        }
        var names: [String] = []
        var seen = Set<String>()
        for f in fences {
            for (k, _) in f.properties where !coreColumns.contains(k) && seen.insert(k).inserted { names.append(k) }
        }
        var out = (["id", "lat", "lon", "radius"] + names).map(field).joined(separator: ",") + "\n"
        for f in fences {
            guard case .circle(let lat, let lon, let r) = f.shape else { continue }
            let props = JSONValue.object(f.properties)
            let radius: String
            if case .number(let lit)? = props["radius"], Double(lit) == r { radius = lit } else { radius = JSONValue.format(r) }
            var row = [f.id, JSONValue.format(lat), JSONValue.format(lon), radius]
            for n in names {
                switch props[n] {
                case nil, .null?: row.append("")
                case .string(let s)?: row.append(s)
                case .number(let lit)?: row.append(lit)
                case let v?: row.append(JSONWriter.string(v))
                }
            }
            out += row.map(field).joined(separator: ",") + "\n"
        }
        return out
    }

    /// RFC 4180 quoting when needed (`CSVField.encode`).
    static func field(_ s: String) -> String { CSVField.encode(s) }

}
