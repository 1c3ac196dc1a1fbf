import GeofenceBase
import GeofenceIndex
import GeometryKit

extension FenceLoader {
    /// The header of a fence CSV resolved to columns (docs/fences.md#field-mapping).
    /// - Throws: ``GeofenceError/invalidArgument(_:)`` when `--fields` or `--crs` does not fit
    ///   the header, else malformed naming the header line.
    func columns(_ names: [String], name: String, line: Int) throws(GeofenceError) -> FenceColumns {
        do {
            return try FenceColumns.resolve(names, options: fields, projected: reproject != nil, crs: vector.crs)
        } catch {
            if let p = error.parameter { throw .argument(p, "\(name): \(error.message)") }
            throw .malformed(SourceLocation(file: name, line: line), error.message)
        }
    }

    /// The general CSV reader: records and fields as strings, every problem of every row found
    /// and worded.
    package func loadCSV(bytes: [UInt8], name: String) throws(GeofenceError) -> FenceFile {
        let records: [CSVReader.Record]
        do { records = try CSVReader(delimiter: fields.delimiter ?? FenceCSV.sniff(bytes)).records(bytes) } catch {
            throw .malformed(SourceLocation(file: name, line: error.line), "\(error.message)")
        }
        guard let header = records.first else {
            throw .malformed(SourceLocation(file: name), "empty file, expected a CSV header with id,lat,lon,radius")
        }
        let names = header.fields.map(FenceLoader.trimmed)
        var seen = Set<String>()
        for n in names where !seen.insert(n).inserted {
            throw .malformed(SourceLocation(file: name, line: header.line), "CSV header has column \"\(n)\" twice")
        }
        let cols = try columns(names, name: name, line: header.line)
        let core = cols.core
        var geos: GEOSContext?
        if cols.wkt != nil {
            do { geos = try GEOSContext() } catch { throw .internal("cannot create a GEOS context: \(error)") }
        }
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
            let id = FenceLoader.trimmed(f[cols.id])
            guard !id.isEmpty else {
                problems.append(FenceProblem(.missingIdentifier, "empty \(names[cols.id])", at: loc))
                continue
            }
            var row: [FenceProblem] = []
            var soft: [FenceProblem] = []
            let radText = cols.radius.map { FenceLoader.trimmed(f[$0]) } ?? ""
            func rowRadius(_ problems: inout [FenceProblem]) -> Double? {
                radius(radText, column: cols.radius.map { names[$0] }, scale: cols.radiusScale, problems: &problems)
            }
            var shape: FenceShape?
            if let w = cols.wkt, let geos {
                shape = wktShape(f[w], radius: rowRadius, geos: geos, soft: &soft, problems: &row)
            } else if let ilat = cols.lat, let ilon = cols.lon {
                let r = rowRadius(&row)
                let latText = FenceLoader.trimmed(f[ilat]), lonText = FenceLoader.trimmed(f[ilon])
                let y = FenceLoader.decimal(latText), x = FenceLoader.decimal(lonText)
                if y == nil { row.append(FenceProblem(.malformedGeometry, "\(cols.projected ? "y" : "latitude") \"\(latText)\" is not a number", at: loc)) }
                if x == nil { row.append(FenceProblem(.malformedGeometry, "\(cols.projected ? "x" : "longitude") \"\(lonText)\" is not a number", at: loc)) }
                if let x, let y {
                    var c = [Coordinate(lon: x, lat: y)]
                    do {
                        try reprojectChecked(&c)
                        row += rangeProblems(&c[0], soft: &soft)
                        if let r, row.isEmpty { shape = .circle(lat: c[0].lat, lon: c[0].lon, radius: r) }
                    } catch let p as FenceProblem { row.append(p) } catch {
                        row.append(FenceProblem(.reprojection, "reprojection failed: \(error)", at: loc))
                    }
                }
            }
            var props: [(String, JSONValue)] = []
            for (k, n) in names.enumerated() where !core.contains(k) { props.append((n, .string(f[k]))) }
            var options = defaults
            row += Self.readOptions(.object(cols.options.map { ($0.name, JSONValue.string(f[$0.column])) }), into: &options, at: loc, fence: id)
            guard row.isEmpty, let shape else {
                for var p in row { p.location = loc; p.fenceID = id; problems.append(p) }
                continue
            }
            for var p in soft { p.location = loc; p.fenceID = id; problems.append(p) }
            if case .circle(_, _, let r) = shape {
                // The source's spelling when it is a JSON number in metres (`100.50`), else the shortest text.
                let literal = radText.hasPrefix("+") ? radText.dropFirst() : Substring(radText)
                let same = cols.radiusScale == 1 && !radText.isEmpty && FenceLoader.isJSONNumber(literal)
                props.append(("radius", .number(same ? String(literal) : JSONValue.format(r))))
            }
            fences.append(Fence(id: id, shape: shape, options: options, properties: keepProperties ? props : [], source: loc))
        }
        if reproject == nil, let ilat = cols.lat, let ilon = cols.lon {
            Self.hintProjected(&problems, fences: fences) {
                records.dropFirst().compactMap { r in
                    guard r.fields.count == names.count, let y = FenceLoader.decimal(FenceLoader.trimmed(r.fields[ilat])),
                          let x = FenceLoader.decimal(FenceLoader.trimmed(r.fields[ilon])) else { return nil }
                    return Coordinate(lon: x, lat: y)
                }
            }
        }
        return FenceFile(path: name, fences: fences, problems: problems)
    }

    /// A row's radius in metres: the cell in its unit, the default radius for an empty cell
    /// (or no radius column); nil with a problem appended when it is missing or not a usable number.
    private func radius(_ text: String, column: String?, scale: Double, problems: inout [FenceProblem]) -> Double? {
        let here = SourceLocation(file: "")
        guard !text.isEmpty else {
            if let d = fields.defaultRadius { return d }
            if column != nil { problems.append(FenceProblem(.missingRadius, "\(column!) is empty (give --default-radius for points without one)", at: here)) }
            return nil
        }
        guard let v = FenceLoader.decimal(text) else {
            problems.append(FenceProblem(.invalidRadius, "\(column ?? "radius") \"\(text)\" is not a number", at: here))
            return nil
        }
        do { try checkRadius(v * scale, text: text) } catch {
            problems.append(error)
            return nil
        }
        return v * scale
    }

    /// The shape of a WKT cell: a POLYGON or MULTIPOLYGON read as GeoJSON would be, a POINT as
    /// a circle of `radius`. nil with problems appended.
    private func wktShape(_ text: String, radius: (inout [FenceProblem]) -> Double?, geos: GEOSContext,
                          soft: inout [FenceProblem], problems: inout [FenceProblem]) -> FenceShape? {
        let here = SourceLocation(file: "")
        let t = FenceLoader.trimmed(text)
        guard !t.isEmpty else {
            problems.append(FenceProblem(.missingGeometry, "the WKT column is empty", at: here))
            return nil
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(Array(try geos.geometry(wkt: t).geoJSON().utf8))
        } catch {
            problems.append(FenceProblem(.malformedGeometry, "WKT \"\(t.prefix(40))\" cannot be read: \(error)", at: here))
            return nil
        }
        if json["type"]?.stringValue == "Point", let coords = json["coordinates"] {
            let before = problems.count
            let r = radius(&problems)
            if r == nil && problems.count == before {
                problems.append(FenceProblem(.missingRadius, "a POINT needs a radius column or --default-radius", at: here))
            }
            do {
                var c = [try position(coords, what: "POINT")]
                try reprojectChecked(&c)
                problems += rangeProblems(&c[0], soft: &soft)
                guard let r, problems.count == before else { return nil }
                return .circle(lat: c[0].lat, lon: c[0].lon, radius: r)
            } catch let p as FenceProblem { problems.append(p) } catch {
                problems.append(FenceProblem(.reprojection, "reprojection failed: \(error)", at: here))
            }
            return nil
        }
        var found: [FenceProblem] = []
        let s = shape(json, properties: [], soft: &soft, problems: &found)
        problems += found
        return s
    }

    /// Adds a hint naming `--crs` to the out-of-range problems when no fence of the file was
    /// read and every position of `positions` (one per feature or row, given lazily: only
    /// computed then) is far out of range (|x| > 360 or |y| > 180): the file is most likely in
    /// a projected CRS, not a degree off.
    static func hintProjected(_ problems: inout [FenceProblem], fences: [Fence], positions: () -> [Coordinate]) {
        guard fences.isEmpty, problems.contains(where: { $0.kind == .coordinateOutOfRange && !$0.repairable }) else { return }
        let p = positions()
        guard !p.isEmpty, p.allSatisfy({ abs($0.lon) > 360 || abs($0.lat) > 180 }) else { return }
        for k in problems.indices where problems[k].kind == .coordinateOutOfRange && !problems[k].repairable {
            problems[k].message += "; the coordinates look projected (not degrees): give their CRS with --crs EPSG:n"
        }
    }
}
