import GeofenceBase
import Glibc

/// GPX 1.0 and 1.1 points to fixes (docs/logs.md), with a small streaming tag scanner (no DOM,
/// no Foundation): `<trkpt>`, `<wpt>` and `<rtept>` (``GPXPointKinds``) with `lat` / `lon`
/// attributes and a `<time>` child; all of a file's points belong to one device.
///
/// - Namespace prefixes are ignored (`<gpx:trkpt>` is a `trkpt`); only a `<time>` that is a
///   direct child of the point counts (not one inside `<extensions>`, not the file's metadata
///   time). `<ele>`, `<hdop>` and the rest are skipped: accuracy is 0.
/// - A point without `<time>` is ``SkipReason/missingTime``, reported at the line of its start tag.
/// - Comments, processing instructions, CDATA and a DOCTYPE are skipped (CDATA text counts as text).
/// - A root element other than `<gpx>` is an error for the whole file. A file that ends inside a
///   tag, a point or before `</gpx>` is ``SkipReason/truncatedLastLine``.
struct GPXLogParser {
    let deviceName: String
    let kinds: GPXPointKinds
    var device: Int32 = -1
    var started = false
    var finished = false
    var sawRoot = false
    var depth = 0
    /// Depth of the point being read, -1 outside points.
    var pointDepth = -1
    var pointName = ""
    var pointLine = 0
    var latText: [UInt8]? = nil
    var lonText: [UInt8]? = nil
    var timeText: [UInt8]? = nil
    var inTime = false
    var text: [UInt8] = []

    init(deviceName: String, kinds: GPXPointKinds) {
        self.deviceName = deviceName
        self.kinds = kinds
    }

    mutating func read(into batch: inout [Fix], max: Int, _ core: inout ReadCore, _ devices: inout DeviceState) throws(GeofenceError) {
        if !started {
            started = true
            core.line = 1
            core.lineAhead = 0
            try core.skipBOM()
        }
        while batch.count < max && !finished {
            if core.pos >= core.end {
                if !(try core.refill(keeping: core.pos)) {
                    try finish(&core)
                    return
                }
                continue
            }
            let p = core.base
            if p[core.pos] != UInt8(ascii: "<") {
                // Text up to the next tag (or the end of what is buffered).
                let stop: Int
                if let lt = memchr(p + core.pos, Int32(UInt8(ascii: "<")), core.end - core.pos) {
                    stop = p.distance(to: lt.assumingMemoryBound(to: UInt8.self))
                } else {
                    stop = core.end
                }
                if inTime { text.append(contentsOf: UnsafeBufferPointer(start: p + core.pos, count: stop - core.pos)) }
                core.line += newlines(p, core.pos, stop)
                core.pos = stop
                continue
            }
            // A markup token: make sure enough is buffered to tell which kind.
            while core.end - core.pos < 9 && !core.eof { _ = try core.refill(keeping: core.pos) }
            let tagLine = core.line
            if startsWith(core, "<!--") {
                guard let stop = try find(&core, "-->", from: 4) else { return try truncated(&core, "inside a comment") }
                consume(&core, to: stop)
            } else if startsWith(core, "<![CDATA[") {
                guard let stop = try find(&core, "]]>", from: 9) else { return try truncated(&core, "inside a CDATA section") }
                if inTime { text.append(contentsOf: UnsafeBufferPointer(start: core.base + core.pos + 9, count: stop - 3 - core.pos - 9)) }
                consume(&core, to: stop)
            } else if startsWith(core, "<?") {
                guard let stop = try find(&core, "?>", from: 2) else { return try truncated(&core, "inside a processing instruction") }
                consume(&core, to: stop)
            } else if startsWith(core, "<!") {
                guard let stop = try findTagEnd(&core) else { return try truncated(&core, "inside a declaration") }
                consume(&core, to: stop)
            } else if startsWith(core, "</") {
                guard let stop = try findTagEnd(&core) else { return try truncated(&core, "inside an end tag") }
                try endTag(&core, line: tagLine, &devices, &batch)
                consume(&core, to: stop)
            } else {
                guard let stop = try findTagEnd(&core) else { return try truncated(&core, "inside a start tag") }
                try startTag(core.base + core.pos, stop - core.pos, line: tagLine, &core, &devices, &batch)
                consume(&core, to: stop)
            }
        }
    }

