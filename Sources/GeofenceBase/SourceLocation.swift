/// Where a fence came from: a file and a 1-based line (CSV) or 0-based feature index (GeoJSON).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file path as the caller gave it (empty for a fence made in code).
    public var file: String
    /// 1-based physical line of the record (CSV; also log rows), or nil.
    public var line: Int?
    /// 0-based index in the GeoJSON `features` array, or nil.
    public var feature: Int?
    /// A location in `file`, at a `line` (1-based) or a `feature` (0-based); give at most one.
    public init(file: String, line: Int? = nil, feature: Int? = nil) {
        self.file = file; self.line = line; self.feature = feature
    }
    /// `file:line`, `file: feature N` or `file` (the line wins when both are set).
    public var description: String {
        if let line { return "\(file):\(line)" }
        if let feature { return "\(file): feature \(feature)" }
        return file
    }
}
