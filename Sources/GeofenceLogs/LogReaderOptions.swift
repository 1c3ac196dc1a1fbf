import GeofenceBase

/// How a ``LogReader`` reads one log.
public struct LogReaderOptions: Sendable {
    /// The format; nil = from the file name (``LogFormat/detect(path:)``), else from the
    /// first bytes (``LogFormat/sniff``-style: `<` GPX, `{` NDJSON, else CSV).
    public var format: LogFormat?
    /// CSV column names / NDJSON keys.
    public var columns: LogColumns
    /// CSV only: the field separator; nil (default) = sniffed from the header line, the most
    /// frequent of `,` `;` tab `|` outside quotes (docs/logs.md#csv).
    public var delimiter: UInt8?
    /// How numeric times are read (docs/logs.md#times); default ``TimeUnit/auto``.
    public var timeUnit: TimeUnit = .auto
    /// The times accepted; others are bad rows (``SkipReason/badTime``). Default
    /// ``TimeRange/plausible`` (1970 to 2100).
    public var timeRange: TimeRange = .plausible
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
    /// without newlines cannot make the buffer grow without bound (a mapped file has no
    /// buffer, and no such limit: docs/logs.md#files-are-mapped).
    public var maxLineLength: Int
    /// Threads that parse a CSV or NDJSON log at once (docs/logs.md#parallel-reading); 1
    /// (default) reads serially. The fixes, devices, skips, messages and errors do not depend on it.
    public var threads: Int = 1
    /// Bytes of the log each parse worker takes at a time when ``threads`` is above 1
    /// (default 1 MiB); tests use tiny ones to put chunk boundaries everywhere.
    public var parallelChunkSize: Int = 1 << 20
    /// With ``threads`` above 1: parse the next round of the log in the background as soon as
    /// a batch is handed out, overlapping the caller's work on it (docs/logs.md#parallel-reading).
    /// Off by default: the parse takes the cores the caller's own workers would use.
    /// ``LogReader/readAhead`` changes it between batches (`evaluate` does, batch by batch:
    /// docs/evaluation.md#sharing-the-cores). The fixes and errors do not depend on it.
    public var readAhead = false
    /// With ``threads`` above 1: the first rounds are smaller (1 MiB, doubling up to the full
    /// round; one chunk per thread) and each is handed out as soon as it is joined, the next
    /// one parsed in the background meanwhile, so the caller starts on the first fixes soon and
    /// the rest of a larger log is read while they are evaluated (a log of up to 1 MiB is one
    /// round; docs/logs.md#parallel-reading). The fixes, their order
    /// and the errors do not depend on it; the batches do (the first ones are smaller). Off by
    /// default (a caller may rely on batches that do not depend on the thread count); `evaluate`
    /// turns it on, its output not depending on batches.
    public var quickStart = false
    /// A plain regular file of at least this many bytes is mapped read-only instead of read
    /// (default 0: every regular file that is not gzip; docs/logs.md#files-are-mapped).
    /// `Int.max` reads every file.
    public var mapThreshold: Int = 0
    /// The largest gzip member (compressed or inflated) the workers inflate ahead (4 MiB);
    /// tests lower it.
    var gzipMemberLimit = GzipMembers.defaultMemberLimit

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

/// The unit of numeric (epoch) times in a log (docs/logs.md#times).
public enum TimeUnit: String, Sendable, CaseIterable {
    /// Chosen per file from the first numeric time: below 1e11 seconds, below 1e14
    /// milliseconds, else microseconds.
    case auto
    /// Seconds since 1970-01-01T00:00:00Z.
    case seconds = "s"
    /// Milliseconds since the epoch.
    case milliseconds = "ms"
    /// Microseconds since the epoch.
    case microseconds = "us"

    /// How many of this unit make a second (1 for ``auto`` before it is resolved).
    var perSecond: Double {
        switch self {
        case .auto, .seconds: return 1
        case .milliseconds: return 1_000
        case .microseconds: return 1_000_000
        }
    }

    /// The unit of an epoch time of this magnitude (``auto``'s rule).
    static func detect(_ v: Double) -> TimeUnit {
        v.magnitude < 1e11 ? .seconds : v.magnitude < 1e14 ? .milliseconds : .microseconds
    }

    /// The unit's name in messages.
    public var name: String {
        switch self {
        case .auto: return "auto"
        case .seconds: return "seconds"
        case .milliseconds: return "milliseconds"
        case .microseconds: return "microseconds"
        }
    }
}

/// The span of times a log may hold; a fix outside is a bad row (docs/logs.md#times).
public struct TimeRange: Sendable, Hashable {
    /// The earliest time accepted, Unix seconds.
    public var earliest: Double
    /// The latest time accepted, Unix seconds.
    public var latest: Double

    /// A span from `earliest` to `latest` (Unix seconds), clamped to years 0001 to 9999.
    public init(earliest: Double, latest: Double) {
        self.earliest = max(earliest, LogTime.earliest)
        self.latest = min(latest, LogTime.latest)
    }

    /// 1970-01-01T00:00:00Z to 2100-01-01T00:00:00Z: the default; a time outside is almost
    /// always a unit or format mistake.
    public static let plausible = TimeRange(earliest: 0, latest: 4_102_444_800)
    /// Years 0001 to 9999, every time the output can write (`--time-range any`).
    public static let any = TimeRange(earliest: LogTime.earliest, latest: LogTime.latest)
}
