import GeofenceBase

/// How a ``LogReader`` reads one log.
public struct LogReaderOptions: Sendable {
    /// The format; nil = from the file name (``LogFormat/detect(path:)``), else from the
    /// first bytes (``LogFormat/sniff``-style: `<` GPX, `{` NDJSON, else CSV).
    public var format: LogFormat?
    /// CSV column names / NDJSON keys.
    public var columns: LogColumns
    /// false (default): the first bad row throws ``GeofenceError/input(_:)`` with kind
    /// ``InputError/Kind/invalidRecord(reason:)`` (docs/errors.md).
    /// true: bad rows are skipped and counted by ``SkipReason`` (`--skip-invalid`).
    public var skipInvalid: Bool
    /// GPX only: the device id; nil = the file name without directory and extensions
    /// (`data/gpx/korita-zbevnica.gpx` → `korita-zbevnica`), `stdin` for `-`.
    public var device: String?
    /// GPX only: which point elements become fixes.
    public var gpxPoints: GPXPointKinds
    /// Bytes per `read(2)` (and per inflate output step). Memory held by a reader is about
    /// two chunks plus the longest line. Tests use tiny chunks to cut lines anywhere.
    public var chunkSize: Int
    /// A line (CSV row, NDJSON object, GPX token) longer than this is an error, so a file
    /// without newlines cannot make the buffer grow without bound.
    public var maxLineLength: Int

    /// Options with the defaults: format from the name or content, default columns, strict,
    /// GPX device from the file name, all GPX point kinds, 1 MiB chunks, 64 MiB maximum line.
    /// `chunkSize` and `maxLineLength` below 1 are raised to 1.
    public init(format: LogFormat? = nil, columns: LogColumns = .default, skipInvalid: Bool = false,
                device: String? = nil, gpxPoints: GPXPointKinds = .all,
                chunkSize: Int = 1 << 20, maxLineLength: Int = 64 << 20) {
        self.format = format
        self.columns = columns
        self.skipInvalid = skipInvalid
        self.device = device
        self.gpxPoints = gpxPoints
        self.chunkSize = max(1, chunkSize)
        self.maxLineLength = max(1, maxLineLength)
    }
}

/// The GPX elements read as fixes.
public struct GPXPointKinds: OptionSet, Sendable, Hashable {
    /// The bits: 1 track points, 2 waypoints, 4 route points.
    public let rawValue: Int
    /// A set from its bits (see ``rawValue``); other bits are kept but select nothing.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `<trkpt>`: track points.
    public static let trackPoints = GPXPointKinds(rawValue: 1)
    /// `<wpt>`: waypoints.
    public static let waypoints = GPXPointKinds(rawValue: 2)
    /// `<rtept>`: route points.
    public static let routePoints = GPXPointKinds(rawValue: 4)
    /// Track points, waypoints and route points (the default).
    public static let all: GPXPointKinds = [.trackPoints, .waypoints, .routePoints]
}
