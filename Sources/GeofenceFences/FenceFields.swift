import GeofenceBase

/// A fence attribute a CSV column, GeoJSON property or GDAL attribute can be mapped to with
/// `--fields` (docs/fences.md#field-mapping).
public enum FenceField: String, CaseIterable, Sendable {
    /// The identifier.
    case id
    /// Latitude in WGS84 degrees (CSV).
    case lat
    /// Longitude in WGS84 degrees (CSV).
    case lon
    /// Projected easting, read with `--crs` (CSV).
    case x
    /// Projected northing, read with `--crs` (CSV).
    case y
    /// A circle's radius, in ``FenceFieldOptions/radiusUnit`` (metres by default).
    case radius
    /// A WKT geometry (CSV): `POLYGON`, `MULTIPOLYGON`, or `POINT` with a radius.
    case wkt
    /// The `notifyOnEntry` option.
    case notifyOnEntry
    /// The `notifyOnExit` option.
    case notifyOnExit
    /// The `dwell` option, in seconds.
    case dwell
    /// The `repeats` option.
    case repeats
    /// The `note` option.
    case note

    /// The names recognised without `--fields`, compared case-insensitively, best first, with
    /// the radius unit a name implies (`radius_km`).
    var synonyms: [(name: String, unit: LengthUnit?)] {
        switch self {
        case .id: return ["id", "fence_id", "geofence_id", "fid", "store_id", "site_id", "location_id", "uuid"].map { ($0, nil) }
        case .lat: return ["lat", "latitude", "y"].map { ($0, nil) }
        case .lon: return ["lon", "lng", "long", "longitude", "x"].map { ($0, nil) }
        case .x: return ["x", "easting"].map { ($0, nil) }
        case .y: return ["y", "northing"].map { ($0, nil) }
        case .radius:
            return [("radius", nil), ("radius_m", .m), ("radius_meters", .m), ("radius_metres", .m), ("r", nil),
                    ("radius_km", .km), ("radius_ft", .ft), ("radius_mi", .mi)]
        case .wkt: return ["wkt", "geometry_wkt", "wkt_geometry", "geom_wkt"].map { ($0, nil) }
        default: return [(rawValue.lowercased(), nil)]
        }
    }

    /// The option fields, in the order ``FenceOptions`` reads them.
    static let options: [FenceField] = [.notifyOnEntry, .notifyOnExit, .dwell, .repeats, .note]
}

/// A unit of length for radii (`--radius-unit`).
public enum LengthUnit: String, CaseIterable, Sendable {
    /// Metres.
    case m
    /// Kilometres.
    case km
    /// International feet (0.3048 m).
    case ft
    /// International miles (1609.344 m).
    case mi

    /// Metres in one unit.
    public var metres: Double {
        switch self {
        case .m: return 1
        case .km: return 1000
        case .ft: return 0.3048
        case .mi: return 1609.344
        }
    }
}

/// How fence attributes are found in CSV headers, GeoJSON properties and GDAL attributes
/// (docs/fences.md#field-mapping): explicit `--fields` names, else the synonyms of
/// ``FenceField``; the radius unit, a default radius, and the CSV delimiter.
public struct FenceFieldOptions: Sendable, Equatable {
    /// Explicit source names by field (`--fields id=ID,lat=Lat`, `--radius-field`); a name
    /// matches exactly, else case-insensitively.
    public var mapping: [FenceField: String] = [:]
    /// The unit radii are in (`--radius-unit`); nil: the unit the radius column's name implies
    /// (`radius_km`), else metres.
    public var radiusUnit: LengthUnit? = nil
    /// The radius, in metres, of a point without one (`--default-radius`); nil: a point without
    /// a radius is a problem.
    public var defaultRadius: Double? = nil
    /// The CSV delimiter (`--delimiter`); nil: sniffed from the header (`,` `;` tab `|`).
    public var delimiter: UInt8? = nil

    /// No mapping, radii in metres, no default radius, a sniffed delimiter.
    public init() {}

    /// Whether every option has its default, so the fast readers' fixed names apply.
    var isDefault: Bool { self == FenceFieldOptions() }

