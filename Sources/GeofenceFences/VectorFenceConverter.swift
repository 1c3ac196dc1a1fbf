import GeofenceBase
import GeofenceIndex
import GeofenceGDAL

/// Turns a feature read through GDAL into the GeoJSON Feature our loader reads
/// (docs/fences.md#other-vector-formats-gdal), so both paths share every rule: identifier,
/// radius, options, ring and range checks.
struct VectorFenceConverter {
    let fields: [VectorFieldDefinition]
    /// The source stores FIDs of its own (a GeoPackage's `fid` column): used as the identifier
    /// when there is no `id` attribute.
    let hasFIDColumn: Bool
    let idField: Int?
    let radiusField: Int?

    /// `options` find the identifier and radius attributes as they find GeoJSON properties
    /// (docs/fences.md#field-mapping); the FID column (`fid` of a GeoPackage) is not an attribute.
    init(fields: [VectorFieldDefinition], hasFIDColumn: Bool, options: FenceFieldOptions = FenceFieldOptions()) {
        self.fields = fields
        self.hasFIDColumn = hasFIDColumn
        let names = fields.map(\.name)
        idField = options.index(.id, in: names)?.0
        radiusField = options.index(.radius, in: names)?.0
    }

    /// The GeoJSON Feature, or the problem that stops it before parsing (an unsupported
    /// geometry, a position that cannot be transformed). The problem's location is set by the caller.
    func feature(_ f: VectorFeature, transform: VectorTransformation?) -> Result<JSONValue, FenceProblem> {
        var members: [(String, JSONValue)] = [("type", .string("Feature"))]
        var id: String?
        if let i = idField {
            switch f.values[i] {
            case .string(let s): members.append(("id", .string(s))); id = s
            case .integer(let n): members.append(("id", .number(String(n)))); id = String(n)
            case .real(let d) where d.isFinite: members.append(("id", .number(JSONValue.format(d)))); id = JSONValue.format(d)
            default: break
            }
        }
        if id == nil, hasFIDColumn, let fid = f.fid {
            members.append(("id", .number(String(fid)))); id = String(fid)
        }
        var properties: [(String, JSONValue)] = []
        for (k, field) in fields.enumerated() {
            properties.append((field.name, value(f.values[k], isRadius: k == radiusField)))
        }
        if let g = f.geometry {
            switch geometry(g, transform: transform) {
            case .success(let v): members.append(("geometry", v))
            case .failure(let p): return .failure(FenceProblem(p.kind, p.message, at: p.location, fence: id))
            }
        } else {
            members.append(("geometry", .null))
        }
        members.append(("properties", .object(properties)))
        return .success(.object(members))
    }

    /// An attribute as a JSON value. A text radius holding a decimal number is that number
    /// (KML and files converted from CSV store every attribute as text).
    func value(_ v: VectorValue, isRadius: Bool) -> JSONValue {
        switch v {
        case .null: return .null
        case .integer(let n): return .number(String(n))
        case .real(let d): return d.isFinite ? .number(JSONValue.format(d)) : .string("\(d)")
        case .boolean(let b): return .bool(b)
        case .string(let s):
            let t = FenceLoader.trimmed(s)
            if isRadius, FenceLoader.isJSONNumber(Substring(t)) { return .number(t) }
            return .string(s)
        }
    }

    /// The GeoJSON geometry, transformed to WGS84 when `transform` is given.
    func geometry(_ g: VectorGeometry, transform: VectorTransformation?) -> Result<JSONValue, FenceProblem> {
        func problem(_ kind: FenceProblem.Kind, _ message: String) -> FenceProblem {
            FenceProblem(kind, message, at: SourceLocation(file: ""))
        }
        do {
            func ring(_ r: [XY]) throws(GDALError) -> JSONValue {
                var r = r
                try transform?.transform(&r)
                return .array(r.map { .array([.number(JSONValue.format($0.x)), .number(JSONValue.format($0.y))]) })
            }
            func polygon(_ p: [[XY]]) throws(GDALError) -> JSONValue {
                var rings: [JSONValue] = []
                for r in p { rings.append(try ring(r)) }
                return .array(rings)
            }
            for c in coordinates(g) where !c.x.isFinite || !c.y.isFinite {
                return .failure(problem(.malformedGeometry, "position (\(c.x), \(c.y)) is not finite"))
            }
            switch g {
            case .point(let p):
                guard case .array(let c) = try ring([p]), let only = c.first else {
                    return .failure(problem(.malformedGeometry, "empty Point"))
                }
                return .success(.object([("type", .string("Point")), ("coordinates", only)]))
            case .polygon(let rings):
                return .success(.object([("type", .string("Polygon")), ("coordinates", try polygon(rings))]))
            case .multiPolygon(let parts):
                var ps: [JSONValue] = []
                for p in parts { ps.append(try polygon(p)) }
                return .success(.object([("type", .string("MultiPolygon")), ("coordinates", .array(ps))]))
            case .other(let name):
                return .failure(problem(.unsupportedGeometry, "\(name) geometry is not supported (use a Point with a radius attribute, a Polygon or a MultiPolygon)"))
            }
        } catch {
            return .failure(problem(.reprojection, "reprojection to WGS84 failed: \(error.message)"))
        }
    }

    func coordinates(_ g: VectorGeometry) -> [XY] {
        switch g {
        case .point(let p): return [p]
        case .polygon(let rings): return rings.flatMap { $0 }
        case .multiPolygon(let parts): return parts.flatMap { $0.flatMap { $0 } }
        case .other: return []
        }
    }
}
