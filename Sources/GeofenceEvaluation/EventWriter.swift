import GeofenceBase
import GeofenceIndex
import GeofenceLogs
import Foundation

/// Formats events as NDJSON (default), CSV or GeoJSON (docs/evaluation.md#event-records):
/// `device, fence, type, time, lat, lon` plus `initial` and `note`, and, when asked for,
/// the fix's accuracy, the visit's duration and chosen fence properties. Times are ISO 8601
/// UTC, with milliseconds only when the fix had a fraction of a second.
public struct EventWriter {
    /// Output formats (docs/evaluation.md#event-records).
    public enum Format: String, Sendable, CaseIterable {
        /// One JSON object per line.
        case ndjson
        /// A header line, then one row per event.
        case csv
        /// One GeoJSON FeatureCollection, a Point feature per event, one feature per line.
        case geojson
        /// Newline-delimited GeoJSON: one Point feature per line, nothing around them.
        case geojsonl
    }

    /// Optional event fields (`--event-fields`).
    public struct Fields: OptionSet, Sendable {
        /// The raw bits.
        public let rawValue: UInt8
        /// A set from its bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `accuracy`: the fix's horizontal accuracy in metres, when the log has one.
        public static let accuracy = Fields(rawValue: 1)
        /// `duration`: on `dwell` and `exit`, seconds since the fix that started the visit.
        public static let duration = Fields(rawValue: 2)

        /// The names `--event-fields` takes, in output order.
        public static let names: [(String, Fields)] = [("accuracy", .accuracy), ("duration", .duration)]
    }

    /// The format written.
    public let format: Format
    /// Optional fields written.
    public var fields: Fields = []
    /// Times written with the UTC offset the log gave them (`--time-zone keep`:
    /// `2020-06-04T16:11:37+02:00`); false (default) writes UTC with `Z`.
    public var keepOffset = false
    /// Chosen fence properties, written as `fence_<name>` (nil: none).
    public var properties: FenceProperties? = nil
    let fenceID: (Int32) -> String
    let note: (Int32) -> String?
    /// Events written so far (GeoJSON separates features with commas); a reference, so that
    /// writing a line does not need a mutable writer.
    private(set) var written = Counter()

    /// A count shared by the copies of a writer.
    final class Counter { var value = 0 }

    /// A copy with a count of its own, starting at 0: for a worker formatting a block of
    /// events on its own (a copy sharing the count would race, and place GeoJSON commas by
    /// which worker came first). The caller joins the blocks with ``joinBlock(_:events:into:)``.
    func withOwnCount() -> EventWriter {
        var copy = self
        copy.written = Counter()
        return copy
    }

