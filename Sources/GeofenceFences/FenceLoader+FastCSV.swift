import GeofenceBase
import GeofenceIndex
import Foundation

extension FenceLoader {
    /// The CSV fences of a clean file, read straight from the bytes: no record arrays, no
    /// `String` per field (only the identifier, and the other columns when
    /// ``keepProperties`` is set). nil when the file holds anything this path does not
    /// handle the way `loadCSV` does (a quoted identifier, position or radius, a lone CR, a bad header, any problem
    /// in any row, reprojection): the caller then reads it with `loadCSV`, which finds and
    /// words every problem. So both paths give the same fences, and problems come from one.
    /// - Complexity: O(bytes), one pass (two when the file has non-ASCII bytes, to validate UTF-8).
    package func fastCSV(_ bytes: [UInt8], name: String) -> FenceFile? {
        var fences: [Fence] = []
        guard fastCSV(bytes, name: name, { fences.append($0); return true }) else { return nil }
        return FenceFile(path: name, fences: fences, problems: [])
    }

    /// The fences of a clean CSV file as ``fastCSV(_:name:)`` reads them, handed to `each`
    /// in file order instead of gathered (`each` returns false to stop). false when the
    /// file is not one this path reads, or `each` stopped: the fences handed over so far are
    /// then not the file's (the caller reads it again with `loadCSV`).
    package func fastCSV(_ bytes: [UInt8], name: String, _ each: (Fence) -> Bool) -> Bool {
        guard reproject == nil else { return false }
        let delimiter = fields.delimiter ?? FenceCSV.sniff(bytes)
        return bytes.withUnsafeBufferPointer { buf -> Bool in
            guard let base = buf.baseAddress else { return false }
            let n = buf.count
            guard FastText.validUTF8(buf) else { return false }
            var i = n >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
            var line = 1
            var starts: [Int] = [], ends: [Int] = [], quoted: [Bool] = []
            /// Splits the record at `i` into fields (a quoted field: the bytes between its
            /// quotes); nil at the end of the buffer, `ok` false on a byte this path leaves to
            /// `loadCSV` (a lone CR, a quote inside a field, an unterminated quoted field).
            func nextRecord() -> (line: Int, ok: Bool)? {
                while i < n {  // blank lines
                    if base[i] == 0x0A { line += 1; i += 1; continue }
                    if base[i] == 0x0D, i + 1 < n, base[i + 1] == 0x0A { line += 1; i += 2; continue }
                    break
                }
                guard i < n else { return nil }
                starts.removeAll(keepingCapacity: true); ends.removeAll(keepingCapacity: true); quoted.removeAll(keepingCapacity: true)
                let recordLine = line
                while true {
                    if i < n && base[i] == UInt8(ascii: "\"") {
                        i += 1
                        let s = i
                        while true {
                            guard i < n else { return (recordLine, false) }
                            if base[i] == UInt8(ascii: "\"") {
                                if i + 1 < n && base[i + 1] == UInt8(ascii: "\"") { i += 2; continue }
                                break
                            }
                            if base[i] == 0x0A { line += 1 }
                            i += 1
                        }
                        starts.append(s); ends.append(i); quoted.append(true)
                        i += 1
                    } else {
                        let s = i
                        while i < n {
                            let b = base[i]
                            if b == delimiter || b == 0x0A { break }
                            if b == UInt8(ascii: "\"") { return (recordLine, false) }
                            if b == 0x0D {
                                if i + 1 == n || base[i + 1] == 0x0A { break }
                                return (recordLine, false)
                            }
                            i += 1
                        }
                        starts.append(s); ends.append(i); quoted.append(false)
                    }
                    guard i < n else { break }
                    let b = base[i]
                    if b == delimiter { i += 1; continue }
                    if b == 0x0A { i += 1; break }
                    if b == 0x0D && (i + 1 == n || base[i + 1] == 0x0A) { i += i + 1 < n ? 2 : 1; break }
                    return (recordLine, false)
                }
                line += 1
                return (recordLine, true)
            }
            func text(_ k: Int) -> String {
                let t = String(decoding: UnsafeBufferPointer(start: base + starts[k], count: ends[k] - starts[k]), as: UTF8.self)
                return quoted[k] ? t.replacingOccurrences(of: "\"\"", with: "\"") : t
            }
            guard let header = nextRecord(), header.ok else { return false }
            let names = (0..<starts.count).map { FenceLoader.trimmed(text($0)) }
            // The columns as `loadCSV` resolves them (FenceFields.swift); a WKT column is its business.
            guard Set(names).count == names.count,
                  let cols = try? FenceColumns.resolve(names, options: fields, projected: false, crs: nil),
                  cols.wkt == nil, let ilat = cols.lat, let ilon = cols.lon, let irad = cols.radius else { return false }
            let iid = cols.id, scale = cols.radiusScale
            let core = cols.core
            let optionColumns = cols.options
            while let rec = nextRecord() {
                guard rec.ok, starts.count == names.count else { return false }
                // The identifier: clean ASCII-bounded text (else `trimmed` may change it: the general path).
                guard !quoted[iid] && !quoted[ilat] && !quoted[ilon] && !quoted[irad] else { return false }
                let a = starts[iid], b = ends[iid]
                guard b > a, FastText.plain(base[a]), FastText.plain(base[b - 1]) else { return false }
                guard let lat = FastText.decimal(base + starts[ilat], ends[ilat] - starts[ilat]), abs(lat) <= 90,
                      let lon = FastText.decimal(base + starts[ilon], ends[ilon] - starts[ilon]), abs(lon) <= 180,
                      let cell = FastText.decimal(base + starts[irad], ends[irad] - starts[irad]) else { return false }
                let r = cell * scale
                guard r.isFinite, r > 0 else { return false }
                let id = text(iid)
                let loc = SourceLocation(file: name, line: rec.line)
                var options = defaults
                if !optionColumns.isEmpty {
                    let props = JSONValue.object(optionColumns.map { ($0.name, .string(text($0.column))) })
                    if !Self.readOptions(props, into: &options, at: loc, fence: id).isEmpty { return false }
                }
                var properties: [(String, JSONValue)] = []
                if keepProperties {
                    for k in names.indices where !core.contains(k) { properties.append((names[k], .string(text(k)))) }
                    let radText = text(irad)
                    let literal = radText.hasPrefix("+") ? radText.dropFirst() : Substring(radText)
                    properties.append(("radius", .number(scale == 1 && FenceLoader.isJSONNumber(literal) ? String(literal) : JSONValue.format(r))))
                }
                guard each(Fence(id: id, shape: .circle(lat: lat, lon: lon, radius: r), options: options,
                                 properties: properties, source: loc)) else { return false }
            }
            return true
        }
    }
}

