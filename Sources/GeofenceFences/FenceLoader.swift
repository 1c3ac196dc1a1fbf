import GeofenceBase
import GeofenceIndex
import Foundation

/// The fences read from one file, and the problems found in it.
public struct FenceFile: Sendable {
    /// The file's path (or the name given to ``FenceLoader/load(bytes:name:format:)``), as
    /// used in every problem's location.
    public var path: String
    /// The fences without a blocking problem, in file order. A fence whose only problems are
    /// repairable is included as repaired: rings closed, coordinates clamped into range.
    public var fences: [Fence]
    /// Every problem found, in file order; a fence with a non-repairable problem is not in
    /// ``fences``. Duplicate identifiers and invalid polygons are found later, by
    /// ``FenceSet/add(_:)`` and ``FenceValidator/checkPolygons(_:)``.
    public var problems: [FenceProblem]
}

/// Reads fences from GeoJSON FeatureCollections and CSV files (docs/fences.md).
///
/// Whole-file problems (unreadable file, malformed JSON, a CSV header without a
/// required column) are thrown as `GeofenceError`. Problems with one feature or row
/// are collected in `FenceFile.problems`, each naming its feature or line, so
/// `validate` can list all of them and other commands can stop at the first.
public struct FenceLoader {
    /// A fence file format: `geojson` (a FeatureCollection or one Feature), `csv` (circles,
    /// header with `id,lat,lon,radius`); docs/fences.md#input-formats.
    public enum Format: String, Sendable { case geojson, csv }

    /// Reprojects coordinates (x = easting/lon, y = northing/lat) to WGS84 lon/lat in place.
    /// Set by the caller for `--crs`; nil means the input already is WGS84.
    public typealias Reprojector = (inout [Coordinate]) throws -> Void

    /// The options every fence starts with before its own option properties apply;
    /// default: ``FenceOptions/init()`` (notify on entry and exit, repeats, no dwell, no note).
    public var defaults = FenceOptions()
    /// Called on the position of each GeoJSON Point and CSV row and on each ring, before the
    /// range checks; a throw becomes the problem ``FenceProblem/Kind/reprojection`` for that
    /// fence. When set, a CSV header with both `x` and `y` columns is read as `id,x,y,radius`.
    /// Default nil.
    public var reproject: Reprojector? = nil
    /// Whether each fence keeps its source properties (``Fence/properties``), as commands
    /// that write fences back need them; false leaves them empty (the options are read from
    /// them either way), which is what querying and evaluating need. Default true.
    public var keepProperties = true
    /// How sources read through GDAL are read: the layer to take, the `--crs` given
    /// (docs/fences.md#other-vector-formats-gdal). Default: no layer named, no CRS given.
    public var vector = VectorSourceOptions()
    /// Where the fence attributes are (`--fields`, synonyms), the radius unit, a default radius
    /// and the CSV delimiter (docs/fences.md#field-mapping). Default: recognised names, metres,
    /// no default radius, a sniffed delimiter.
    public var fields = FenceFieldOptions()

    /// A loader with default options and no reprojection.
    public init() {}

