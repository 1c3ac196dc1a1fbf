import GeofenceBase

/// The location-log formats the readers understand (docs/logs.md). Each may be gzip-compressed;
/// compression is detected from the content (magic bytes `1F 8B`), not the name.
public enum LogFormat: String, Sendable, CaseIterable {
    /// CSV with a header (``LogColumns`` names the columns).
    case csv
    /// One JSON object per line with the same field names as the CSV columns.
    case ndjson
    /// GPX 1.0 / 1.1: `trkpt`, `wpt` and `rtept` elements with a `<time>` child.
    case gpx

    /// A format name as the command line spells it: `csv`, `ndjson` (or `jsonl`), `gpx`.
    public init?(name: String) {
        switch name.lowercased() {
        case "csv": self = .csv
        case "ndjson", "jsonl": self = .ndjson
        case "gpx": self = .gpx
        default: return nil
        }
    }

    /// The format a file name implies: `.csv`, `.ndjson` / `.jsonl`, `.gpx`, each optionally
    /// followed by `.gz` (case-insensitive). Nil for other names and for stdin (`-`).
    /// - Complexity: O(length of `path`).
    public static func detect(path: String) -> LogFormat? {
        var name = Substring(path.lowercased())
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        if name.hasSuffix(".csv") { return .csv }
        if name.hasSuffix(".ndjson") || name.hasSuffix(".jsonl") { return .ndjson }
        if name.hasSuffix(".gpx") { return .gpx }
        return nil
    }

    /// The format the first bytes of a (decompressed) log suggest, for stdin and unknown
    /// extensions: `<` → GPX, `{` → NDJSON, anything else → CSV.
    static func sniff(_ p: UnsafePointer<UInt8>, _ n: Int) -> LogFormat {
        var i = 0
        if n >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { i = 3 }
        while i < n, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
        guard i < n else { return .csv }
        switch p[i] {
        case UInt8(ascii: "<"): return .gpx
        case UInt8(ascii: "{"): return .ndjson
        default: return .csv
        }
    }
}