    /// Parses a `--fields` value: comma-separated `field=name` pairs (docs/fences.md#field-mapping).
    /// - Throws: `GeofenceError.invalidArgument` (parameter `fields`) for a pair without `=`, an
    ///   unknown field, an empty name, or a field given twice.
    /// - Complexity: O(length of `text`).
    public static func parseMapping(_ text: String) throws(GeofenceError) -> [FenceField: String] {
        var map: [FenceField: String] = [:]
        let known = FenceField.allCases.map(\.rawValue).joined(separator: ", ")
        for pair in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard let eq = pair.firstIndex(of: "=") else {
                throw .argument("fields", "'\(pair)' is not field=name (fields: \(known))")
            }
            let key = pair[..<eq].trimmingCharacters(in: .whitespaces)
            let name = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard let field = FenceField.allCases.first(where: { $0.rawValue.lowercased() == key.lowercased() }) else {
                throw .argument("fields", "unknown field '\(key)' (fields: \(known))")
            }
            guard !name.isEmpty else { throw .argument("fields", "'\(pair)' names no column") }
            guard map.updateValue(name, forKey: field) == nil else { throw .argument("fields", "field '\(key)' is mapped twice") }
        }
        return map
    }

    /// Parses a `--delimiter` value: one ASCII character, or `tab` / `\t`.
    /// - Throws: `GeofenceError.invalidArgument` (parameter `delimiter`) for anything else, or a
    ///   quote, CR or LF.
    public static func parseDelimiter(_ text: String) throws(GeofenceError) -> UInt8 {
        if text == "tab" || text == "\\t" || text == "\t" { return 0x09 }
        let u = Array(text.utf8)
        guard u.count == 1, u[0] < 0x80, u[0] != UInt8(ascii: "\""), u[0] != 0x0A, u[0] != 0x0D else {
            throw .argument("delimiter", "'\(text)' is not a delimiter (give one character such as , ; | or 'tab')")
        }
        return u[0]
    }

    /// The scale from the radius field's unit to metres.
    func radiusScale(impliedBy unit: LengthUnit?) -> Double { (radiusUnit ?? unit ?? .m).metres }

    /// The property of `props` that holds `field`: the mapped name (exact, else any case),
    /// else the first synonym present (any case). With the unit the name implies.
    func property(_ field: FenceField, in props: [(String, JSONValue)]) -> (key: String, value: JSONValue, unit: LengthUnit?)? {
        guard let (k, unit) = index(field, in: props.map(\.0)) else { return nil }
        return (props[k].0, props[k].1, unit)
    }

    /// The position in `names` of the name that holds `field`, by the rules of ``property(_:in:)``.
    func index(_ field: FenceField, in names: [String]) -> (Int, LengthUnit?)? {
        if let wanted = mapping[field] {
            if let k = names.firstIndex(of: wanted) { return (k, nil) }
            let lower = wanted.lowercased()
            return names.firstIndex { $0.lowercased() == lower }.map { ($0, nil) }
        }
        if let k = names.firstIndex(of: field.rawValue) { return (k, nil) }
        for s in field.synonyms {
            if let k = names.firstIndex(where: { $0.lowercased() == s.name }) { return (k, s.unit) }
        }
        return nil
    }

    /// The option properties of `props` under their canonical names, for ``FenceLoader/readOptions``.
    func optionProperties(_ props: [(String, JSONValue)]) -> [(String, JSONValue)] {
        FenceField.options.compactMap { f in property(f, in: props).map { (f.rawValue, $0.value) } }
    }
}

/// The columns of a fence CSV header, resolved by ``FenceFieldOptions`` (docs/fences.md#field-mapping).
struct FenceColumns {
    var id: Int
    /// Latitude (or projected y) and longitude (or x); nil when the geometry is a WKT column.
    var lat: Int?
    var lon: Int?
    var radius: Int?
    var wkt: Int?
    /// Read as projected x/y (`--crs`).
    var projected: Bool
    /// Metres per radius unit.
    var radiusScale: Double
    /// Option columns with their canonical names.
    var options: [(name: String, column: Int)]