    /// Reads and parses a file. A compiled fence file (docs/compiled-fences.md, recognised by
    /// its magic bytes whatever its name) gives its fences as compiled, with their
    /// properties and sources. A source GDAL reads (``vectorSource(path:)``: a `gdal:` prefix,
    /// a `/vsi` path, a directory, a Shapefile, GeoPackage, KML, FlatGeobuf... by extension or
    /// magic bytes) goes through ``loadVector(path:source:)``. Otherwise the format comes from
    /// the extension (`.csv`, `.tsv` → CSV; `.geojson`, `.json` → GeoJSON; a trailing `.gz`
    /// ignored), else from the first non-blank byte (`{` → GeoJSON, else CSV); content starting
    /// with the gzip magic bytes is decompressed first. `-` is standard input, read once per
    /// process (docs/fences.md#compressed-files-and-standard-input).
    /// - Throws: ``GeofenceError/input(_:)`` with kind ``InputError/Kind/notFound``,
    ///   ``InputError/Kind/notAFile``, ``InputError/Kind/cannotOpen(errno:)`` or
    ///   ``InputError/Kind/readFailed(errno:)`` when the file cannot be read, and as
    ///   ``load(bytes:name:format:)`` for its content.
    /// - Complexity: O(file size + coordinates).
    public func load(path: String) throws(GeofenceError) -> FenceFile {
        if path == "-" {
            // Standard input: GeoJSON or CSV, maybe gzip (FenceLoader+Input.swift).
            let bytes = try Self.textInput(path)
            return try load(bytes: bytes, name: "<stdin>", format: Self.format(path: "", bytes: bytes))
        }
        if CompiledFenceFile.isCompiled(path: path) {
            // A compiled fence file (detected by its magic bytes): the fences as compiled.
            return FenceFile(path: path, fences: try CompiledFenceFile.open(path: path, occupancy: false).fences(), problems: [])
        }
        // Formats our own readers do not claim go through GDAL (FenceLoader+Vector.swift).
        if let source = Self.vectorSource(path: path) { return try loadVector(path: path, source: source) }
        // Read once (a FIFO cannot be read twice); gzip is recognised by its magic bytes.
        let bytes = try Self.textInput(path)
        return try load(bytes: bytes, name: path, format: Self.format(path: Self.withoutGzipSuffix(path), bytes: bytes))
    }

    static func format(path: String, bytes: [UInt8]) -> Format {
        let lower = path.lowercased()
        if lower.hasSuffix(".csv") || lower.hasSuffix(".tsv") { return .csv }
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") { return .geojson }
        var k = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { k = 3 }
        while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x0A || bytes[k] == 0x0D || bytes[k] == 0x09 { k += 1 }
        return k < bytes.count && bytes[k] == UInt8(ascii: "{") ? .geojson : .csv
    }

    /// Parses the content of a fence file already in memory. `name` is used as the file in
    /// every location. Problems of single fences are collected in ``FenceFile/problems``.
    /// - Throws: ``GeofenceError/input(_:)`` with kind ``InputError/Kind/malformed`` for
    ///   whole-file errors: an empty (blank) file, malformed JSON, a top level that is not a
    ///   FeatureCollection or Feature, a FeatureCollection without `features`, a CSV syntax
    ///   error, a CSV header without a required column or with a column twice.
    /// - Complexity: O(bytes + coordinates).
    public func load(bytes: [UInt8], name: String, format: Format) throws(GeofenceError) -> FenceFile {
        let significant = bytes.contains { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }
        guard significant else {
            throw .malformed(SourceLocation(file: name), "empty file, expected \(format == .csv ? "a CSV header with id,lat,lon,radius" : "a GeoJSON FeatureCollection")")
        }
        // Clean files take the fast readers; anything else (and every problem) the general ones.
        switch format {
        case .geojson:
            if let file = fastGeoJSON(bytes, name: name) { return file }
            return try loadGeoJSON(bytes: bytes, name: name)
        case .csv:
            if let file = fastCSV(bytes, name: name) { return file }
            return try loadCSV(bytes: bytes, name: name)
        }
    }

    // MARK: GeoJSON

