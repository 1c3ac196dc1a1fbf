import GeofenceBase
import GeofenceIndex
import GeofenceLogs
import Foundation

/// Formats events as NDJSON (default) or CSV (docs/evaluation.md): `device, fence, type,
/// time, lat, lon` plus `initial` and `note`. Times are ISO 8601 UTC, with
/// milliseconds only when the fix had a fraction of a second.
public struct EventWriter {
    /// Output formats (docs/evaluation.md#event-records).
    public enum Format: String, Sendable {
        /// One JSON object per line.
        case ndjson
        /// A header line, then one row per event.
        case csv
    }

    /// The format written.
    public let format: Format
    let fenceID: (Int32) -> String
    let note: (Int32) -> String?
    var buffer: [UInt8] = []

    /// A writer for events over `fences` (slot order, as compiled).
    public init(format: Format, fences: [Fence]) {
        self.format = format
        let ids = fences.map(\.id), notes = fences.map { $0.options.note }
        fenceID = { ids[Int($0)] }
        note = { notes[Int($0)] }
        buffer.reserveCapacity(1 << 16)
    }

    /// A writer for events over compiled fences: identifiers from the index, notes from the
    /// option table (nothing copied per fence).
    public init(format: Format, compiled: CompiledFences) {
        self.format = format
        let index = compiled.index, options = compiled.optionTable
        fenceID = { index.identifier(of: $0) }
        note = { options.note(of: Int($0)) }
        buffer.reserveCapacity(1 << 16)
    }

    /// The CSV header line; nil for NDJSON.
    public var header: String? {
        format == .csv ? "device,fence,type,time,lat,lon,initial,note\n" : nil
    }

    /// Appends one event line to `out` (a run's compact event; `device` is its name).
    public func line(_ e: EvaluationEvent, device: String, into out: inout String) {
        Self.line(device: device, fence: fenceID(e.fence), type: e.type, initial: e.initial, time: e.time,
                  lat: e.lat, lon: e.lon, note: note(e.fence), format: format, into: &out)
    }

    /// Appends one event line to `out`.
    public func line(_ e: Event, into out: inout String) {
        Self.line(device: e.device, fence: e.fence, type: e.type, initial: e.initial, time: e.time,
                  lat: e.lat, lon: e.lon, note: e.note, format: format, into: &out)
    }

    static func line(device: String, fence: String, type: EventType, initial: Bool, time: Double, lat: Double, lon: Double,
                     note: String?, format: Format, into out: inout String) {
        switch format {
        case .ndjson:
            out += "{\"device\":"
            JSONWriter.writeString(device, to: &out)
            out += ",\"fence\":"
            JSONWriter.writeString(fence, to: &out)
            out += ",\"type\":\"\(type.name)\",\"time\":\"\(Self.iso8601(time))\",\"lat\":\(Self.number(lat)),\"lon\":\(Self.number(lon))"
            if initial { out += ",\"initial\":true" }
            if let note {
                out += ",\"note\":"
                JSONWriter.writeString(note, to: &out)
            }
            out += "}\n"
        case .csv:
            out += Self.csvField(device) + "," + Self.csvField(fence) + "," + type.name + "," + Self.iso8601(time) + ","
            out += Self.number(lat) + "," + Self.number(lon) + "," + (initial ? "true" : "false") + "," + Self.csvField(note ?? "") + "\n"
        }
    }

    static func csvField(_ s: String) -> String { CSVField.encode(s) }


    /// Shortest round-trip decimal text of a coordinate.
    static func number(_ d: Double) -> String { JSONValue.format(d) }

    /// `2020-06-04T14:11:37Z` (or `...37.250Z` with a fraction), from Unix seconds, proleptic
    /// Gregorian, the year on four digits.
    /// - Precondition: `t` is within `LogTime.earliest...LogTime.latest` (the log readers refuse
    ///   other times).
    public static func iso8601(_ t: Double) -> String {
        precondition(t >= LogTime.earliest && t <= LogTime.latest, "time outside the years 0001-9999")
        let whole = t.rounded(.down)
        var ms = Int64(((t - whole) * 1000).rounded())
        var secs = Int64(whole)
        if ms == 1000 { secs += 1; ms = 0 }
        var days = secs / 86_400
        var rem = secs % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, m, d) = LogTime.civilFromDays(Int(days))
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = String(y)
        var s = String(repeating: "0", count: max(0, 4 - year.count)) + year
        s += "-\(two(Int64(m)))-\(two(Int64(d)))T\(two(rem / 3600)):\(two(rem % 3600 / 60)):\(two(rem % 60))"
        if ms != 0 { s += "." + String(format: "%03d", ms) }
        return s + "Z"
    }
}