/// Byte-level helpers of the fast fence readers.
enum FastText {
    /// A byte `FenceLoader.trimmed` never removes from either end: printable ASCII.
    @inline(__always)
    static func plain(_ b: UInt8) -> Bool { b > 0x20 && b < 0x80 }

    /// A decimal as `FenceLoader.decimal` reads it, for text of the plain form `[+-]digits[.digits][(e|E)[+-]digits]`
    /// (at least one digit before or after the point); nil for anything else, which the
    /// general path then reads and, when it is not a number, reports.
    @inline(__always)
    static func decimal(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var i = 0
        if i < n && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) { i += 1 }
        var digits = 0
        while i < n && p[i] &- 0x30 < 10 { i += 1; digits += 1 }
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            while i < n && p[i] &- 0x30 < 10 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            if i < n && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) { i += 1 }
            var e = 0
            while i < n && p[i] &- 0x30 < 10 { i += 1; e += 1 }
            guard e > 0 else { return nil }
        }
        guard i == n else { return nil }
        return DecimalParser.parse(p, n)
    }

    /// Whether the bytes are valid UTF-8 (what the general readers require of every field
    /// and string); a pure-ASCII buffer is checked in one quick pass.
    static func validUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var high = false
        for x in b where x >= 0x80 { high = true; break }
        guard high else { return true }
        return String(validating: b, as: UTF8.self) != nil
    }
}