    /// The general GeoJSON reader: the whole document parsed into `JSONValue`s, every
    /// problem found and worded.
    package func loadGeoJSON(bytes: [UInt8], name: String) throws(GeofenceError) -> FenceFile {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch {
            throw .malformed(SourceLocation(file: name), "malformed JSON at \(error)")
        }
        guard case .object = root else {
            throw .malformed(SourceLocation(file: name), "expected a GeoJSON object at the top level, found \(root.typeDescription)")
        }
        let type = root["type"]?.stringValue
        var features: [JSONValue]
        switch type {
        case "FeatureCollection":
            guard let f = root["features"]?.arrayValue else {
                throw .malformed(SourceLocation(file: name), "FeatureCollection has no \"features\" array")
            }
            features = f
        case "Feature":
            features = [root]
        case let t?:
            throw .malformed(SourceLocation(file: name), "expected a GeoJSON FeatureCollection, found type \"\(t)\"")
        case nil:
            throw .malformed(SourceLocation(file: name), "expected a GeoJSON FeatureCollection, the top-level object has no \"type\"")
        }
        // The legacy `crs` member (GeoJSON 2008) names the CRS of the coordinates (FenceLoader+CRS.swift).
        var reader = self
        if let member = root["crs"], !member.isNull { try reader.applyCRSMember(member, name: name) }
        var fences: [Fence] = []
        fences.reserveCapacity(features.count)
        var problems: [FenceProblem] = []
        for (index, feature) in features.enumerated() {
            let loc = SourceLocation(file: name, feature: index)
            var soft: [FenceProblem] = []
            if let fence = reader.parseFeature(feature, at: loc, soft: &soft, problems: &problems) { fences.append(fence) }
            problems.append(contentsOf: soft)
        }
        // Ring closure and range problems were collected per feature; they are in `problems`.
        if reader.reproject == nil {
            Self.hintProjected(&problems, fences: fences) {
                // The first position of each feature's geometry.
                features.compactMap { f -> Coordinate? in
                    var v = f["geometry"]?["coordinates"]
                    while let a = v?.arrayValue, let first = a.first, first.arrayValue != nil { v = first }
                    guard let a = v?.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else { return nil }
                    return Coordinate(lon: x, lat: y)
                }
            }
        }
        return FenceFile(path: name, fences: fences, problems: problems)
    }

    /// Parses one Feature. Problems that `--repair` can fix (an unclosed ring) do not
    /// stop parsing: the fence is returned repaired and the problem goes to `soft`. A feature
    /// that cannot be a fence gives every problem found in it.
    private func parseFeature(_ feature: JSONValue, at loc: SourceLocation, soft: inout [FenceProblem], problems: inout [FenceProblem]) -> Fence? {
        guard case .object = feature else {
            problems.append(FenceProblem(.malformedGeometry, "feature is \(feature.typeDescription), expected an object", at: loc)); return nil
        }
        if let t = feature["type"]?.stringValue, t != "Feature" {
            problems.append(FenceProblem(.malformedGeometry, "expected type \"Feature\", found \"\(t)\"", at: loc)); return nil
        }
        let properties: [(String, JSONValue)]
        switch feature["properties"] {
        case nil, .null?: properties = []
        case .object(let o)?: properties = o
        case let other?:
            problems.append(FenceProblem(.malformedGeometry, "properties is \(other.typeDescription), expected an object or null", at: loc)); return nil
        }
        func text(_ v: JSONValue?) -> String? {
            switch v {
            case .string(let s)?: return s
            case .number(let n)?: return n
            default: return nil
            }
        }
        // An id mapped with --fields wins; else the Feature's `id`, else an id-like property.
        var id: String?
        if fields.mapping[.id] != nil { id = text(fields.property(.id, in: properties)?.value) }
        if id == nil { id = text(feature["id"]) }
        if id == nil { id = text(fields.property(.id, in: properties)?.value) }
        guard let id, !id.isEmpty else {
            let names = fields.mapping[.id].map { "properties.\($0)" } ?? FenceField.id.synonyms.map(\.name).joined(separator: ", ")
            problems.append(FenceProblem(.missingIdentifier, "feature has no identifier (a Feature \"id\" or an identifier property: \(names); string or number)", at: loc)); return nil
        }
        guard let geometry = feature["geometry"], !geometry.isNull else {
            problems.append(FenceProblem(.missingGeometry, "feature has no geometry", at: loc, fence: id)); return nil
        }
        var found: [FenceProblem] = []
        let shape = self.shape(geometry, properties: properties, soft: &soft, problems: &found)
        var options = defaults
        found += Self.readOptions(.object(fields.optionProperties(properties)), into: &options, at: loc, fence: id)
        guard let shape, found.isEmpty else {
            soft.removeAll()
            for var p in found { p.location = loc; p.fenceID = id; problems.append(p) }
            return nil
        }
        for k in soft.indices { soft[k].location = loc; soft[k].fenceID = id }
        return Fence(id: id, shape: shape, options: options, properties: keepProperties ? properties : [], source: loc)
    }

