import CGDAL

/// The vector formats we write through GDAL.
public enum VectorFormat: String, Sendable, CaseIterable {
    /// OGC GeoPackage (SQLite), one table per layer.
    case geopackage = "gpkg"
    /// FlatGeobuf, one layer per file, with a packed R-tree index.
    case flatGeobuf = "fgb"

    /// The GDAL driver's short name.
    public var driver: String {
        switch self {
        case .geopackage: return "GPKG"
        case .flatGeobuf: return "FlatGeobuf"
        }
    }

    /// The format a file name asks for by its extension (`.gpkg`, `.fgb`, any case), or nil.
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".gpkg") { self = .geopackage } else if lower.hasSuffix(".fgb") { self = .flatGeobuf } else { return nil }
    }
}

/// The geometry type a written layer declares.
public enum VectorLayerGeometry: Sendable {
    /// Points only.
    case point
    /// Polygons only.
    case polygon
    /// Multipolygons only.
    case multiPolygon
    /// Mixed (`wkbUnknown`).
    case mixed

    var ogr: OGRwkbGeometryType {
        switch self {
        case .point: return wkbPoint
        case .polygon: return wkbPolygon
        case .multiPolygon: return wkbMultiPolygon
        case .mixed: return wkbUnknown
        }
    }
}

/// Writes one layer of features to a new file in a ``VectorFormat``, in WGS84
/// longitude/latitude. The file is complete only after ``finish()``; a writer dropped
/// without it closes the file as it is (the caller removes it).
///
/// Not thread-safe.
public final class VectorWriter {
    /// The dataset handle; nil once closed.
    var dataset: GDALDatasetH?
    /// The layer, owned by the dataset.
    let layer: OGRLayerH
    /// The fields, in order.
    public let fields: [VectorFieldDefinition]
    /// The path written.
    public let path: String
    var inTransaction = false

    /// Creates `path` (replacing nothing: the path must not exist) with one layer `layerName`.
    /// - Throws: ``GDALError`` when the driver cannot create the file, the layer or a field.
    public init(path: String, format: VectorFormat, layerName: String, fields: [VectorFieldDefinition],
                geometry: VectorLayerGeometry) throws(GDALError) {
        try GDALLibrary.load()
        self.path = path
        self.fields = fields
        let (ds, layer) = try GDALCalls.quiet { () throws(GDALError) -> (GDALDatasetH, OGRLayerH) in
            // returns the driver (owned by GDAL), or NULL when this GDAL lacks it
            guard let driver = gdal.GDALGetDriverByName(format.driver) else {
                throw GDALError("this GDAL has no \(format.driver) driver")
            }
            // returns a new dataset we own (closed by GDALClose), or NULL
            guard let ds = gdal.GDALCreate(driver, path, 0, 0, 0, GDT_Unknown, nil) else {
                throw GDALCalls.lastError("cannot create \(path)")
            }
            let srs = VectorSpatialReference.wgs84()
            // returns a layer owned by the dataset, or NULL; the dataset keeps its own copy of srs
            guard let layer = gdal.GDALDatasetCreateLayer(ds, layerName, srs.handle, geometry.ogr, nil) else {
                let e = GDALCalls.lastError("cannot create layer \(layerName)")
                gdal.GDALClose(ds)
                throw e
            }
            for f in fields {
                // returns a new definition we own
                let defn = gdal.OGR_Fld_Create(f.name, Self.ogrType(f.type))
                if f.type == .boolean { gdal.OGR_Fld_SetSubType(defn, OFSTBoolean) }
                // returns OGRERR_NONE on success; the layer copies the definition
                let err = gdal.OGR_L_CreateField(layer, defn, 1)
                gdal.OGR_Fld_Destroy(defn)
                guard err == OGRERR_NONE else {
                    let e = GDALCalls.lastError("cannot create field \(f.name)")
                    gdal.GDALClose(ds)
                    throw e
                }
            }
            return (ds, layer)
        }
        dataset = ds
        self.layer = layer
        // returns OGRERR_NONE when the driver supports transactions (GeoPackage: much faster inserts)
        inTransaction = GDALCalls.quiet { gdal.GDALDatasetStartTransaction(ds, 0) == OGRERR_NONE }
    }

