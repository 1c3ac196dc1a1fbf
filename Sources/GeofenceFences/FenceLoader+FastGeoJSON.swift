import GeofenceBase
import GeofenceIndex

extension FenceLoader {
    /// The fences of a clean GeoJSON FeatureCollection, read in one pass over the bytes:
    /// no `JSONValue` tree, members the fences do not need are checked and skipped, and
    /// properties are parsed only when ``keepProperties`` is set. nil when the document holds
    /// anything this path does not handle the way `loadGeoJSON` does (malformed JSON, a
    /// single Feature, a repeated member that matters, any problem in any feature,
    /// reprojection): the caller then reads it with `loadGeoJSON`, which finds and words
    /// every problem. So both paths give the same fences, and problems come from one.
    /// - Complexity: O(bytes).
    package func fastGeoJSON(_ bytes: [UInt8], name: String) -> FenceFile? {
        var fences: [Fence] = []
        guard fastGeoJSON(bytes, name: name, { fences.append($0); return true }) else { return nil }
        return FenceFile(path: name, fences: fences, problems: [])
    }

    /// The fences of a clean FeatureCollection as ``fastGeoJSON(_:name:)`` reads them,
    /// handed to `each` in feature order instead of gathered (`each` returns false to stop).
    /// false when the document is not one this path reads, or `each` stopped: the fences
    /// handed over so far are then not the file's (the caller reads it with `loadGeoJSON`).
    package func fastGeoJSON(_ bytes: [UInt8], name: String, _ each: (Fence) -> Bool) -> Bool {
        // Mapped names and units are the general reader's (so are documents with a `crs` member).
        guard reproject == nil, fields.mapping.isEmpty, fields.radiusUnit == nil else { return false }
        return bytes.withUnsafeBufferPointer { buf -> Bool in
            guard buf.baseAddress != nil, FastText.validUTF8(buf) else { return false }
            var s = FastJSON(buf)
            return s.collection({ index, s in
                guard let f = s.feature(index: index, loader: self, name: name) else { return false }
                return each(f)
            })
        }
    }
}

/// A one-pass reader of GeoJSON fence documents over UTF-8 bytes (see
/// `FenceLoader.fastGeoJSON`). Every method returns nil or false for input it leaves to
/// the general reader; it checks all the syntax `JSONParser` checks (including the nesting
/// limit), so it never accepts what the general reader would refuse.
struct FastJSON {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0
    var depth = 0

    init(_ b: UnsafeBufferPointer<UInt8>) {
        p = b.baseAddress!; n = b.count
        if n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { i = 3 }
    }

    @inline(__always)
    mutating func ws() {
        while i < n, p[i] == 0x20 || p[i] == 0x0A || p[i] == 0x0D || p[i] == 0x09 { i += 1 }
    }

    @inline(__always)
    mutating func eat(_ b: UInt8) -> Bool {
        ws()
        guard i < n, p[i] == b else { return false }
        i += 1
        return true
    }