    /// The shape of a GeoJSON geometry, the radius of a Point from `properties`; nil with the
    /// problems appended to `problems` (locations set by the caller).
    func shape(_ geometry: JSONValue, properties: [(String, JSONValue)], soft: inout [FenceProblem], problems: inout [FenceProblem]) -> FenceShape? {
        guard let gtype = geometry["type"]?.stringValue else {
            problems.append(FenceProblem(.malformedGeometry, "geometry has no \"type\"", at: SourceLocation(file: "")))
            return nil
        }
        guard let coords = geometry["coordinates"] else {
            problems.append(FenceProblem(.malformedGeometry, "\(gtype) geometry has no \"coordinates\"", at: SourceLocation(file: "")))
            return nil
        }
        do {
            switch gtype {
            case "Point":
                var c = [try position(coords, what: "Point coordinates")]
                try reprojectChecked(&c)
                problems += rangeProblems(&c[0], soft: &soft)
                let r = radius(properties, problems: &problems)
                guard problems.isEmpty, let r else { return nil }
                return .circle(lat: c[0].lat, lon: c[0].lon, radius: r)
            case "Polygon":
                return .polygon([try polygon(coords, what: "Polygon", soft: &soft)])
            case "MultiPolygon":
                guard let parts = coords.arrayValue else {
                    throw FenceProblem(.malformedGeometry, "MultiPolygon coordinates must be an array of polygons", at: SourceLocation(file: ""))
                }
                guard !parts.isEmpty else {
                    throw FenceProblem(.malformedGeometry, "MultiPolygon has no polygons", at: SourceLocation(file: ""))
                }
                var polys: [[[Coordinate]]] = []
                for (k, p) in parts.enumerated() { polys.append(try polygon(p, what: "polygon \(k) of MultiPolygon", soft: &soft)) }
                return .polygon(polys)
            default:
                throw FenceProblem(.unsupportedGeometry, "\(gtype) geometry is not supported (use a Point with a radius property, a Polygon or a MultiPolygon)", at: SourceLocation(file: ""))
            }
        } catch let p as FenceProblem {
            problems.append(p)
        } catch {
            problems.append(FenceProblem(.reprojection, "reprojection failed: \(error)", at: SourceLocation(file: "")))
        }
        return nil
    }

    /// A Point's radius in metres from its properties (mapped or recognised name, unit applied),
    /// the default radius when it has none; nil with a problem appended.
    private func radius(_ properties: [(String, JSONValue)], problems: inout [FenceProblem]) -> Double? {
        let here = SourceLocation(file: "")
        guard let found = fields.property(.radius, in: properties), !found.value.isNull else {
            if let d = fields.defaultRadius { return d }
            let names = fields.mapping[.radius].map { "properties.\($0)" } ?? "properties.radius (or radius_m, radius_km, r...)"
            problems.append(FenceProblem(.missingRadius, "Point feature has no \(names); map one with --radius-field NAME or give --default-radius", at: here))
            return nil
        }
        let scale = fields.radiusScale(impliedBy: found.unit)
        let unit = fields.radiusUnit ?? found.unit ?? .m
        guard let v = found.value.doubleValue else {
            problems.append(FenceProblem(.invalidRadius, "\(found.key) must be a number of \(unit == .m ? "metres" : unit.rawValue), got \(found.value.typeDescription)", at: here))
            return nil
        }
        do { try checkRadius(v * scale, text: JSONWriter.string(found.value)) } catch {
            problems.append(error)
            return nil
        }
        return v * scale
    }
    func reprojectChecked(_ c: inout [Coordinate]) throws {
        guard let reproject else { return }
        do { try reproject(&c) } catch {
            throw FenceProblem(.reprojection, "reprojection to WGS84 failed: \(error)", at: SourceLocation(file: ""))
        }
    }

    func position(_ v: JSONValue, what: String) throws -> Coordinate {
        guard let a = v.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else {
            throw FenceProblem(.malformedGeometry, "\(what) must be a position [lon, lat], got \(JSONWriter.string(v).prefix(60))", at: SourceLocation(file: ""))
        }
        return Coordinate(lon: x, lat: y)
    }

    /// Coordinates within `rangeTolerance` degrees outside the valid range (floating-point
    /// noise such as Natural Earth's 180.00000000000006) are clamped and reported as a
    /// repairable problem; anything further out is an error.
    static let rangeTolerance = 1e-9

