import CGDAL

/// One layer of a ``VectorDataset``: its name, fields, spatial reference and features.
/// Borrowed from the dataset, which it keeps alive.
public final class VectorLayer {
    /// The layer handle, owned by the dataset.
    let handle: OGRLayerH
    /// The dataset that owns the layer.
    public let dataset: VectorDataset

    init(handle: OGRLayerH, dataset: VectorDataset) {
        self.handle = handle
        self.dataset = dataset
    }

    /// The layer name.
    public var name: String {
        // returns a string owned by the layer
        GDALCalls.text(gdal.OGR_L_GetName(handle))
    }

    /// Whether the layer has a geometry column (false for attribute-only tables).
    public var hasGeometry: Bool {
        // returns wkbNone for a table without geometry
        gdal.OGR_L_GetGeomType(handle) != wkbNone
    }

    /// The name of the FID column when the source stores one (`fid` in a GeoPackage), else nil
    /// (a shapefile's FID is only the record number).
    public var fidColumn: String? {
        // returns "" when there is none; owned by the layer
        let s = GDALCalls.text(gdal.OGR_L_GetFIDColumn(handle))
        return s.isEmpty ? nil : s
    }

    /// The attribute fields, in order.
    /// - Complexity: O(fields).
    public var fields: [VectorFieldDefinition] {
        // returns the definition owned by the layer
        let defn = gdal.OGR_L_GetLayerDefn(handle)
        var out: [VectorFieldDefinition] = []
        for i in 0..<gdal.OGR_FD_GetFieldCount(defn) {
            // returns a field definition owned by `defn`
            let f = gdal.OGR_FD_GetFieldDefn(defn, i)
            out.append(VectorFieldDefinition(name: GDALCalls.text(gdal.OGR_Fld_GetNameRef(f)), type: Self.type(of: f)))
        }
        return out
    }

    static func type(of f: OGRFieldDefnH?) -> VectorFieldType {
        switch gdal.OGR_Fld_GetType(f) {
        case OFTInteger: return gdal.OGR_Fld_GetSubType(f) == OFSTBoolean ? .boolean : .integer
        case OFTInteger64: return .integer
        case OFTReal: return .real
        default: return .string
        }
    }

    /// The layer's spatial reference (a copy), or nil when the source declares none.
    public var spatialReference: VectorSpatialReference? {
        // returns a reference owned by the layer, or NULL
        guard let h = gdal.OGR_L_GetSpatialRef(handle) else { return nil }
        // returns a new reference we own (data axis mapping included), or NULL
        guard let clone = gdal.OSRClone(h) else { return nil }
        return VectorSpatialReference(owning: clone)
    }

    /// Every feature, in the layer's order.
    /// - Throws: ``GDALError`` when the driver fails while reading (a damaged file).
    /// - Complexity: O(features + coordinates).
    public func features() throws(GDALError) -> [VectorFeature] {
        let fieldTypes = fields.map(\.type)
        return try GDALCalls.quiet { () throws(GDALError) -> [VectorFeature] in
            // returns nothing
            gdal.OGR_L_ResetReading(handle)
            var out: [VectorFeature] = []
            while true {
                gdal.CPLErrorReset()
                // returns a new feature we own, or NULL at the end or on a read error
                guard let f = gdal.OGR_L_GetNextFeature(handle) else {
                    if GDALCalls.failed { throw GDALCalls.lastError("read failed after \(out.count) features") }
                    break
                }
                defer { gdal.OGR_F_Destroy(f) }
                out.append(try Self.feature(f, types: fieldTypes))
            }
            return out
        }
    }

    static func feature(_ f: OGRFeatureH, types: [VectorFieldType]) throws(GDALError) -> VectorFeature {
        // returns OGRNullFID (-1) when the feature has none
        let fid = gdal.OGR_F_GetFID(f)
        var values: [VectorValue] = []
        values.reserveCapacity(types.count)
        for (i, t) in types.enumerated() {
            let k = Int32(i)
            // returns 0 for an unset or NULL field
            guard gdal.OGR_F_IsFieldSetAndNotNull(f, k) != 0 else { values.append(.null); continue }
            switch t {
            case .integer: values.append(.integer(Int64(gdal.OGR_F_GetFieldAsInteger64(f, k))))
            case .boolean: values.append(.boolean(gdal.OGR_F_GetFieldAsInteger(f, k) != 0))
            case .real: values.append(.real(gdal.OGR_F_GetFieldAsDouble(f, k)))
            // returns a string owned by the feature
            case .string: values.append(.string(GDALCalls.text(gdal.OGR_F_GetFieldAsString(f, k))))
            }
        }
        // returns the feature's geometry (owned by the feature), or NULL
        let g = gdal.OGR_F_GetGeometryRef(f)
        return VectorFeature(fid: fid == OGRNullFID ? nil : Int64(fid), values: values, geometry: g.map(geometry))
    }

    /// The geometry as points, polygons or multipolygons (curves linearised); anything else by name.
    static func geometry(_ g: OGRGeometryH) -> VectorGeometry {
        // returns the type without Z/M flags
        let type = gdal.OGR_GT_Flatten(gdal.OGR_G_GetGeometryType(g))
        switch type {
        case wkbPoint:
            // returns TRUE for an empty point (no coordinates)
            if gdal.OGR_G_IsEmpty(g) != 0 { return .other("empty POINT") }
            return .point(XY(x: gdal.OGR_G_GetX(g, 0), y: gdal.OGR_G_GetY(g, 0)))
        case wkbPolygon:
            return .polygon(rings(g))
        case wkbMultiPolygon:
            var parts: [[[XY]]] = []
            for i in 0..<gdal.OGR_G_GetGeometryCount(g) {
                // returns a sub-geometry owned by `g`
                if let p = gdal.OGR_G_GetGeometryRef(g, i) { parts.append(rings(p)) }
            }
            return .multiPolygon(parts)
        case wkbCurvePolygon, wkbMultiSurface:
            // returns a new linear geometry we own, or NULL
            guard let linear = gdal.OGR_G_GetLinearGeometry(g, 0, nil) else { return .other(name(g)) }
            defer { gdal.OGR_G_DestroyGeometry(linear) }
            return geometry(linear)
        default:
            return .other(name(g))
        }
    }

    static func name(_ g: OGRGeometryH) -> String {
        // returns a static string
        GDALCalls.text(gdal.OGR_G_GetGeometryName(g))
    }

    static func rings(_ polygon: OGRGeometryH) -> [[XY]] {
        var out: [[XY]] = []
        for i in 0..<gdal.OGR_G_GetGeometryCount(polygon) {
            // returns a ring owned by the polygon
            guard let ring = gdal.OGR_G_GetGeometryRef(polygon, i) else { continue }
            let n = Int(gdal.OGR_G_GetPointCount(ring))
            var pts = [XY](repeating: XY(x: 0, y: 0), count: n)
            if n > 0 {
                pts.withUnsafeMutableBytes { raw in
                    let base = raw.baseAddress!
                    let stride = Int32(MemoryLayout<XY>.stride)
                    // returns the number of points copied; x at offset 0, y at offset 8 of each XY
                    _ = gdal.OGR_G_GetPoints(ring, base, stride, base + 8, stride, nil, 0)
                }
            }
            out.append(pts)
        }
        return out
    }
}
