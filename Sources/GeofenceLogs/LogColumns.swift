import GeofenceBase

/// Which CSV columns (and NDJSON keys) hold the parts of a fix (docs/logs.md).
///
/// Defaults: `device,time,lat,lon,accuracy`; `accuracy` is optional (0 when the column is
/// absent or a value is empty). Header names match exactly, else ASCII case-insensitively
/// when that is unambiguous.
public struct LogColumns: Hashable, Sendable {
    /// The column (key) holding the device id; default `device`.
    public var device: String
    /// The column (key) holding the time, ISO 8601 or Unix seconds; default `time`.
    public var time: String
    /// The column (key) holding the latitude in degrees; default `lat`.
    public var lat: String
    /// The column (key) holding the longitude in degrees; default `lon`.
    public var lon: String
    /// The column (key) holding the horizontal accuracy in metres; default `accuracy`. The
    /// only optional column: when absent, every fix has accuracy 0.
    public var accuracy: String

    /// Column names for each role; every role not given keeps its default name.
    public init(device: String = "device", time: String = "time", lat: String = "lat",
                lon: String = "lon", accuracy: String = "accuracy") {
        self.device = device
        self.time = time
        self.lat = lat
        self.lon = lon
        self.accuracy = accuracy
    }

    /// The default names: `device`, `time`, `lat`, `lon`, `accuracy`.
    public static let `default` = LogColumns()

    /// The names in role order: device, time, lat, lon, accuracy.
    var names: [String] { [device, time, lat, lon, accuracy] }

    /// Parses a column spec (the CLI's `--columns` value): comma-separated `role=name` pairs, roles
    /// among `device`, `time`, `lat`, `lon`, `accuracy`; unnamed roles keep their defaults.
    /// Example: `device=mmsi,time=ts,lat=LAT,lon=LON`.
    /// - Throws: `GeofenceError.invalidArgument` (parameter `columns`) naming the bad pair: a
    ///   pair without `=`, an empty name, an unknown role, or a role given twice.
    /// - Complexity: O(length of `spec`).
    public static func parse(_ spec: String) throws(GeofenceError) -> LogColumns {
        var columns = LogColumns()
        var seen: Set<String> = []
        for pair in spec.split(separator: ",", omittingEmptySubsequences: false) {
            guard let eq = pair.firstIndex(of: "=") else {
                throw .argument("columns", "\"\(pair)\" is not role=name (roles: device, time, lat, lon, accuracy)")
            }
            let role = pair[..<eq].trimmingASCIISpaces(), name = pair[pair.index(after: eq)...].trimmingASCIISpaces()
            guard !name.isEmpty else { throw .argument("columns", "empty column name for \"\(role)\"") }
            guard seen.insert(role).inserted else { throw .argument("columns", "\"\(role)\" given twice") }
            switch role {
            case "device": columns.device = name
            case "time": columns.time = name
            case "lat": columns.lat = name
            case "lon": columns.lon = name
            case "accuracy": columns.accuracy = name
            default:
                throw .argument("columns", "unknown role \"\(role)\" (roles: device, time, lat, lon, accuracy)")
            }
        }
        return columns
    }
}

extension Substring {
    fileprivate func trimmingASCIISpaces() -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