    private func checkRange(_ c: inout Coordinate, soft: inout [FenceProblem], of what: String? = nil) throws(FenceProblem) {
        if let p = rangeProblems(&c, soft: &soft, of: what).first { throw p }
    }

    /// The out-of-range problems of a position, latitude and longitude both checked; one only
    /// just out of range is clamped with a repairable problem in `soft`.
    func rangeProblems(_ c: inout Coordinate, soft: inout [FenceProblem], of what: String? = nil) -> [FenceProblem] {
        var hard: [FenceProblem] = []
        func check(_ v: inout Double, limit: Double, name: String) {
            let name = what.map { "\(name) of \($0)" } ?? name
            guard v.isFinite, abs(v) <= limit + Self.rangeTolerance else {
                hard.append(FenceProblem(.coordinateOutOfRange, "\(name) is \(JSONValue.format(v)), out of range [-\(Int(limit)), \(Int(limit))]", at: SourceLocation(file: "")))
                return
            }
            if abs(v) > limit {
                soft.append(FenceProblem(.coordinateOutOfRange, "\(name) is \(JSONValue.format(v)), out of range [-\(Int(limit)), \(Int(limit))] by \(abs(v) - limit)°; --repair clamps it to \(v > 0 ? "" : "-")\(Int(limit))",
                                         at: SourceLocation(file: ""), repairable: true))
                v = v > 0 ? limit : -limit
            }
        }
        check(&c.lat, limit: 90, name: "latitude")
        check(&c.lon, limit: 180, name: "longitude")
        return hard
    }

    func checkRadius(_ r: Double, text: String) throws(FenceProblem) {
        guard r.isFinite else {
            throw FenceProblem(.invalidRadius, "radius must be a finite number of metres, got \(text)", at: SourceLocation(file: ""))
        }
        guard r > 0 else {
            throw FenceProblem(.invalidRadius, "radius must be greater than 0 metres, got \(text)", at: SourceLocation(file: ""))
        }
    }

    func polygon(_ v: JSONValue, what: String, soft: inout [FenceProblem]) throws -> [[Coordinate]] {
        guard let ringsJSON = v.arrayValue else {
            throw FenceProblem(.malformedGeometry, "\(what) coordinates must be an array of rings", at: SourceLocation(file: ""))
        }
        guard !ringsJSON.isEmpty else {
            throw FenceProblem(.malformedGeometry, "\(what) has no rings", at: SourceLocation(file: ""))
        }
        var rings: [[Coordinate]] = []
        for (k, r) in ringsJSON.enumerated() {
            let ringName = k == 0 ? "exterior ring of \(what)" : "hole \(k) of \(what)"
            guard let pts = r.arrayValue else {
                throw FenceProblem(.malformedGeometry, "\(ringName) must be an array of positions", at: SourceLocation(file: ""))
            }
            var ring: [Coordinate] = []
            ring.reserveCapacity(pts.count)
            for (j, p) in pts.enumerated() { ring.append(try position(p, what: "point \(j) of \(ringName)")) }
            try reprojectChecked(&ring)
            for k in ring.indices { try checkRange(&ring[k], soft: &soft, of: "point \(k) of \(ringName)") }
            if let f = ring.first, let l = ring.last, f != l, ring.count >= 3 {
                // Repairable: close the ring and report it (`--repair` accepts the closed ring).
                soft.append(FenceProblem(.unclosedRing, "\(ringName) is not closed: first point [\(JSONValue.format(f.lon)), \(JSONValue.format(f.lat))] differs from last point [\(JSONValue.format(l.lon)), \(JSONValue.format(l.lat))]",
                                         at: SourceLocation(file: ""), repairable: true))
                ring.append(f)
            }
            guard ring.count >= 4 else {
                throw FenceProblem(.tooFewPoints, "\(ringName) has \(ring.count) points; a closed ring needs at least 4", at: SourceLocation(file: ""))
            }
            for j in 1..<ring.count where abs(ring[j].lon - ring[j - 1].lon) > 180 {
                throw FenceProblem(.crossesAntimeridian, "\(ringName) crosses the antimeridian (edge \(j - 1) goes from longitude \(JSONValue.format(ring[j - 1].lon)) to \(JSONValue.format(ring[j].lon))); split it at ±180° as RFC 7946 §3.1.9 requires",
                                   at: SourceLocation(file: ""))
            }
            rings.append(ring)
        }
        return rings
    }

