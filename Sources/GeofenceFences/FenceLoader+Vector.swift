import Foundation
import GeofenceBase
import GeofenceIndex
import GeofenceGDAL

/// How ``FenceLoader`` reads sources that go through GDAL (docs/fences.md#other-vector-formats-gdal).
public struct VectorSourceOptions: Sendable {
    /// The layer to read (`--layer`); nil: the source's only layer with geometry.
    public var layer: String?
    /// The CRS the user gave (`--crs`), compared with a source's own CRS; nil when none was given.
    public var crs: String?
    /// Options with no layer named and no CRS given.
    public init(layer: String? = nil, crs: String? = nil) { self.layer = layer; self.crs = crs }
}

extension FenceLoader {
    /// Extensions GDAL reads for us (any case). `.csv`, `.tsv`, `.geojson` and `.json` stay with
    /// our own readers.
    static let vectorExtensions = [".shp", ".shz", ".shp.zip", ".zip", ".gpkg", ".sqlite", ".kml", ".kmz", ".fgb",
                                   ".geojsonl", ".geojsons", ".geojsonseq", ".gml", ".gdb", ".tab", ".mif", ".parquet", ".arrow"]
    static let ownExtensions = [".csv", ".tsv", ".geojson", ".json"]

    /// The GDAL data source name `path` stands for when it goes through GDAL, or nil when our
    /// own GeoJSON/CSV readers (or the compiled-file reader) take it, or it does not exist.
    /// GDAL takes: `gdal:NAME` (NAME as GDAL reads it: a file, `/vsicurl/...`, `PG:...`), a
    /// `/vsi...` path, a directory, a file with an extension of ``vectorExtensions``, and a file
    /// with another extension whose first bytes are those of SQLite (GeoPackage), FlatGeobuf,
    /// a shapefile, a ZIP archive or KML. A ZIP archive other than `.kmz`, `.shz` or `.shp.zip`
    /// is opened as `/vsizip/` + its absolute path.
    /// - Complexity: O(1) (reads at most 512 bytes).
    public static func vectorSource(path: String) -> String? {
        if path.hasPrefix("gdal:") { return String(path.dropFirst(5)) }
        if path.hasPrefix("/vsi") { return path }
        let lower = path.lowercased()
        if ownExtensions.contains(where: { lower.hasSuffix($0) }) { return nil }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { return nil }
        if isDir.boolValue { return path }
        // A pipe or FIFO is read once, whole, by our own readers: never peeked at here.
        if isReadOnce(path) { return nil }
        let head = Self.head(path)
        let zip = head.starts(with: [0x50, 0x4B, 0x03, 0x04])
        if zip, !(lower.hasSuffix(".kmz") || lower.hasSuffix(".shz") || lower.hasSuffix(".shp.zip")) {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            return "/vsizip/" + absolute
        }
        if vectorExtensions.contains(where: { lower.hasSuffix($0) }) { return path }
        let text = String(decoding: head, as: UTF8.self)
        if head.starts(with: Array("SQLite format 3\0".utf8)) || head.starts(with: [0x66, 0x67, 0x62, 0x03])
            || head.starts(with: [0x00, 0x00, 0x27, 0x0A]) || text.contains("<kml") {
            return path
        }
        return nil
    }

