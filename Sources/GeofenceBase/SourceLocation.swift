/// Where a fence came from: a file and a 1-based line (CSV), a 0-based feature index
/// (GeoJSON), or a layer and feature identifier (a source read through GDAL).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file path as the caller gave it (empty for a fence made in code).
    public var file: String
    /// 1-based physical line of the record (CSV; also log rows), or nil.
    public var line: Int?
    /// 0-based index in the GeoJSON `features` array; for a source read through GDAL (with
    /// ``layer`` set), the feature's FID; or nil.
    public var feature: Int?
    /// The layer of a source read through GDAL (docs/fences.md#other-vector-formats-gdal), or nil.
    public var layer: String?
    /// A location in `file`, at a `line` (1-based) or a `feature` (0-based, or a FID in `layer`);
    /// give at most one of `line` and `feature`.
    public init(file: String, line: Int? = nil, feature: Int? = nil, layer: String? = nil) {
        self.file = file; self.line = line; self.feature = feature; self.layer = layer
    }
    /// `file:line`, `file: feature N`, `file: layer "L", FID N` or `file` (the line wins when both are set).
    public var description: String {
        if let line { return "\(file):\(line)" }
        if let layer {
            return feature.map { "\(file): layer \"\(layer)\", FID \($0)" } ?? "\(file): layer \"\(layer)\""
        }
        if let feature { return "\(file): feature \(feature)" }
        return file
    }
}