    /// Reads option properties (canonical names); returns a problem for each one of the wrong
    /// type. A null, and an empty or blank string (an empty CSV cell), leaves the default.
    static func readOptions(_ props: JSONValue, into o: inout FenceOptions, at loc: SourceLocation, fence: String) -> [FenceProblem] {
        var problems: [FenceProblem] = []
        func value(_ key: String) -> JSONValue? {
            guard let v = props[key], !v.isNull else { return nil }
            if let s = v.stringValue, FenceLoader.trimmed(s).isEmpty, key != "note" { return nil }
            return v
        }
        for (key, path) in [("notifyOnEntry", \FenceOptions.notifyOnEntry), ("notifyOnExit", \.notifyOnExit), ("repeats", \.repeats)] {
            guard let v = value(key) else { continue }
            if let b = v.boolValue ?? v.stringValue.flatMap(parseBool) {
                o[keyPath: path] = b
            } else {
                problems.append(FenceProblem(.invalidOption, "\(key) must be true or false, got \(JSONWriter.string(v))", at: loc, fence: fence))
            }
        }
        if let v = value("dwell") {
            let d = v.doubleValue ?? v.stringValue.flatMap { Double(FenceLoader.trimmed($0)) }
            if let d, d.isFinite, d >= 0 {
                o.dwell = d
            } else {
                problems.append(FenceProblem(.invalidOption, "dwell must be a number of seconds ≥ 0, got \(JSONWriter.string(v))", at: loc, fence: fence))
            }
        }
        if let v = value("note") {
            if let s = v.stringValue { o.note = s } else {
                problems.append(FenceProblem(.invalidOption, "note must be a string, got \(v.typeDescription)", at: loc, fence: fence))
            }
        }
        return problems
    }

    static func parseBool(_ s: String) -> Bool? {
        switch FenceLoader.trimmed(s).lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: return nil
        }
    }

    // MARK: CSV

    /// A decimal number as CSV fences write them (`12`, `-0.5`, `1e3`, `+7`); `inf` and `nan`
    /// come back non-finite for the range checks to name. Swift's hexadecimal forms (`0x10`,
    /// `0x1p4`) are not decimals: nil.
    static func decimal(_ text: String) -> Double? {
        if text.utf8.contains(where: { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") || $0 == UInt8(ascii: "p") || $0 == UInt8(ascii: "P") }) {
            return nil
        }
        return Double(text)
    }

    /// Whether `text` is a JSON number literal (RFC 8259), so it can be written back as it is.
    static func isJSONNumber(_ text: Substring) -> Bool {
        var u = Array(text.utf8)[...]
        func digits() -> Int { let n = u.prefix { $0 >= 0x30 && $0 <= 0x39 }.count; u = u.dropFirst(n); return n }
        if u.first == UInt8(ascii: "-") { u = u.dropFirst() }
        guard let f = u.first else { return false }
        if f == UInt8(ascii: "0") { u = u.dropFirst() } else if digits() == 0 { return false }
        if u.first == UInt8(ascii: ".") { u = u.dropFirst(); if digits() == 0 { return false } }
        if u.first == UInt8(ascii: "e") || u.first == UInt8(ascii: "E") {
            u = u.dropFirst()
            if u.first == UInt8(ascii: "+") || u.first == UInt8(ascii: "-") { u = u.dropFirst() }
            if digits() == 0 { return false }
        }
        return u.isEmpty
    }

    /// `s` without leading and trailing white space. Fields are usually
    /// clean: then `s` itself, without going through Foundation (which
    /// bridges every string to `NSString`: most of a large CSV's load time).
    static func trimmed(_ s: String) -> String {
        guard let first = s.utf8.first, let last = s.utf8.last else { return s }
        @inline(__always) func plain(_ b: UInt8) -> Bool { b > 0x20 && b < 0x80 }
        if plain(first) && plain(last) { return s }
        return s.trimmingCharacters(in: .whitespaces)
    }
}

extension FenceProblem: Error {}