    /// The first 512 bytes of a file (fewer when it is shorter or unreadable).
    static func head(_ path: String) -> [UInt8] {
        guard let h = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? h.close() }
        return (try? h.read(upToCount: 512)).map { Array($0) } ?? []
    }

    /// Reads the fences of one layer of a GDAL source (docs/fences.md#other-vector-formats-gdal):
    /// Points with a `radius` attribute are circles, Polygons and MultiPolygons polygon fences;
    /// attributes follow the rules of GeoJSON properties (the identifier from the `id`
    /// attribute, else the FID when the source stores one); coordinates are transformed from
    /// the layer's CRS to WGS84. Problems are located by layer and FID.
    /// - Throws: ``GeofenceError/input(_:)`` (malformed, exit 65) with GDAL's message when the
    ///   source cannot be opened or read, or has no layer with geometry;
    ///   ``GeofenceError/invalidArgument(_:)`` (`layer`) when several layers have geometry and
    ///   none is named, or the named one is absent; (`crs`) when ``vector``'s CRS differs from
    ///   the source's own.
    /// - Complexity: O(features + coordinates).
    public func loadVector(path: String, source: String) throws(GeofenceError) -> FenceFile {
        let file = SourceLocation(file: path)
        // A machine without libgdal: an installation problem, not bad data.
        do { try GDALLibrary.load() } catch { throw .internal("\(path): \(error.message); install GDAL (Debian: libgdal32)") }
        let dataset: VectorDataset
        do { dataset = try VectorDataset(opening: source) } catch {
            throw .malformed(file, "cannot read it as a vector data source (GDAL: \(error.message))")
        }
        let layer = try pickLayer(dataset, path: path)
        let name = layer.name
        let transform = try transformation(for: layer, path: path)
        let features: [VectorFeature]
        do { features = try layer.features() } catch {
            throw .malformed(SourceLocation(file: path, layer: name), "cannot read features (GDAL: \(error.message)), driver \(dataset.driver)")
        }
        let converter = VectorFenceConverter(fields: layer.fields, hasFIDColumn: layer.fidColumn != nil, options: fields)
        var own: [(index: Int, problem: FenceProblem)] = []
        var json: [JSONValue] = []
        var sourceIndex: [Int] = []
        func location(_ k: Int) -> SourceLocation {
            SourceLocation(file: path, feature: features[k].fid.map { Int($0) } ?? k, layer: name)
        }
        for (k, f) in features.enumerated() {
            switch converter.feature(f, transform: transform) {
            case .success(let v): json.append(v); sourceIndex.append(k)
            case .failure(let p):
                var p = p
                p.location = location(k)
                own.append((k, p))
            }
        }
        var text = ""
        JSONWriter.write(.object([("type", .string("FeatureCollection")), ("features", .array(json))]), to: &text)
        var inner = self
        // A layer with its own CRS was transformed above; one without uses --crs as GeoJSON does.
        if layer.spatialReference != nil { inner.reproject = nil }
        let parsed = try inner.load(bytes: Array(text.utf8), name: path, format: .geojson)
        func relocate(_ l: SourceLocation) -> SourceLocation { l.feature.map { location(sourceIndex[$0]) } ?? l }
        var fences = parsed.fences
        for i in fences.indices { fences[i].source = relocate(fences[i].source) }
        var problems = parsed.problems.map { p -> (Int, FenceProblem) in
            var p = p
            let k = p.location.feature.map { sourceIndex[$0] } ?? 0
            p.location = relocate(p.location)
            return (k, p)
        }
        problems += own.map { ($0.index, $0.problem) }
        problems.sort { $0.0 < $1.0 }
        return FenceFile(path: path, fences: fences, problems: problems.map(\.1))
    }

    /// The layer named by ``vector``, else the only layer with geometry.
    func pickLayer(_ dataset: VectorDataset, path: String) throws(GeofenceError) -> VectorLayer {
        let layers = dataset.layers
        let names = layers.map { "\"\($0.name)\"" }.joined(separator: ", ")
        if let wanted = vector.layer {
            guard let l = layers.first(where: { $0.name == wanted }) else {
                throw .argument("layer", "\(path) has no layer \"\(wanted)\" (layers: \(names.isEmpty ? "none" : names))")
            }
            return l
        }
        let spatial = layers.filter(\.hasGeometry)
        guard spatial.count <= 1 else {
            throw .argument("layer", "\(path) has \(spatial.count) layers with geometry (\(spatial.map { "\"\($0.name)\"" }.joined(separator: ", "))); choose one with --layer NAME")
        }
        guard let l = spatial.first else {
            throw .malformed(SourceLocation(file: path), "no layer with geometry (layers: \(names.isEmpty ? "none" : names)), driver \(dataset.driver)")
        }
        return l
    }

    /// The transformation from the layer's CRS to WGS84; nil when it has none or is WGS84.
    func transformation(for layer: VectorLayer, path: String) throws(GeofenceError) -> VectorTransformation? {
        guard let srs = layer.spatialReference else { return nil }
        if let given = vector.crs {
            let user: VectorSpatialReference
            do { user = try VectorSpatialReference(userInput: given) } catch {
                throw .argument("crs", "unknown or unusable CRS '\(given)': \(error.message)")
            }
            guard user.isSame(as: srs) else {
                throw .argument("crs", "'\(given)' conflicts with the CRS of \(path) (layer \"\(layer.name)\"): \(srs.label); drop --crs, the source's own CRS is used")
            }
        }
        let wgs84 = VectorSpatialReference.wgs84()
        if srs.isSame(as: wgs84) { return nil }
        do { return try srs.transformation(to: wgs84) } catch {
            throw .malformed(SourceLocation(file: path, layer: layer.name), "cannot transform its CRS \(srs.label) to WGS84 (GDAL: \(error.message))")
        }
    }
}