    /// The columns read as fence attributes rather than kept as properties.
    var core: Set<Int> { Set([id, lat, lon, radius, wkt].compactMap { $0 }) }

    /// Resolves the header `names`. `projected`: `--crs` was given. The error says what is
    /// missing or wrong and, for a missing column, the `--fields` line that would map it.
    static func resolve(_ names: [String], options o: FenceFieldOptions, projected: Bool, crs: String?) throws(ColumnError) -> FenceColumns {
        let lower = names.map { $0.lowercased() }
        let listed = names.map { "\"\($0)\"" }.joined(separator: ", ")
        var unit: LengthUnit?
        func find(_ f: FenceField) throws(ColumnError) -> Int? {
            if let wanted = o.mapping[f] {
                if let k = names.firstIndex(of: wanted) { return k }
                let hits = lower.indices.filter { lower[$0] == wanted.lowercased() }
                guard hits.count == 1 else {
                    throw ColumnError(hits.isEmpty ? "--fields maps \(f.rawValue) to \"\(wanted)\", which is not a column (columns: \(listed))"
                                                   : "--fields maps \(f.rawValue) to \"\(wanted)\", which matches \(hits.count) columns in different case; give its exact spelling",
                                      parameter: "fields")
                }
                return hits[0]
            }
            if let k = names.firstIndex(of: f.rawValue) { return k }
            for s in f.synonyms {
                let hits = lower.indices.filter { lower[$0] == s.name }
                if hits.count > 1 {
                    throw ColumnError("columns \(hits.map { "\"\(names[$0])\"" }.joined(separator: " and ")) both read as \(f.rawValue); choose one with --fields \(f.rawValue)=NAME")
                }
                if let k = hits.first { if f == .radius { unit = s.unit }; return k }
            }
            return nil
        }
        let mappedDegrees = o.mapping[.lat] != nil || o.mapping[.lon] != nil
        let mappedProjected = o.mapping[.x] != nil || o.mapping[.y] != nil
        if mappedProjected && !projected {
            throw ColumnError("--fields maps x/y, projected coordinates: give their CRS with --crs EPSG:n (or map lat/lon for WGS84 degrees)", parameter: "fields")
        }
        let id = try find(.id)
        let wkt = try find(.wkt)
        var lat: Int?, lon: Int?
        if projected {
            if mappedDegrees {
                throw ColumnError("--crs \(crs ?? "") applies to projected x/y columns, but --fields maps lat/lon, which are WGS84 degrees; map the projected columns with --fields x=NAME,y=NAME, or drop --crs", parameter: "crs")
            }
            lat = try find(.y); lon = try find(.x)
            if wkt == nil && (lat == nil || lon == nil) {
                var degrees: [String] = []
                for f in [FenceField.lat, .lon] {
                    if let k = try? find(f), !["x", "y"].contains(lower[k]) { degrees.append(names[k]) }
                }
                if !degrees.isEmpty {
                    throw ColumnError("--crs \(crs ?? "") applies to projected x/y columns, but this header has latitude/longitude columns (\(degrees.joined(separator: ", "))), which are WGS84 degrees: drop --crs, or map the projected columns with --fields x=NAME,y=NAME", parameter: "crs")
                }
            }
        } else if wkt == nil || mappedDegrees {
            lat = try find(.lat); lon = try find(.lon)
        }
        let radius = try find(.radius)
        var options: [(String, Int)] = []
        for f in FenceField.options { if let k = try find(f) { options.append((f.rawValue, k)) } }
        let radiusNeeded = wkt == nil && o.defaultRadius == nil
        let positionNeeded = wkt == nil
        if id == nil || (positionNeeded && (lat == nil || lon == nil)) || (radiusNeeded && radius == nil) {
            var missing: [String] = []
            if id == nil { missing.append("id") }
            if positionNeeded && lat == nil { missing.append(projected ? "y" : "lat") }
            if positionNeeded && lon == nil { missing.append(projected ? "x" : "lon") }
            if radiusNeeded && radius == nil { missing.append("radius") }
            var m = "CSV header has no \(missing.joined(separator: ", ")) column (columns: \(listed))"
            if names.count == 1, let d = FenceCSV.otherDelimiter(in: names[0]) {
                m += "; the header looks \(FenceCSV.describe(d))-separated: pass --delimiter '\(FenceCSV.spell(d))', or leave --delimiter out to detect it"
            } else {
                let suggestion = suggest(names, have: [(.id, id), (projected ? .x : .lat, projected ? lon : lat), (projected ? .y : .lon, projected ? lat : lon), (.radius, radius)],
                                         needRadius: radiusNeeded || radius != nil, needPosition: positionNeeded)
                m += "; use --fields \(suggestion)"
            }
            throw ColumnError(m)
        }
        var seen = Set<Int>()
        for k in [id, lat, lon, radius, wkt].compactMap({ $0 }) + options.map(\.1) where !seen.insert(k).inserted {
            throw ColumnError("column \"\(names[k])\" is mapped to two fields", parameter: "fields")
        }
        return FenceColumns(id: id!, lat: lat, lon: lon, radius: radius, wkt: wkt, projected: projected,
                            radiusScale: o.radiusScale(impliedBy: unit), options: options)
    }

    /// A `--fields` value for this header: resolved columns as they are, the others guessed
    /// from the names (a column containing "lat" for lat...), else `NAME`.
    static func suggest(_ names: [String], have: [(FenceField, Int?)], needRadius: Bool, needPosition: Bool) -> String {
        var used = Set(have.compactMap(\.1))
        let hints: [FenceField: [String]] = [.id: ["id", "code", "key", "name"], .lat: ["lat"], .lon: ["lon", "lng"],
                                             .x: ["x", "east"], .y: ["y", "north"], .radius: ["rad", "dist", "size", "buffer"]]
        var parts: [String] = []
        for (f, k) in have {
            if (f == .radius && !needRadius) || (!needPosition && [.lat, .lon, .x, .y].contains(f)) { continue }
            var pick = k
            if pick == nil {
                pick = names.indices.first { i in !used.contains(i) && (hints[f] ?? []).contains { names[i].lowercased().contains($0) } }
                if let p = pick { used.insert(p) }
            }
            parts.append("\(f.rawValue)=\(pick.map { names[$0] } ?? "NAME")")
        }
        return parts.joined(separator: ",")
    }
}

