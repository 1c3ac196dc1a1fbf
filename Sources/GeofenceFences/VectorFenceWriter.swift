import Foundation
import GeofenceBase
import GeofenceIndex
import GeofenceGDAL

/// Writes fences as a GeoPackage or FlatGeobuf file through GDAL
/// (docs/fences.md#writing-geopackage-and-flatgeobuf): one layer named after the file, in
/// WGS84, a string field `id`, then one field per property.
public enum VectorFenceWriter {
    /// Writes `fences` (in the order given) to `path`: first under a temporary name in the same
    /// directory (with the format's extension, as the drivers want it), renamed over `path` when
    /// GDAL has closed the file without error; on failure the temporary file is removed and
    /// `path` is untouched.
    ///
    /// Fields: `id` (string) first, then every property name in order of first appearance
    /// (circles carry `radius`, as in GeoJSON); a property named `id` is the identifier's field.
    /// A field whose values are all JSON booleans is boolean, all integer literals integer,
    /// all numbers real; otherwise text (strings as they are, other values as JSON text).
    /// Missing values are NULL. Circles are Points, one polygon a Polygon, several a MultiPolygon.
    /// - Throws: ``GeofenceError/invalidArgument(_:)`` (`output`) when `path` is not a regular
    ///   file or absent (a device, a pipe); ``GeofenceError/output(_:)`` with GDAL's message when
    ///   GDAL cannot write it or the rename fails.
    /// - Complexity: O(coordinates + properties of all fences).
    public static func write(_ fences: [Fence], to path: String, format: VectorFormat) throws(GeofenceError) {
        try stage(fences, to: path, format: format).commit()
    }

    /// Writes the fences under the temporary name of `path`, to be committed later with the
    /// other outputs of a run (``AtomicFile/StagedFile``); as ``write(_:to:format:)`` otherwise.
    /// - Throws: as ``write(_:to:format:)``, except for the rename, which the commit does.
    /// - Complexity: O(coordinates + properties of all fences).
    public static func stage(_ fences: [Fence], to path: String, format: VectorFormat) throws(GeofenceError) -> AtomicFile.StagedFile {
        guard AtomicFile.isRegularOrAbsent(path) else {
            throw .argument("output", "\(format.driver) needs a regular file, '\(path)' is not one")
        }
        // A machine without libgdal: an installation problem, not a failed write.
        do { try GDALLibrary.load() } catch { throw .internal("\(path): \(error.message); install GDAL (Debian: libgdal32)") }
        let tmp = AtomicFile.temporaryPath(for: path) + "." + format.rawValue
        TemporaryFiles.shared.add(tmp)
        unlink(tmp)
        do {
            try writeLayer(fences, to: tmp, format: format, layerName: layerName(path))
        } catch {
            unlink(tmp)
            TemporaryFiles.shared.remove(tmp)
            throw .output(OutputError(path: path, .write, errno: 0, message: "\(format.driver) write failed: \(error.message)"))
        }
        return AtomicFile.StagedFile(path: path, staged: tmp)
    }

    /// The file name without directory and extension (`out/ports.gpkg` → `ports`).
    static func layerName(_ path: String) -> String {
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return base.isEmpty ? "fences" : base
    }

    static func writeLayer(_ fences: [Fence], to path: String, format: VectorFormat, layerName: String) throws(GDALError) {
        let features = fences.map { f -> (id: String, properties: JSONValue, geometry: VectorGeometry) in
            let feature = FenceWriter.feature(f)
            return (f.id, feature["properties"] ?? .object([]), geometry(f.shape))
        }
        var names: [String] = []
        var seen: Set<String> = ["id"]
        for f in features {
            guard case .object(let members) = f.properties else { continue }
            for (k, _) in members where seen.insert(k).inserted { names.append(k) }
        }
        let types = names.map { name in fieldType(features.compactMap { $0.properties[name] }) }
        let fields = [VectorFieldDefinition(name: "id", type: .string)]
            + zip(names, types).map { VectorFieldDefinition(name: $0.0, type: $0.1) }
        let writer = try VectorWriter(path: path, format: format, layerName: layerName, fields: fields,
                                      geometry: layerGeometry(fences.map(\.shape)))
        for f in features {
            var values: [VectorValue] = [.string(f.id)]
            for (name, type) in zip(names, types) { values.append(value(f.properties[name], as: type)) }
            try writer.add(values: values, geometry: f.geometry)
        }
        try writer.finish()
    }

    /// The field type of a property from its values (nulls ignored; text when there are none).
    static func fieldType(_ values: [JSONValue]) -> VectorFieldType {
        let present = values.filter { !$0.isNull }
        guard !present.isEmpty else { return .string }
        if present.allSatisfy({ $0.boolValue != nil }) { return .boolean }
        var integral = true
        for v in present {
            guard case .number(let lit) = v else { return .string }
            if Int64(lit) == nil { integral = false }
        }
        return integral ? .integer : .real
    }

    /// A property value as a field of `type` (``fieldType(_:)`` chose it from every value).
    static func value(_ v: JSONValue?, as type: VectorFieldType) -> VectorValue {
        guard let v, !v.isNull else { return .null }
        switch (type, v) {
        case (.boolean, .bool(let b)): return .boolean(b)
        case (.integer, .number(let lit)): return Int64(lit).map(VectorValue.integer) ?? .null
        case (.real, .number(let lit)): return Double(lit).map(VectorValue.real) ?? .null
        case (_, .string(let s)): return .string(s)
        default: return .string(JSONWriter.string(v))
        }
    }

    static func geometry(_ shape: FenceShape) -> VectorGeometry {
        // Wound as in GeoJSON (exterior counter-clockwise), so every output format agrees.
        func rings(_ p: [[Coordinate]]) -> [[XY]] { FenceWriter.wound(p).map { $0.map { XY(x: $0.lon, y: $0.lat) } } }
        switch shape {
        case .circle(let lat, let lon, _): return .point(XY(x: lon, y: lat))
        case .polygon(let polys) where polys.count == 1: return .polygon(rings(polys[0]))
        case .polygon(let polys): return .multiPolygon(polys.map(rings))
        }
    }

    static func layerGeometry(_ shapes: [FenceShape]) -> VectorLayerGeometry {
        var kinds = Set<Int>()
        for s in shapes {
            switch s {
            case .circle: kinds.insert(0)
            case .polygon(let p): kinds.insert(p.count == 1 ? 1 : 2)
            }
        }
        guard kinds.count == 1, let k = kinds.first else { return .mixed }
        return [VectorLayerGeometry.point, .polygon, .multiPolygon][k]
    }
}
