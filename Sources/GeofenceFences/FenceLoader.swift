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

    /// A loader with default options and no reprojection.
    public init() {}

    /// Reads and parses a file. A compiled fence file (docs/compiled-fences.md, recognised by
    /// its magic bytes whatever its name) gives its fences as compiled, with their
    /// properties and sources. A source GDAL reads (``vectorSource(path:)``: a `gdal:` prefix,
    /// a `/vsi` path, a directory, a Shapefile, GeoPackage, KML, FlatGeobuf... by extension or
    /// magic bytes) goes through ``loadVector(path:source:)``. Otherwise the format comes from
    /// the extension (`.csv`, `.tsv` → CSV; `.geojson`, `.json` → GeoJSON), else from the first
    /// non-blank byte (`{` → GeoJSON, else CSV).
    /// - Throws: ``GeofenceError/input(_:)`` with kind ``InputError/Kind/notFound``,
    ///   ``InputError/Kind/notAFile``, ``InputError/Kind/cannotOpen(errno:)`` or
    ///   ``InputError/Kind/readFailed(errno:)`` when the file cannot be read, and as
    ///   ``load(bytes:name:format:)`` for its content.
    /// - Complexity: O(file size + coordinates).
    public func load(path: String) throws(GeofenceError) -> FenceFile {
        if CompiledFenceFile.isCompiled(path: path) {
            // A compiled fence file (detected by its magic bytes): the fences as compiled.
            return FenceFile(path: path, fences: try CompiledFenceFile.open(path: path).fences(), problems: [])
        }
        // Formats our own readers do not claim go through GDAL (FenceLoader+Vector.swift).
        if let source = Self.vectorSource(path: path) { return try loadVector(path: path, source: source) }
        let bytes = try readFile(path, what: "fences file")
        return try load(bytes: bytes, name: path, format: Self.format(path: path, bytes: bytes))
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
        var fences: [Fence] = []
        fences.reserveCapacity(features.count)
        var problems: [FenceProblem] = []
        for (index, feature) in features.enumerated() {
            let loc = SourceLocation(file: name, feature: index)
            var soft: [FenceProblem] = []
            switch parseFeature(feature, at: loc, soft: &soft) {
            case .success(let fence): fences.append(fence)
            case .failure(let p): problems.append(p)
            }
            problems.append(contentsOf: soft)
        }
        // Ring closure and range problems were collected per feature; they are in `problems`.
        return FenceFile(path: name, fences: fences, problems: problems)
    }

    /// Parses one Feature. Problems that `--repair` can fix (an unclosed ring) do not
    /// stop parsing: the fence is returned repaired and the problem goes to `soft`.
    private func parseFeature(_ feature: JSONValue, at loc: SourceLocation, soft: inout [FenceProblem]) -> Result<Fence, FenceProblem> {
        guard case .object = feature else {
            return .failure(FenceProblem(.malformedGeometry, "feature is \(feature.typeDescription), expected an object", at: loc))
        }
        if let t = feature["type"]?.stringValue, t != "Feature" {
            return .failure(FenceProblem(.malformedGeometry, "expected type \"Feature\", found \"\(t)\"", at: loc))
        }
        let properties: [(String, JSONValue)]
        switch feature["properties"] {
        case nil, .null?: properties = []
        case .object(let o)?: properties = o
        case let other?:
            return .failure(FenceProblem(.malformedGeometry, "properties is \(other.typeDescription), expected an object or null", at: loc))
        }
        let props = JSONValue.object(properties)
        var id: String?
        switch feature["id"] {
        case .string(let s)?: id = s
        case .number(let n)?: id = n
        default:
            switch props["id"] {
            case .string(let s)?: id = s
            case .number(let n)?: id = n
            default: id = nil
            }
        }
        guard let id, !id.isEmpty else {
            return .failure(FenceProblem(.missingIdentifier, "feature has no identifier (a Feature \"id\" or properties.id, string or number)", at: loc))
        }
        guard let geometry = feature["geometry"], !geometry.isNull else {
            return .failure(FenceProblem(.missingGeometry, "feature has no geometry", at: loc, fence: id))
        }
        guard let gtype = geometry["type"]?.stringValue else {
            return .failure(FenceProblem(.malformedGeometry, "geometry has no \"type\"", at: loc, fence: id))
        }
        guard let coords = geometry["coordinates"] else {
            return .failure(FenceProblem(.malformedGeometry, "\(gtype) geometry has no \"coordinates\"", at: loc, fence: id))
        }
        let shape: FenceShape
        do {
            switch gtype {
            case "Point":
                var c = [try position(coords, what: "Point coordinates")]
                try reprojectChecked(&c)
                try checkRange(&c[0], soft: &soft)
                guard let r = props["radius"] else {
                    throw FenceProblem(.missingRadius, "Point feature has no properties.radius (metres)", at: loc)
                }
                guard let rv = r.doubleValue else {
                    throw FenceProblem(.invalidRadius, "radius must be a number of metres, got \(r.typeDescription)", at: loc)
                }
                try checkRadius(rv, text: JSONWriter.string(r))
                shape = .circle(lat: c[0].lat, lon: c[0].lon, radius: rv)
            case "Polygon":
                shape = .polygon([try polygon(coords, what: "Polygon", soft: &soft)])
            case "MultiPolygon":
                guard let parts = coords.arrayValue else {
                    throw FenceProblem(.malformedGeometry, "MultiPolygon coordinates must be an array of polygons", at: loc)
                }
                guard !parts.isEmpty else {
                    throw FenceProblem(.malformedGeometry, "MultiPolygon has no polygons", at: loc)
                }
                var polys: [[[Coordinate]]] = []
                for (k, p) in parts.enumerated() { polys.append(try polygon(p, what: "polygon \(k) of MultiPolygon", soft: &soft)) }
                shape = .polygon(polys)
            default:
                throw FenceProblem(.unsupportedGeometry, "\(gtype) geometry is not supported (use a Point with properties.radius, a Polygon or a MultiPolygon)", at: loc)
            }
        } catch let p as FenceProblem {
            var p = p
            p.location = loc
            p.fenceID = id
            soft.removeAll()
            return .failure(p)
        } catch {
            soft.removeAll()
            return .failure(FenceProblem(.reprojection, "reprojection failed: \(error)", at: loc, fence: id))
        }
        for k in soft.indices { soft[k].location = loc; soft[k].fenceID = id }
        var options = defaults
        if let problem = Self.readOptions(props, into: &options, at: loc, fence: id) { return .failure(problem) }
        return .success(Fence(id: id, shape: shape, options: options, properties: keepProperties ? properties : [], source: loc))
    }

    private func reprojectChecked(_ c: inout [Coordinate]) throws {
        guard let reproject else { return }
        do { try reproject(&c) } catch {
            throw FenceProblem(.reprojection, "reprojection to WGS84 failed: \(error)", at: SourceLocation(file: ""))
        }
    }

    private func position(_ v: JSONValue, what: String) throws -> Coordinate {
        guard let a = v.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else {
            throw FenceProblem(.malformedGeometry, "\(what) must be a position [lon, lat], got \(JSONWriter.string(v).prefix(60))", at: SourceLocation(file: ""))
        }
        return Coordinate(lon: x, lat: y)
    }

    /// Coordinates within `rangeTolerance` degrees outside the valid range (floating-point
    /// noise such as Natural Earth's 180.00000000000006) are clamped and reported as a
    /// repairable problem; anything further out is an error.
    static let rangeTolerance = 1e-9

    private func checkRange(_ c: inout Coordinate, soft: inout [FenceProblem], of what: String? = nil) throws {
        func check(_ v: inout Double, limit: Double, name: String) throws {
            let name = what.map { "\(name) of \($0)" } ?? name
            guard v.isFinite, abs(v) <= limit + Self.rangeTolerance else {
                throw FenceProblem(.coordinateOutOfRange, "\(name) is \(JSONValue.format(v)), out of range [-\(Int(limit)), \(Int(limit))]", at: SourceLocation(file: ""))
            }
            if abs(v) > limit {
                soft.append(FenceProblem(.coordinateOutOfRange, "\(name) is \(JSONValue.format(v)), out of range [-\(Int(limit)), \(Int(limit))] by \(abs(v) - limit)°; --repair clamps it to \(v > 0 ? "" : "-")\(Int(limit))",
                                         at: SourceLocation(file: ""), repairable: true))
                v = v > 0 ? limit : -limit
            }
        }
        try check(&c.lat, limit: 90, name: "latitude")
        try check(&c.lon, limit: 180, name: "longitude")
    }

    private func checkRadius(_ r: Double, text: String) throws {
        guard r.isFinite else {
            throw FenceProblem(.invalidRadius, "radius must be a finite number of metres, got \(text)", at: SourceLocation(file: ""))
        }
        guard r > 0 else {
            throw FenceProblem(.invalidRadius, "radius must be greater than 0 metres, got \(text)", at: SourceLocation(file: ""))
        }
    }

    private func polygon(_ v: JSONValue, what: String, soft: inout [FenceProblem]) throws -> [[Coordinate]] {
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

    /// Reads option properties; returns a problem when one has the wrong type.
    static func readOptions(_ props: JSONValue, into o: inout FenceOptions, at loc: SourceLocation, fence: String) -> FenceProblem? {
        func bool(_ key: String) -> Result<Bool?, FenceProblem> {
            guard let v = props[key], !v.isNull else { return .success(nil) }
            if let b = v.boolValue { return .success(b) }
            if let s = v.stringValue, let b = parseBool(s) { return .success(b) }
            return .failure(FenceProblem(.invalidOption, "\(key) must be true or false, got \(JSONWriter.string(v))", at: loc, fence: fence))
        }
        for (key, path) in [("notifyOnEntry", \FenceOptions.notifyOnEntry), ("notifyOnExit", \.notifyOnExit), ("repeats", \.repeats)] {
            switch bool(key) {
            case .success(let b?): o[keyPath: path] = b
            case .success(nil): break
            case .failure(let p): return p
            }
        }
        if let v = props["dwell"], !v.isNull {
            let d = v.doubleValue ?? v.stringValue.flatMap { Double(FenceLoader.trimmed($0)) }
            guard let d, d.isFinite, d >= 0 else {
                return FenceProblem(.invalidOption, "dwell must be a number of seconds ≥ 0, got \(JSONWriter.string(v))", at: loc, fence: fence)
            }
            o.dwell = d
        }
        if let v = props["note"], !v.isNull {
            guard let s = v.stringValue else {
                return FenceProblem(.invalidOption, "note must be a string, got \(v.typeDescription)", at: loc, fence: fence)
            }
            o.note = s
        }
        return nil
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

    /// The general CSV reader: records and fields as strings, every problem found and worded.
    package func loadCSV(bytes: [UInt8], name: String) throws(GeofenceError) -> FenceFile {
        let records: [CSVReader.Record]
        do { records = try CSVReader().records(bytes) } catch {
            throw .malformed(SourceLocation(file: name, line: error.line), "\(error.message)")
        }
        guard let header = records.first else {
            throw .malformed(SourceLocation(file: name), "empty file, expected a CSV header with id,lat,lon,radius")
        }
        let names = header.fields.map(FenceLoader.trimmed)
        func column(_ n: String) -> Int? { names.firstIndex(of: n) }
        let projected = reproject != nil && column("x") != nil && column("y") != nil
        let required = projected ? ["id", "x", "y", "radius"] : ["id", "lat", "lon", "radius"]
        for r in required where column(r) == nil {
            throw .malformed(SourceLocation(file: name, line: header.line), "CSV header is missing column \"\(r)\" (found: \(names.joined(separator: ", ")); required: \(required.joined(separator: ", ")))")
        }
        var seen = Set<String>()
        for n in names where !seen.insert(n).inserted {
            throw .malformed(SourceLocation(file: name, line: header.line), "CSV header has column \"\(n)\" twice")
        }
        let iid = column("id")!, irad = column("radius")!
        let ilat = projected ? column("y")! : column("lat")!
        let ilon = projected ? column("x")! : column("lon")!
        let core: Set<Int> = [iid, ilat, ilon, irad]
        var fences: [Fence] = []
        fences.reserveCapacity(records.count)
        var problems: [FenceProblem] = []
        for rec in records.dropFirst() {
            let loc = SourceLocation(file: name, line: rec.line)
            let f = rec.fields
            guard f.count == names.count else {
                problems.append(FenceProblem(.malformedGeometry, "row has \(f.count) fields, the header has \(names.count)", at: loc,
                                             fence: f.first.map(FenceLoader.trimmed)))
                continue
            }
            let id = FenceLoader.trimmed(f[iid])
            guard !id.isEmpty else {
                problems.append(FenceProblem(.missingIdentifier, "empty id", at: loc))
                continue
            }
            do {
                let latText = FenceLoader.trimmed(f[ilat])
                let lonText = FenceLoader.trimmed(f[ilon])
                let radText = FenceLoader.trimmed(f[irad])
                guard let y = FenceLoader.decimal(latText) else {
                    throw FenceProblem(.malformedGeometry, "\(projected ? "y" : "latitude") \"\(latText)\" is not a number", at: loc)
                }
                guard let x = FenceLoader.decimal(lonText) else {
                    throw FenceProblem(.malformedGeometry, "\(projected ? "x" : "longitude") \"\(lonText)\" is not a number", at: loc)
                }
                guard !radText.isEmpty else { throw FenceProblem(.missingRadius, "radius is empty", at: loc) }
                guard let r = FenceLoader.decimal(radText) else {
                    throw FenceProblem(.invalidRadius, "radius \"\(radText)\" is not a number", at: loc)
                }
                var c = [Coordinate(lon: x, lat: y)]
                try reprojectChecked(&c)
                var soft: [FenceProblem] = []
                try checkRange(&c[0], soft: &soft)
                try checkRadius(r, text: radText)
                for var p in soft { p.location = loc; p.fenceID = id; problems.append(p) }
                var props: [(String, JSONValue)] = []
                for (k, n) in names.enumerated() where !core.contains(k) {
                    props.append((n, .string(f[k])))
                }
                var options = defaults
                if let p = Self.readOptions(.object(props), into: &options, at: loc, fence: id) { throw p }
                // The source's spelling when it is a JSON number (`100.50`), else the shortest text.
                let literal = radText.hasPrefix("+") ? radText.dropFirst() : Substring(radText)
                props.append(("radius", .number(FenceLoader.isJSONNumber(literal) ? String(literal) : JSONValue.format(r))))
                fences.append(Fence(id: id, shape: .circle(lat: c[0].lat, lon: c[0].lon, radius: r), options: options,
                                    properties: keepProperties ? props : [], source: loc))
            } catch let p as FenceProblem {
                var p = p
                p.location = loc
                p.fenceID = id
                problems.append(p)
            } catch {
                problems.append(FenceProblem(.reprojection, "reprojection failed: \(error)", at: loc, fence: id))
            }
        }
        return FenceFile(path: name, fences: fences, problems: problems)
    }
}

extension FenceProblem: Error {}