/// Why a fence CSV header cannot be read: the message, and the option to blame when an
/// option (`fields`, `crs`) rather than the file is wrong.
struct ColumnError: Error {
    let message: String
    let parameter: String?
    init(_ message: String, parameter: String? = nil) { self.message = message; self.parameter = parameter }
}

/// Delimiter sniffing for fence CSV (docs/fences.md#delimiters).
enum FenceCSV {
    static let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]

    /// The delimiter of `bytes`: the candidate found most often in the first record outside
    /// quotes (a comma on ties and when none is present).
    static func sniff(_ bytes: [UInt8]) -> UInt8 {
        var counts = [Int](repeating: 0, count: candidates.count)
        var inQuotes = false
        var i = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { inQuotes.toggle() } else if !inQuotes {
                if b == 0x0A { if counts.contains(where: { $0 > 0 }) { break } }
                if let k = candidates.firstIndex(of: b) { counts[k] += 1 }
            }
            i += 1
        }
        var best = 0
        for k in counts.indices where counts[k] > counts[best] { best = k }
        return candidates[best]
    }

    /// A candidate delimiter other than the one used that occurs in a lone header field.
    static func otherDelimiter(in field: String) -> UInt8? {
        candidates.first { c in field.utf8.contains(c) }
    }

    /// `comma`, `semicolon`, `tab`, `pipe` or the character.
    static func describe(_ d: UInt8) -> String {
        switch d {
        case UInt8(ascii: ","): return "comma"
        case UInt8(ascii: ";"): return "semicolon"
        case 0x09: return "tab"
        case UInt8(ascii: "|"): return "pipe"
        default: return "'\(Character(Unicode.Scalar(d)))'"
        }
    }

    /// The delimiter as `--delimiter` takes it.
    static func spell(_ d: UInt8) -> String { d == 0x09 ? "tab" : String(Character(Unicode.Scalar(d))) }
}
