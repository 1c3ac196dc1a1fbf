import GeofenceBase
import Glibc

/// NDJSON lines to fixes (docs/logs.md): one flat JSON object per line, keys named as the CSV
/// columns (``LogColumns``).
///
/// A small scanner, not a full JSON parser: it finds the five keys of interest in the top-level
/// object and skips every other value (nested objects and arrays included) without building it.
/// - `device`: a string, or a number (its text becomes the id: `366880470`).
/// - `time`: an ISO 8601 string, or Unix seconds as a number (or a string holding one).
/// - `lat`, `lon`, `accuracy`: numbers (or strings holding one); `accuracy` may be absent or
///   `null` (0). Bare `NaN` / `Infinity` (Python's `json.dumps`) are read and rejected as not finite.
/// - A repeated key: the last one counts. Blank lines are skipped.
/// - An object that is not closed on its line is malformed, or on a last line without a
///   newline ``SkipReason/truncatedLastLine``.
struct NDJSONLogParser {
    /// The key of each role, as bytes: device, time, lat, lon, accuracy.
    var keys: [[UInt8]]
    var keyNames: [String]
    let columns: LogColumns
    /// Whether the keys were chosen, from the first object's (``LogColumns/resolve(_:)``).
    var resolved = false
    /// A decoded string (device or time with escapes).
    var scratch: [UInt8] = []

    init(columns: LogColumns) {
        self.columns = columns
        keyNames = columns.names
        keys = keyNames.map { Array($0.utf8) }
    }

    /// Chooses each role's key from the keys of the first object (`p[s..<e]`), as a CSV
    /// header's columns are chosen. When that object is not valid JSON, or lacks a required
    /// role, the names stay as given and its rows report what is missing.
    mutating func resolveKeys(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int) {
        resolved = true
        guard case .object(let members)? = try? JSONParser.parse(Array(UnsafeBufferPointer(start: p + s, count: e - s))),
              case .success(let chosen) = columns.resolve(members.map(\.0)) else { return }
        for (role, index) in chosen.enumerated() {
            guard let index else { continue }
            keyNames[role] = members[index].0
            keys[role] = Array(members[index].0.utf8)
        }
    }

    /// What a value of interest looked like.
    enum Kind: UInt8 { case absent, string, number, null, other }

    /// Raised inside a line; becomes a reported row.
    struct Malformed: Error {
        var message: String
        var unclosed = false
    }