    /// A string at `i` (after white space): its raw bytes between the quotes, and whether
    /// they hold an escape.
    mutating func rawString() -> (start: Int, end: Int, escaped: Bool)? {
        ws()
        guard i < n, p[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        let start = i
        var escaped = false
        while i < n {
            let b = p[i]
            if b == UInt8(ascii: "\"") { i += 1; return (start, i - 1, escaped) }
            if b < 0x20 { return nil }
            if b == UInt8(ascii: "\\") { escaped = true; i += 2; continue }
            i += 1
        }
        return nil
    }

    /// A string decoded (escapes through `JSONParser`, which also checks them).
    mutating func string() -> String? {
        guard let r = rawString() else { return nil }
        if !r.escaped { return String(decoding: UnsafeBufferPointer(start: p + r.start, count: r.end - r.start), as: UTF8.self) }
        guard case .string(let s)? = try? JSONParser.parse(Array(UnsafeBufferPointer(start: p + r.start - 1, count: r.end - r.start + 2))) else { return nil }
        return s
    }

    /// A member name: its bytes when plain, else decoded.
    mutating func key() -> [UInt8]? {
        guard let r = rawString() else { return nil }
        if !r.escaped { return Array(UnsafeBufferPointer(start: p + r.start, count: r.end - r.start)) }
        i = r.start - 1
        return string().map { Array($0.utf8) }
    }

    /// A JSON number literal (RFC 8259 grammar): its byte range.
    mutating func number() -> (start: Int, end: Int)? {
        ws()
        let start = i
        if i < n && p[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n, p[i] &- 0x30 < 10 else { return nil }
        if p[i] == UInt8(ascii: "0") { i += 1; if i < n && p[i] &- 0x30 < 10 { return nil } } else { while i < n && p[i] &- 0x30 < 10 { i += 1 } }
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, p[i] &- 0x30 < 10 else { return nil }
            while i < n && p[i] &- 0x30 < 10 { i += 1 }
        }
        if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) { i += 1 }
            guard i < n, p[i] &- 0x30 < 10 else { return nil }
            while i < n && p[i] &- 0x30 < 10 { i += 1 }
        }
        return (start, i)
    }

    /// A number's value (JSON literals are plain decimals: the same `Double` as `Double(text)`).
    mutating func double() -> Double? {
        guard let r = number() else { return nil }
        return DecimalParser.parse(p + r.start, r.end - r.start)
    }

    /// Skips one value of any type, checking its syntax.
    mutating func skip() -> Bool {
        ws()
        guard i < n else { return false }
        switch p[i] {
        case UInt8(ascii: "{"):
            return members { s, _ in s.skip() }
        case UInt8(ascii: "["):
            return elements { s, _ in s.skip() }
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number() != nil
        }
    }

    mutating func literal(_ w: StaticString) -> Bool {
        let c = w.utf8CodeUnitCount
        guard i + c <= n else { return false }
        for k in 0..<c where p[i + k] != w.utf8Start[k] { return false }
        i += c
        return true
    }

    /// An object: calls `body` on each member with the reader at its value, which `body` must consume.
    mutating func members(_ body: (inout FastJSON, [UInt8]) -> Bool) -> Bool {
        guard eat(UInt8(ascii: "{")) else { return false }
        depth += 1
        guard depth <= 512 else { return false }
        defer { depth -= 1 }
        if eat(UInt8(ascii: "}")) { return true }
        while true {
            guard let k = key(), eat(UInt8(ascii: ":")), body(&self, k) else { return false }
            if eat(UInt8(ascii: ",")) { continue }
            return eat(UInt8(ascii: "}"))
        }
    }

    /// An array: calls `body` on each element (with its index) with the reader at it.
    mutating func elements(_ body: (inout FastJSON, Int) -> Bool) -> Bool {
        guard eat(UInt8(ascii: "[")) else { return false }
        depth += 1
        guard depth <= 512 else { return false }
        defer { depth -= 1 }
        if eat(UInt8(ascii: "]")) { return true }
        var k = 0
        while true {
            guard body(&self, k) else { return false }
            k += 1
            if eat(UInt8(ascii: ",")) { continue }
            return eat(UInt8(ascii: "]"))
        }
    }

    /// The top level: a FeatureCollection whose features go to `feature` one by one.
    mutating func collection(_ feature: (Int, inout FastJSON) -> Bool) -> Bool {
        var type: String?, sawFeatures = false
        guard members({ s, k in
            switch k {
            case Keys.type:
                guard type == nil, let t = s.string() else { return false }
                type = t
                return true
            case Keys.features:
                guard !sawFeatures else { return false }
                sawFeatures = true
                return s.elements { s, index in feature(index, &s) }
            case Keys.crs:
                return false
            default:
                return s.skip()
            }
        }) else { return false }
        ws()
        return i == n && sawFeatures && type == "FeatureCollection"
    }

    // MARK: Features

    /// Member names the reader looks for.
    enum Keys {
        static let type = Array("type".utf8), id = Array("id".utf8), properties = Array("properties".utf8)
        static let geometry = Array("geometry".utf8), coordinates = Array("coordinates".utf8)
        static let radius = Array("radius".utf8), features = Array("features".utf8), crs = Array("crs".utf8)
        /// Option names in lower case: a property spelled so in another case is an option the
        /// general reader reads (case-insensitive names).
        static let lowerOptions = Set(FenceOptions.propertyNames.map { $0.lowercased() })
    }

    /// One Feature as `FenceLoader.parseFeature` reads it, when it has no problem.
    mutating func feature(index: Int, loader: FenceLoader, name: String) -> Fence? {
        var seen: UInt8 = 0
        var featureID: String?, propsID: String?, radius: Double?, propsRange: Range<Int>? = nil
        var optionValues: [(String, Range<Int>)] = []
        var gtype: String?, coordsAt: Int?
        var isNullProperties = false
        /// Whether member `bit` is met for the first time (a repeated one goes to the general reader).
        @inline(__always) func first(_ bit: UInt8) -> Bool { defer { seen |= bit }; return seen & bit == 0 }
        func idValue(_ s: inout FastJSON) -> String?? {
            s.ws()
            guard s.i < s.n else { return nil }
            if s.p[s.i] == UInt8(ascii: "\"") { return s.string().map { .some($0) } }
            let start = s.i
            if s.p[s.i] == UInt8(ascii: "-") || s.p[s.i] &- 0x30 < 10 {
                guard let r = s.number() else { return nil }
                return .some(String(decoding: UnsafeBufferPointer(start: s.p + r.start, count: r.end - start), as: UTF8.self))
            }
            return s.skip() ? .some(nil) : nil
        }
        let ok = members { s, k in
            switch k {
            case Keys.type:
                guard first(1), let t = s.string(), t == "Feature" else { return false }
                return true
            case Keys.id:
                guard first(2), let v = idValue(&s) else { return false }
                featureID = v
                return true
            case Keys.properties:
                guard first(4) else { return false }
                s.ws()
                if s.literal("null") { isNullProperties = true; return true }
                let start = s.i
                var keys: Set<[UInt8]> = []
                guard s.members({ s, pk in
                    guard keys.insert(pk).inserted else { return false }
                    switch pk {
                    case Keys.radius:
                        guard let r = s.double() else { return false }
                        radius = r
                        return true
                    case Keys.id:
                        guard let v = idValue(&s) else { return false }
                        propsID = v
                        return true
                    default:
                        let key = String(decoding: pk, as: UTF8.self)
                        guard FenceOptions.propertyNames.contains(key) else {
                            return Keys.lowerOptions.contains(key.lowercased()) ? false : s.skip()
                        }
                        s.ws()
                        let vs = s.i
                        guard s.skip() else { return false }
                        optionValues.append((key, vs..<s.i))
                        return true
                    }
                }) else { return false }
                propsRange = start..<s.i
                return true
            case Keys.geometry:
                guard first(8) else { return false }
                return s.members { s, gk in
                    switch gk {
                    case Keys.type:
                        guard first(16) else { return false }
                        gtype = s.string()
                        return gtype != nil
                    case Keys.coordinates:
                        guard first(32) else { return false }
                        s.ws()
                        coordsAt = s.i
                        return s.skip()
                    default:
                        return s.skip()
                    }
                }
            default:
                return s.skip()
            }
        }
        guard ok, let id = featureID ?? propsID, !id.isEmpty, let gtype, let coordsAt else { return nil }
        _ = isNullProperties
        // The geometry, read again from its coordinates now that its type is known.
        var c = self
        c.i = coordsAt
        let shape: FenceShape
        switch gtype {
        case "Point":
            guard let radius, radius.isFinite, radius > 0, let at = c.position(), abs(at.lat) <= 90, abs(at.lon) <= 180 else { return nil }
            shape = .circle(lat: at.lat, lon: at.lon, radius: radius)
        case "Polygon":
            guard let rings = c.polygon() else { return nil }
            shape = .polygon([rings])
        case "MultiPolygon":
            var parts: [[[Coordinate]]] = []
            guard c.elements({ s, _ in
                guard let rings = s.polygon() else { return false }
                parts.append(rings)
                return true
            }), !parts.isEmpty else { return nil }
            shape = .polygon(parts)
        default:
            return nil
        }
        let loc = SourceLocation(file: name, feature: index)
        var options = loader.defaults
        if !optionValues.isEmpty {
            var pairs: [(String, JSONValue)] = []
            for (k, r) in optionValues {
                guard let v = try? JSONParser.parse(Array(UnsafeBufferPointer(start: p + r.lowerBound, count: r.count))) else { return nil }
                pairs.append((k, v))
            }
            if !FenceLoader.readOptions(.object(pairs), into: &options, at: loc, fence: id).isEmpty { return nil }
        }
        var properties: [(String, JSONValue)] = []
        if loader.keepProperties, let r = propsRange {
            guard case .object(let o)? = try? JSONParser.parse(Array(UnsafeBufferPointer(start: p + r.lowerBound, count: r.count))) else { return nil }
            properties = o
        }
        return Fence(id: id, shape: shape, options: options, properties: properties, source: loc)
    }

    /// A position `[lon, lat, ...]` (extra members checked and skipped).
    mutating func position() -> Coordinate? {
        var lon = 0.0, lat = 0.0
        var count = 0
        guard elements({ s, k in
            if k >= 2 { return s.skip() }
            guard let v = s.double() else { return false }
            if k == 0 { lon = v } else { lat = v }
            count += 1
            return true
        }), count == 2 else { return nil }
        return Coordinate(lon: lon, lat: lat)
    }

    /// A polygon's rings when every ring is closed, has 4 or more positions in range and no
    /// edge spanning more than 180° of longitude.
    mutating func polygon() -> [[Coordinate]]? {
        var rings: [[Coordinate]] = []
        guard elements({ s, _ in
            var ring: [Coordinate] = []
            guard s.elements({ s, _ in
                guard let c = s.position(), abs(c.lat) <= 90, abs(c.lon) <= 180 else { return false }
                if let last = ring.last, abs(c.lon - last.lon) > 180 { return false }
                ring.append(c)
                return true
            }), ring.count >= 4, ring.first == ring.last else { return false }
            rings.append(ring)
            return true
        }), !rings.isEmpty else { return nil }
        return rings
    }
}
