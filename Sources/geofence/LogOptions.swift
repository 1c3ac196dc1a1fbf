import GeofenceKit

/// The options every command that reads location logs takes (docs/logs.md).
let logReadingOptions: [OptionSpec] = [
    .value("--columns", name: "spec", help: "Which columns (NDJSON keys) hold the fix, e.g. device=mmsi,time=ts,lat=y,lon=x,accuracy=acc; roles not named are found by their usual names (docs/logs.md#columns)."),
    .value("--delimiter", name: "char", help: "CSV field separator: , ; tab | (default: found in the header line)."),
    .value("--time-unit", name: "unit", help: "Unit of numeric times: s, ms, us, or auto (default auto: chosen from the first value's magnitude, said on stderr when not seconds)."),
    .value("--time-range", name: "range", help: "Times accepted: 'plausible' (1970 to 2100, the default) or 'any' (years 0001 to 9999); others are bad rows."),
]

/// Reads `--columns`, `--delimiter`, `--time-unit` and `--time-range` into `options`.
/// - Throws: `CommandError.usage` for a bad value.
func applyLogReadingOptions(_ args: Arguments, to options: inout LogReaderOptions) throws {
    if let c = args.value("--columns") { options.columns = try LogColumns.parse(c) }
    if let d = args.value("--delimiter") {
        switch d {
        case ",", "comma": options.delimiter = UInt8(ascii: ",")
        case ";", "semicolon": options.delimiter = UInt8(ascii: ";")
        case "\t", "tab", "\\t": options.delimiter = 0x09
        case "|", "bar", "pipe": options.delimiter = UInt8(ascii: "|")
        default: throw CommandError.usage("geofence: '--delimiter' must be one of , ; tab |, got '\(d)'")
        }
    }
    if let u = args.value("--time-unit") {
        guard let unit = TimeUnit(rawValue: u) else {
            throw CommandError.usage("geofence: '--time-unit' must be s, ms, us or auto, got '\(u)'")
        }
        options.timeUnit = unit
    }
    if let r = args.value("--time-range") {
        switch r {
        case "plausible": options.timeRange = .plausible
        case "any": options.timeRange = .any
        default: throw CommandError.usage("geofence: '--time-range' must be 'plausible' or 'any', got '\(r)'")
        }
    }
}

/// The one-line notices a finished reader has for the user: numeric times read in another
/// unit than seconds, GPX waypoints without a time passed over. Empty when there is nothing to say.
func logReadingNotices(_ reader: LogReader) -> [String] {
    var notes: [String] = []
    if let (unit, first) = reader.detectedTimeUnit, unit != .seconds {
        let value = first == first.rounded() && first.magnitude < 1e18 ? String(Int64(first)) : String(first)
        notes.append("\(reader.path): numeric times read as epoch \(unit.name) (the first, \(value), is \(LogTime.format(first / (unit == .milliseconds ? 1e3 : 1e6)))); --time-unit s|ms|us chooses")
    }
    if reader.untimedWaypoints > 0 {
        let n = reader.untimedWaypoints
        notes.append("\(reader.path): \(n) waypoint\(n == 1 ? "" : "s") without a time passed over (points of interest, not fixes)")
    }
    return notes
}