    // MARK: Tokens

    private func startsWith(_ core: ReadCore, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard core.end - core.pos >= n else { return false }
        return memcmp(core.base + core.pos, prefix.utf8Start, n) == 0
    }

    /// The offset just past `terminator`, searching from `core.pos + skip`, refilling as needed;
    /// nil at the end of input.
    private func find(_ core: inout ReadCore, _ terminator: StaticString, from skip: Int) throws(GeofenceError) -> Int? {
        let t = terminator.utf8Start, n = terminator.utf8CodeUnitCount
        var from = core.pos + skip
        while true {
            var i = from
            while i + n <= core.end {
                if let f = memchr(core.base + i, Int32(t[0]), core.end - i) {
                    let k = core.base.distance(to: f.assumingMemoryBound(to: UInt8.self))
                    if k + n > core.end { break }
                    if memcmp(core.base + k, t, n) == 0 { return k + n }
                    i = k + 1
                } else {
                    i = core.end
                    break
                }
            }
            let scanned = Swift.max(core.pos + skip, core.end - n + 1) - core.pos
            let keep = core.pos
            guard try core.refill(keeping: keep) else { return nil }
            from = core.pos + scanned
        }
    }

    /// The offset just past the `>` that ends the tag at `core.pos` (quoted `>` skipped).
    private func findTagEnd(_ core: inout ReadCore) throws(GeofenceError) -> Int? {
        var i = core.pos + 1
        var quote: UInt8 = 0
        while true {
            while i < core.end {
                let c = core.base[i]
                if quote != 0 {
                    if c == quote { quote = 0 }
                } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                } else if c == UInt8(ascii: ">") {
                    return i + 1
                }
                i += 1
            }
            let keep = core.pos
            guard try core.refill(keeping: keep) else { return nil }
            i -= keep - core.pos
        }
    }

    private func consume(_ core: inout ReadCore, to stop: Int) {
        core.line += newlines(core.base, core.pos, stop)
        core.pos = stop
    }

    private func newlines(_ p: UnsafeMutablePointer<UInt8>, _ s: Int, _ e: Int) -> Int {
        var count = 0
        var i = s
        while i < e, let f = memchr(p + i, 0x0A, e - i) {
            count += 1
            i = p.distance(to: f.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return count
    }

    // MARK: Elements

    /// The local name (after any `prefix:`) of the tag name at `p[s..<e]`.
    private static func localName(_ p: UnsafePointer<UInt8>, _ s: Int, _ e: Int) -> (Int, Int) {
        var ls = s
        for k in s..<e where p[k] == UInt8(ascii: ":") { ls = k + 1 }
        return (ls, e)
    }

    private static func equals(_ p: UnsafePointer<UInt8>, _ range: (Int, Int), _ name: StaticString) -> Bool {
        let n = name.utf8CodeUnitCount
        return range.1 - range.0 == n && memcmp(p + range.0, name.utf8Start, n) == 0
    }

    /// `<name attr="v" ...>` or `<name .../>` at `p[0..<n]`.
    private mutating func startTag(_ p: UnsafeMutablePointer<UInt8>, _ n: Int, line: Int, _ core: inout ReadCore,
                                   _ devices: inout DeviceState, _ batch: inout [Fix]) throws(GeofenceError) {
        var i = 1
        while i < n, !isNameEnd(p[i]) { i += 1 }
        let name = Self.localName(p, 1, i)
        let selfClosing = n >= 2 && p[n - 2] == UInt8(ascii: "/")
        depth += 1
        defer { if selfClosing { depth -= 1 } }
        if !sawRoot {
            guard Self.equals(p, name, "gpx") else {
                let shown = String(decoding: UnsafeBufferPointer(start: p + 1, count: i - 1), as: UTF8.self)
                throw .malformed(SourceLocation(file: core.path, line: line), "not a GPX file: the root element is <\(shown)>, expected <gpx>")
            }
            sawRoot = true
            return
        }
        if pointDepth < 0 {
            let kind: GPXPointKinds? = Self.equals(p, name, "trkpt") ? .trackPoints
                : Self.equals(p, name, "wpt") ? .waypoints
                : Self.equals(p, name, "rtept") ? .routePoints : nil
            guard let kind, kinds.contains(kind) else { return }
            pointDepth = depth
            pointLine = line
            pointName = String(decoding: UnsafeBufferPointer(start: p + name.0, count: name.1 - name.0), as: UTF8.self)
            latText = nil
            lonText = nil
            timeText = nil
            // Attributes.
            while i < n {
                while i < n && (isSpace(p[i])) { i += 1 }
                guard i < n, p[i] != UInt8(ascii: "/"), p[i] != UInt8(ascii: ">") else { break }
                let ns = i
                while i < n && p[i] != UInt8(ascii: "=") && !isSpace(p[i]) && p[i] != UInt8(ascii: ">") { i += 1 }
                let attr = Self.localName(p, ns, i)
                while i < n && isSpace(p[i]) { i += 1 }
                guard i < n, p[i] == UInt8(ascii: "=") else { break }
                i += 1
                while i < n && isSpace(p[i]) { i += 1 }
                guard i < n, p[i] == UInt8(ascii: "\"") || p[i] == UInt8(ascii: "'") else { break }
                let q = p[i]
                i += 1
                let vs = i
                while i < n && p[i] != q { i += 1 }
                let value = Array(UnsafeBufferPointer(start: p + vs, count: i - vs))
                i += 1
                if Self.equals(p, attr, "lat") { latText = value } else if Self.equals(p, attr, "lon") { lonText = value }
            }
            if selfClosing {
                try emit(&core, &devices, &batch)
            }
        } else if depth == pointDepth + 1 && Self.equals(p, name, "time") && !selfClosing {
            inTime = true
            text.removeAll(keepingCapacity: true)
        }
    }

    private mutating func endTag(_ core: inout ReadCore, line: Int, _ devices: inout DeviceState, _ batch: inout [Fix]) throws(GeofenceError) {
        if inTime && depth == pointDepth + 1 {
            inTime = false
            if timeText == nil { timeText = text }
        }
        if depth == pointDepth {
            try emit(&core, &devices, &batch)
        }
        depth -= 1
        if depth < 0 { throw .malformed(SourceLocation(file: core.path, line: line), "end tag without a start tag") }
    }

    @inline(__always)
    private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    @inline(__always)
    private func isNameEnd(_ c: UInt8) -> Bool { isSpace(c) || c == UInt8(ascii: "/") || c == UInt8(ascii: ">") }

    /// The point just closed becomes a fix (or a reported problem).
    private mutating func emit(_ core: inout ReadCore, _ devices: inout DeviceState, _ batch: inout [Fix]) throws(GeofenceError) {
        pointDepth = -1
        let line = pointLine
        let name = pointName
        guard let rawLat = latText else {
            return try core.report(.missingField, line: line) { "<\(name)> has no lat attribute" }
        }
        guard let rawLon = lonText else {
            return try core.report(.missingField, line: line) { "<\(name)> has no lon attribute" }
        }
        // Character and entity references (`&#52;`, `&#x34;`, `&amp;`) stand for their characters.
        guard let latText = Self.resolvingReferences(rawLat), let lonText = Self.resolvingReferences(rawLon),
              timeText.map({ Self.resolvingReferences($0) != nil }) ?? true else {
            return try core.report(.malformedRow, line: line) { "<\(name)> has a malformed character or entity reference" }
        }
        let timeText = self.timeText.flatMap { Self.resolvingReferences($0) }
        guard let lat = try Self.trimmed(latText, { (p, n) throws(GeofenceError) in try core.latitude(p, n, line: line) }) else { return }
        guard let lon = try Self.trimmed(lonText, { (p, n) throws(GeofenceError) in try core.longitude(p, n, line: line) }) else { return }
        guard let timeText else {
            // A waypoint without a time is a point of interest, not a fix: counted, not an error.
            if name == "wpt" { core.untimedWaypoints += 1; return }
            return try core.report(.missingTime, line: line) { "<\(name)> has no <time>" }
        }
        guard let time = try Self.trimmed(timeText, { (p, n) throws(GeofenceError) in try core.time(p, n, line: line) }) else { return }
        if device < 0 {
            var bytes = Array(deviceName.utf8)
            let n = bytes.count
            let d = try bytes.withUnsafeMutableBufferPointer { (b) throws(GeofenceError) -> Int32? in
                guard let base = b.baseAddress else {
                    try core.report(.emptyDevice, line: line) { "empty device id" }
                    return nil
                }
                return try core.device(UnsafePointer(base), n, line: line, &devices)
            }
            guard let d else { return }
            device = d
        }
        try core.accept(Fix(device: device, time: time, lat: lat, lon: lon, accuracy: 0, offset: core.lastOffset), line: line, &devices, &batch)
    }

    /// `bytes` with XML character references (`&#52;`, `&#x34;`) and the five predefined
    /// entities (`&lt;` `&gt;` `&amp;` `&quot;` `&apos;`) replaced by their characters (UTF-8);
    /// nil for a malformed or unknown reference. Bytes without `&` come back as they are.
    /// - Complexity: O(bytes).
    static func resolvingReferences(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.contains(UInt8(ascii: "&")) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "&") else { out.append(bytes[i]); i += 1; continue }
            guard let semi = bytes[i...].firstIndex(of: UInt8(ascii: ";")), semi - i <= 12 else { return nil }
            let name = String(decoding: bytes[(i + 1)..<semi], as: UTF8.self)
            switch name {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                guard name.hasPrefix("#") else { return nil }
                let digits = name.dropFirst()
                let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard let value, let scalar = Unicode.Scalar(value), value != 0 else { return nil }
                out.append(contentsOf: String(Character(scalar)).utf8)
            }
            i = semi + 1
        }
        return out
    }

    /// Calls `body` on the bytes without surrounding whitespace.
    private static func trimmed(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) throws(GeofenceError) -> Double?) throws(GeofenceError) -> Double? {
        try bytes.withUnsafeBufferPointer { (b) throws(GeofenceError) -> Double? in
            var s = 0, e = b.count
            while s < e, b[s] == 0x20 || b[s] == 0x09 || b[s] == 0x0A || b[s] == 0x0D { s += 1 }
            while e > s, b[e - 1] == 0x20 || b[e - 1] == 0x09 || b[e - 1] == 0x0A || b[e - 1] == 0x0D { e -= 1 }
            var empty: UInt8 = 0
            if e == s { return try withUnsafePointer(to: &empty) { (z) throws(GeofenceError) in try body(z, 0) } }
            return try body(b.baseAddress! + s, e - s)
        }
    }

    // MARK: End of input

    private mutating func truncated(_ core: inout ReadCore, _ where_: String) throws(GeofenceError) {
        finished = true
        try core.report(.truncatedLastLine, line: core.line) { "the file ends \(where_) (truncated?)" }
    }

    private mutating func finish(_ core: inout ReadCore) throws(GeofenceError) {
        finished = true
        guard sawRoot else { throw .malformed(SourceLocation(file: core.path, line: core.line), "no <gpx> element (not a GPX file, or empty)") }
        if pointDepth >= 0 {
            let name = pointName
            try core.report(.truncatedLastLine, line: core.line) { "the file ends inside <\(name)> (truncated?)" }
        } else if depth > 0 {
            try core.report(.truncatedLastLine, line: core.line) { "the file ends before </gpx> (truncated?)" }
        }
    }
}