    mutating func read(into batch: inout [Fix], max: Int, _ core: inout ReadCore, _ devices: inout DeviceState) throws(GeofenceError) {
        if core.line == 0 && !core.deferOrder { try core.skipBOM() }
        var s = 0, e = 0, terminated = true
        // For each role: kind, value start, value end (string contents without quotes), escaped.
        var kinds: (Kind, Kind, Kind, Kind, Kind) = (.absent, .absent, .absent, .absent, .absent)
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: 15) { (buffer) throws(GeofenceError) in
            buffer.initialize(repeating: 0)
            let v = buffer.baseAddress!          // v[3r] start, v[3r + 1] end, v[3r + 2] escaped (0/1)
            while batch.count < max {
                guard try core.nextLine(&s, &e, &terminated) else { return }
                let p = UnsafePointer(core.base)
                var i = s
                while i < e && isSpace(p[i]) { i += 1 }
                if i == e { continue }
                if !resolved { resolveKeys(p, i, e) }
                let line = core.line
                kinds = (.absent, .absent, .absent, .absent, .absent)
                do throws(Malformed) {
                    try scanObject(p, &i, e, v, &kinds)
                } catch let m {
                    if m.unclosed && !terminated {
                        try core.report(.truncatedLastLine, line: line) {
                            "truncated last line: the JSON object is not closed and there is no newline at the end of the file"
                        }
                    } else {
                        let column = i - s + 1
                        try core.report(.malformedRow, line: line) { "invalid JSON at column \(column): \(m.message)" }
                    }
                    continue
                }
                try fix(p, v, kinds, line: line, &core, &devices, &batch)
            }
        }
    }

    @inline(__always)
    private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

    /// Scans one object `p[i..<e]`, recording the values of the five keys.
    @inline(__always)
    private func scanObject(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ e: Int, _ v: UnsafeMutablePointer<Int>,
                            _ kinds: inout (Kind, Kind, Kind, Kind, Kind)) throws(Malformed) {
        guard p[i] == UInt8(ascii: "{") else { throw Malformed(message: "expected an object ('{')") }
        i += 1
        var first = true
        while true {
            while i < e && isSpace(p[i]) { i += 1 }
            guard i < e else { throw Malformed(message: "the object is not closed", unclosed: true) }
            if first && p[i] == UInt8(ascii: "}") { i += 1; break }
            first = false
            guard p[i] == UInt8(ascii: "\"") else { throw Malformed(message: "expected a key in double quotes") }
            let ks = i + 1
            let (ke, kEscaped) = try scanString(p, &i, e)
            let role = match(p + ks, ke - ks, escaped: kEscaped)
            while i < e && isSpace(p[i]) { i += 1 }
            guard i < e else { throw Malformed(message: "the object is not closed", unclosed: true) }
            guard p[i] == UInt8(ascii: ":") else { throw Malformed(message: "expected ':' after a key") }
            i += 1
            while i < e && isSpace(p[i]) { i += 1 }
            guard i < e else { throw Malformed(message: "the object is not closed", unclosed: true) }
            let c = p[i]
            var kind = Kind.other
            var vs = i, ve = i, escaped = false
            if c == UInt8(ascii: "\"") {
                vs = i + 1
                (ve, escaped) = try scanString(p, &i, e)
                kind = .string
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                try skipNested(p, &i, e)
            } else {
                while i < e {
                    let t = p[i]
                    if t == UInt8(ascii: ",") || t == UInt8(ascii: "}") || t == UInt8(ascii: "]") || isSpace(t) { break }
                    i += 1
                }
                ve = i
                guard ve > vs else { throw Malformed(message: "expected a value") }
                let n = ve - vs
                if n == 4 && p[vs] == UInt8(ascii: "n") && p[vs + 1] == UInt8(ascii: "u") && p[vs + 2] == UInt8(ascii: "l") && p[vs + 3] == UInt8(ascii: "l") {
                    kind = .null
                } else if p[vs] == UInt8(ascii: "t") || p[vs] == UInt8(ascii: "f") {
                    kind = .other
                } else {
                    kind = .number
                }
            }
            if role >= 0 {
                v[3 * role] = vs
                v[3 * role + 1] = ve
                v[3 * role + 2] = escaped ? 1 : 0
                switch role {
                case 0: kinds.0 = kind
                case 1: kinds.1 = kind
                case 2: kinds.2 = kind
                case 3: kinds.3 = kind
                default: kinds.4 = kind
                }
            }
            while i < e && isSpace(p[i]) { i += 1 }
            guard i < e else { throw Malformed(message: "the object is not closed", unclosed: true) }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "}") { i += 1; break }
            throw Malformed(message: "expected ',' or '}'")
        }
        while i < e && isSpace(p[i]) { i += 1 }
        guard i == e else { throw Malformed(message: "unexpected text after the object") }
    }

    /// `p[i]` is an opening quote; moves `i` past the closing one. Returns the content end and
    /// whether it has escapes.
    @inline(__always)
    private func scanString(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ e: Int) throws(Malformed) -> (Int, Bool) {
        var j = i + 1
        var escaped = false
        while j < e {
            let c = p[j]
            if c == UInt8(ascii: "\"") { i = j + 1; return (j, escaped) }
            if c == UInt8(ascii: "\\") { escaped = true; j += 2; continue }
            j += 1
        }
        i = e
        throw Malformed(message: "unterminated string", unclosed: true)
    }

    /// Skips a nested object or array (strings inside respected).
    private func skipNested(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ e: Int) throws(Malformed) {
        var depth = 0
        while i < e {
            let c = p[i]
            if c == UInt8(ascii: "\"") { _ = try scanString(p, &i, e); continue }
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") { depth += 1 }
            if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { i += 1; return }
            }
            i += 1
        }
        throw Malformed(message: "the object is not closed", unclosed: true)
    }

    /// The role of a key, or -1.
    @inline(__always)
    private func match(_ p: UnsafePointer<UInt8>, _ n: Int, escaped: Bool) -> Int {
        if escaped {
            guard let decoded = Self.unescape(p, n) else { return -1 }
            return decoded.withUnsafeBufferPointer { match($0.baseAddress ?? p, $0.count, escaped: false) }
        }
        for r in 0..<5 {
            let k = keys[r]
            if k.count == n && k.withUnsafeBufferPointer({ memcmp($0.baseAddress!, p, n) == 0 }) { return r }
        }
        return -1
    }

    /// Decodes a JSON string's content (escapes, `\u` with surrogate pairs) to UTF-8; nil when invalid.
    static func unescape(_ p: UnsafePointer<UInt8>, _ n: Int) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        var i = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= n else { return nil }
            var v: UInt32 = 0
            for k in 0..<4 {
                let c = p[at + k]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: return nil
                }
                v = v << 4 | d
            }
            return v
        }
        while i < n {
            let c = p[i]
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            guard i + 1 < n else { return nil }
            let esc = p[i + 1]
            i += 2
            switch esc {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(esc)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var u = hex4(i) else { return nil }
                i += 4
                if u >= 0xD800 && u < 0xDC00 {
                    guard i + 6 <= n, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u"),
                          let lo = hex4(i + 2), lo >= 0xDC00, lo < 0xE000 else { return nil }
                    i += 6
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(u) else { return nil }
                out.append(contentsOf: String(Character(scalar)).utf8)
            default:
                return nil
            }
        }
        return out
    }

    /// Builds and checks the fix from the recorded values.
    @inline(__always)
    private mutating func fix(_ p: UnsafePointer<UInt8>, _ v: UnsafeMutablePointer<Int>, _ kinds: (Kind, Kind, Kind, Kind, Kind),
                              line: Int, _ core: inout ReadCore, _ devices: inout DeviceState, _ batch: inout [Fix]) throws(GeofenceError) {
        // time
        guard try present(kinds.1, role: 1, line: line, &core) else { return }
        var time: Double
        if v[5] != 0 {
            guard let decoded = Self.unescape(p + v[3], v[4] - v[3]) else {
                return try core.report(.badTime, line: line) { "invalid escape in \"\(keyNames[1])\"" }
            }
            guard let t = try decoded.withUnsafeBufferPointer({ (b) throws(GeofenceError) in
                try core.time(b.baseAddress ?? p, b.count, line: line)
            }) else { return }
            time = t
        } else {
            guard let t = try core.time(p + v[3], v[4] - v[3], line: line) else { return }
            time = t
        }
        // lat, lon
        guard try present(kinds.2, role: 2, line: line, &core),
              let lat = try core.latitude(p + v[6], v[7] - v[6], line: line) else { return }
        guard try present(kinds.3, role: 3, line: line, &core),
              let lon = try core.longitude(p + v[9], v[10] - v[9], line: line) else { return }
        var accuracy = 0.0
        switch kinds.4 {
        case .absent, .null: break
        case .other:
            return try core.report(.malformedRow, line: line) { "\"\(keyNames[4])\" must be a number" }
        case .string, .number:
            guard let a = try core.accuracy(p + v[12], v[13] - v[12], line: line) else { return }
            accuracy = a
        }
        // device, last: a device is interned (and counted) only with a fix whose other fields are good
        guard try present(kinds.0, role: 0, line: line, &core) else { return }
        var device: Int32
        if v[2] != 0 {
            guard let decoded = Self.unescape(p + v[0], v[1] - v[0]) else {
                return try core.report(.malformedRow, line: line) { "invalid escape in \"\(keyNames[0])\"" }
            }
            guard let d = try decoded.withUnsafeBufferPointer({ (b) throws(GeofenceError) in
                try core.device(b.baseAddress ?? p, b.count, line: line, &devices)
            }) else { return }
            device = d
        } else {
            guard let d = try core.device(p + v[0], v[1] - v[0], line: line, &devices) else { return }
            device = d
        }
        try core.accept(Fix(device: device, time: time, lat: lat, lon: lon, accuracy: accuracy, offset: core.lastOffset), line: line, &devices, &batch)
    }

    /// Whether a required value is there and of a usable type; reports it otherwise.
    @inline(__always)
    private func present(_ kind: Kind, role: Int, line: Int, _ core: inout ReadCore) throws(GeofenceError) -> Bool {
        switch kind {
        case .string, .number: return true
        case .absent: try core.report(.missingField, line: line) { "missing key \"\(keyNames[role])\"" }
        case .null: try core.report(.missingField, line: line) { "\"\(keyNames[role])\" is null" }
        case .other:
            let expected = role == 0 ? "a string or a number" : role == 1 ? "a string or a number" : "a number"
            try core.report(.malformedRow, line: line) { "\"\(keyNames[role])\" must be \(expected)" }
        }
        return false
    }
}