    deinit {
        // returns nothing; a file closed here is incomplete and removed by the caller
        if let dataset { gdal.GDALClose(dataset) }
    }

    static func ogrType(_ t: VectorFieldType) -> OGRFieldType {
        switch t {
        case .integer: return OFTInteger64
        case .real: return OFTReal
        case .boolean: return OFTInteger
        case .string: return OFTString
        }
    }

    /// Adds a feature: `values` in the order of ``fields`` (``VectorValue/null`` for none).
    /// - Throws: ``GDALError`` when the driver refuses the feature.
    /// - Complexity: O(fields + coordinates).
    public func add(values: [VectorValue], geometry: VectorGeometry) throws(GDALError) {
        try GDALCalls.quiet { () throws(GDALError) in
            // returns a new feature we own
            let f = gdal.OGR_F_Create(gdal.OGR_L_GetLayerDefn(layer))
            defer { gdal.OGR_F_Destroy(f) }
            for (i, v) in values.enumerated() where i < fields.count {
                let k = Int32(i)
                switch v {
                case .null: gdal.OGR_F_SetFieldNull(f, k)
                case .integer(let n): gdal.OGR_F_SetFieldInteger64(f, k, GIntBig(n))
                case .real(let d): gdal.OGR_F_SetFieldDouble(f, k, d)
                case .boolean(let b): gdal.OGR_F_SetFieldInteger(f, k, b ? 1 : 0)
                case .string(let s): gdal.OGR_F_SetFieldString(f, k, s)
                }
            }
            guard let g = Self.make(geometry) else { throw GDALError("cannot write a \(geometry) geometry") }
            // takes ownership of g
            _ = gdal.OGR_F_SetGeometryDirectly(f, g)
            // returns OGRERR_NONE on success
            guard gdal.OGR_L_CreateFeature(layer, f) == OGRERR_NONE else {
                throw GDALCalls.lastError("cannot write a feature to \(path)")
            }
        }
    }

    /// Commits and closes the file.
    /// - Throws: ``GDALError`` when the commit or the close (FlatGeobuf writes its index then) fails.
    public func finish() throws(GDALError) {
        guard let ds = dataset else { return }
        dataset = nil
        try GDALCalls.quiet { () throws(GDALError) in
            // returns OGRERR_NONE on success
            if inTransaction, gdal.GDALDatasetCommitTransaction(ds) != OGRERR_NONE {
                let e = GDALCalls.lastError("cannot commit \(path)")
                gdal.GDALClose(ds)
                throw e
            }
            gdal.CPLErrorReset()
            // returns nothing; failures are reported as CPL errors
            gdal.GDALClose(ds)
            if GDALCalls.failed { throw GDALCalls.lastError("cannot finish \(path)") }
        }
    }

    /// A new OGR geometry we own, or nil for ``VectorGeometry/other(_:)``.
    static func make(_ g: VectorGeometry) -> OGRGeometryH? {
        func polygon(_ rings: [[XY]]) -> OGRGeometryH {
            // returns a new geometry we own
            let p = gdal.OGR_G_CreateGeometry(wkbPolygon)!
            for ring in rings {
                let r = gdal.OGR_G_CreateGeometry(wkbLinearRing)!
                var xs = ring.map(\.x), ys = ring.map(\.y)
                // returns nothing; copies the coordinates
                gdal.OGR_G_SetPoints(r, Int32(ring.count), &xs, 8, &ys, 8, nil, 0)
                // takes ownership of r
                _ = gdal.OGR_G_AddGeometryDirectly(p, r)
            }
            return p
        }
        switch g {
        case .point(let p):
            let h = gdal.OGR_G_CreateGeometry(wkbPoint)!
            gdal.OGR_G_SetPoint_2D(h, 0, p.x, p.y)
            return h
        case .polygon(let rings):
            return polygon(rings)
        case .multiPolygon(let parts):
            let m = gdal.OGR_G_CreateGeometry(wkbMultiPolygon)!
            // takes ownership of each part
            for part in parts { _ = gdal.OGR_G_AddGeometryDirectly(m, polygon(part)) }
            return m
        case .other:
            return nil
        }
    }
}
