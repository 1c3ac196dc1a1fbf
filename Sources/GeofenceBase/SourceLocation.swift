/// Where a fence came from: a file and a 1-based line (CSV) or 0-based feature index (GeoJSON).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var feature: Int?
    public init(file: String, line: Int? = nil, feature: Int? = nil) {
        self.file = file; self.line = line; self.feature = feature
    }
    public var description: String {
        if let line { return "\(file):\(line)" }
        if let feature { return "\(file): feature \(feature)" }
        return file
    }
}