    /// A block formatted by ``withOwnCount()`` as it continues this writer's output: a
    /// GeoJSON block after earlier features gets the comma its first feature lacks. Counts the
    /// block's `events` as written.
    func joinBlock(_ text: [UInt8], events: Int, into out: inout [UInt8]) {
        if format == .geojson && written.value > 0 && events > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: text)
        written.value += events
    }

    /// A writer for events over `fences` (slot order, as compiled).
    public init(format: Format, fences: [Fence]) {
        self.format = format
        let ids = fences.map(\.id), notes = fences.map { $0.options.note }
        fenceID = { ids[Int($0)] }
        note = { notes[Int($0)] }
    }

    /// A writer for events over compiled fences: identifiers from the index, notes from the
    /// option table (nothing copied per fence).
    public init(format: Format, compiled: CompiledFences) {
        self.format = format
        let index = compiled.index, options = compiled.optionTable
        fenceID = { index.identifier(of: $0) }
        note = { options.note(of: Int($0)) }
    }

    /// What comes before the first event: the CSV header line, the FeatureCollection's
    /// opening; nil for NDJSON and GeoJSON lines.
    public var header: String? {
        switch format {
        case .csv:
            var h = "device,fence,type,time,lat,lon,initial,note"
            for (name, f) in Fields.names where fields.contains(f) { h += "," + name }
            for name in properties?.names ?? [] { h += "," + Self.csvField("fence_" + name) }
            return h + "\n"
        case .geojson: return "{\"type\":\"FeatureCollection\",\"features\":["
        case .ndjson, .geojsonl: return nil
        }
    }

    /// What comes after the last event: the FeatureCollection's closing; nil for the others.
    public var footer: String? { format == .geojson ? "\n]}\n" : nil }

    /// Appends one event line to `out` (a run's compact event; `device` is its name).
    public func line(_ e: EvaluationEvent, device: String, into out: inout String) {
        var bytes: [UInt8] = []
        line(e, device: device, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one event line to `out` as UTF-8 bytes: what the `String` form appends.
    public func line(_ e: EvaluationEvent, device: String, into out: inout [UInt8]) {
        // The optional fields made only when written (an accuracy's shortest decimal costs more
        // than the rest of the line).
        let event = Event(device: device, fence: fenceID(e.fence), type: e.type, initial: e.initial, time: e.time, lat: e.lat, lon: e.lon,
                          note: note(e.fence),
                          accuracy: fields.contains(.accuracy) ? EvaluationEvent.accuracyValue(e.accuracy) : nil,
                          duration: fields.contains(.duration) ? EvaluationEvent.durationValue(e.duration) : nil, offset: e.offset)
        line(event, slot: e.fence, into: &out)
    }

    /// Appends one event line to `out` (no fence properties: the event has no slot).
    public func line(_ e: Event, into out: inout String) {
        var bytes: [UInt8] = []
        line(e, slot: nil, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// One event line, written byte by byte into `out` (no `String` per field: a run's events
    /// are formatted by its workers, and string appends cost them ten times more).
    func line(_ e: Event, slot: Int32?, into out: inout [UInt8]) {
        let accuracy = fields.contains(.accuracy) ? e.accuracy : nil
        let duration = fields.contains(.duration) ? e.duration : nil
        switch format {
        case .ndjson, .geojson, .geojsonl:
            if format == .geojson { out.append(literal: written.value == 0 ? "\n" : ",\n") }
            if format != .ndjson {
                out.append(literal: "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
                Self.number(e.lon, into: &out)
                out.append(UInt8(ascii: ","))
                Self.number(e.lat, into: &out)
                out.append(literal: "]},\"properties\":")
            }
            out.append(literal: "{\"device\":")
            JSONWriter.writeString(e.device, to: &out)
            out.append(literal: ",\"fence\":")
            JSONWriter.writeString(e.fence, to: &out)
            out.append(literal: ",\"type\":\"")
            out.append(text: e.type.name)
            out.append(literal: "\",\"time\":\"")
            time(e, into: &out)
            out.append(UInt8(ascii: "\""))
            if format == .ndjson {
                out.append(literal: ",\"lat\":")
                Self.number(e.lat, into: &out)
                out.append(literal: ",\"lon\":")
                Self.number(e.lon, into: &out)
            }
            if e.initial { out.append(literal: ",\"initial\":true") }
            if let note = e.note {
                out.append(literal: ",\"note\":")
                JSONWriter.writeString(note, to: &out)
            }
            if let accuracy {
                out.append(literal: ",\"accuracy\":")
                Self.number(accuracy, into: &out)
            }
            if let duration {
                out.append(literal: ",\"duration\":")
                Self.number(duration, into: &out)
            }
            if let properties, let slot {
                for k in properties.names.indices {
                    guard let v = properties.value(slot: slot, k) else { continue }
                    out.append(UInt8(ascii: ","))
                    JSONWriter.writeString("fence_" + properties.names[k], to: &out)
                    out.append(UInt8(ascii: ":"))
                    if v.isString { JSONWriter.writeString(v.text, to: &out) } else { out.append(text: v.text) }
                }
            }
            out.append(literal: format == .ndjson ? "}\n" : format == .geojson ? "}}" : "}}\n")
        case .csv:
            out.append(text: Self.csvField(e.device))
            out.append(UInt8(ascii: ","))
            out.append(text: Self.csvField(e.fence))
            out.append(UInt8(ascii: ","))
            out.append(text: e.type.name)
            out.append(UInt8(ascii: ","))
            time(e, into: &out)
            out.append(UInt8(ascii: ","))
            Self.number(e.lat, into: &out)
            out.append(UInt8(ascii: ","))
            Self.number(e.lon, into: &out)
            out.append(literal: e.initial ? ",true," : ",false,")
            out.append(text: Self.csvField(e.note ?? ""))
            if fields.contains(.accuracy) {
                out.append(UInt8(ascii: ","))
                if let accuracy { Self.number(accuracy, into: &out) }
            }
            if fields.contains(.duration) {
                out.append(UInt8(ascii: ","))
                if let duration { Self.number(duration, into: &out) }
            }
            if let properties {
                for k in properties.names.indices {
                    out.append(UInt8(ascii: ","))
                    if let v = slot.flatMap({ properties.value(slot: $0, k) }) { out.append(text: Self.csvField(v.text)) }
                }
            }
            out.append(UInt8(ascii: "\n"))
        }
        written.value += 1
    }

    static func csvField(_ s: String) -> String { CSVField.encode(s) }

    /// An event's time as written, appended to `out`: UTC, or with its offset under ``keepOffset``.
    func time(_ e: Event, into out: inout [UInt8]) {
        if keepOffset && e.offset != 0 { out.append(text: Self.iso8601(e.time, offset: e.offset)) } else { Self.iso8601(e.time, into: &out) }
    }

    /// `2020-06-04T16:11:37+02:00`: the local time at `offset` minutes east of UTC, then the
    /// offset (`Z` for 0). Same precondition as ``iso8601(_:)``.
    public static func iso8601(_ t: Double, offset: Int16) -> String {
        guard offset != 0 else { return iso8601(t) }
        let local = t + Double(offset) * 60
        guard local >= LogTime.earliest && local <= LogTime.latest else { return iso8601(t) }
        var text = iso8601(local)
        text.removeLast()                                            // the Z
        let m = Int(offset.magnitude)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return text + (offset < 0 ? "-" : "+") + two(m / 60) + ":" + two(m % 60)
    }

    /// Shortest round-trip decimal text of a coordinate (`JSONValue.format`), appended to `out`.
    @inline(__always)
    static func number(_ d: Double, into out: inout [UInt8]) { JSONValue.format(d, into: &out) }

    /// `2020-06-04T14:11:37Z` (or `...37.250Z` with a fraction), from Unix seconds, proleptic
    /// Gregorian, the year on four digits.
    /// - Precondition: `t` is within `LogTime.earliest...LogTime.latest` (the log readers refuse
    ///   other times).
    public static func iso8601(_ t: Double) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        iso8601(t, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``iso8601(_:)``, appended to `out` byte by byte: `YYYY-MM-DDThh:mm:ss[.mmm]Z` (the year
    /// is 1...9999). Same precondition.
    static func iso8601(_ t: Double, into out: inout [UInt8]) {
        precondition(t >= LogTime.earliest && t <= LogTime.latest, "time outside the years 0001-9999")
        let whole = t.rounded(.down)
        var ms = Int64(((t - whole) * 1000).rounded())
        var secs = Int64(whole)
        if ms == 1000 { secs += 1; ms = 0 }
        var days = secs / 86_400
        var rem = secs % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, m, d) = LogTime.civilFromDays(Int(days))
        var room: (UInt64, UInt64, UInt64) = (0, 0, 0)
        Swift.withUnsafeMutableBytes(of: &room) { b in
            var i = 0
            func digits(_ v: Int, _ count: Int) {
                var v = v
                for k in stride(from: count - 1, through: 0, by: -1) {
                    b[i + k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                    v /= 10
                }
                i += count
            }
            func byte(_ c: UInt8) { b[i] = c; i += 1 }
            digits(y, 4); byte(UInt8(ascii: "-")); digits(m, 2); byte(UInt8(ascii: "-")); digits(d, 2); byte(UInt8(ascii: "T"))
            digits(Int(rem / 3600), 2); byte(UInt8(ascii: ":")); digits(Int(rem % 3600 / 60), 2); byte(UInt8(ascii: ":"))
            digits(Int(rem % 60), 2)
            if ms != 0 { byte(UInt8(ascii: ".")); digits(Int(ms), 3) }
            byte(UInt8(ascii: "Z"))
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[..<i]))
        }
    }
}
