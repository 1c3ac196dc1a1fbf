import GeofenceBase
import GeofenceIndex
import GeometryKit

extension FenceSet {
    /// Loads fence files, reprojecting from `crs` (e.g. "EPSG:2154") to WGS84 through
    /// PROJ when given (docs/fences.md#projected-input---crs) and reading fields as `fields` says
    /// (docs/fences.md#field-mapping), and, when `checkPolygons`,
    /// checks polygons with GEOS (``FenceValidator/checkPolygons(_:)``). `defaults` are the
    /// options each fence starts from; `keepProperties` false leaves every fence's properties
    /// empty (``FenceLoader/keepProperties``). `layer` names the layer of sources read through
    /// GDAL (docs/fences.md#other-vector-formats-gdal); such a source with a CRS of its own is
    /// transformed from it, and `crs` must then be the same CRS or nil.
    /// - Throws: `GeofenceError.invalidArgument` (parameter `crs`) for an unknown CRS, one that
    ///   conflicts with a source's own, or a `crs` given with a compiled fence file (already
    ///   WGS84); (parameter `layer`) for a GDAL source whose layer is missing or ambiguous;
    ///   `GeofenceError.input` for a file that cannot be read or parsed (as
    ///   ``FenceLoader/load(path:)``), `GeofenceError.internal` when a GEOS context cannot be
    ///   created.
    /// - Complexity: O(total file size + coordinates), plus GEOS validity checks of the polygons.
    public static func load(paths: [String], crs: String?, layer: String? = nil, fields: FenceFieldOptions = FenceFieldOptions(),
                            defaults: FenceOptions = FenceOptions(), checkPolygons: Bool = true, keepProperties: Bool = true) throws(GeofenceError) -> FenceSet {
        var loader = FenceLoader()
        loader.defaults = defaults
        loader.keepProperties = keepProperties
        loader.vector = VectorSourceOptions(layer: layer, crs: crs)
        loader.fields = fields
        if let crs {
            try refuseCRSWithCompiledFiles(paths)
            loader.reproject = try FenceLoader.reprojector(from: crs)
        }
        var set = try load(paths: paths, loader: loader)
        if checkPolygons, set.polygonCount > 0 {
            let v = try FenceValidator()
            v.checkPolygons(&set)
        }
        return set
    }

    /// Throws when one of `paths` is a compiled fence file: its positions are WGS84 already,
    /// so a `--crs` given with it is a mistake, not something to ignore
    /// (docs/compiled-fences.md#what-it-holds).
    /// - Throws: `GeofenceError.invalidArgument` (parameter `crs`) naming the compiled file.
    /// - Complexity: one 4-byte read per path.
    public static func refuseCRSWithCompiledFiles(_ paths: [String]) throws(GeofenceError) {
        for p in paths where CompiledFenceFile.isCompiled(path: p) {
            throw .argument("crs", "\(p) is a compiled fence file, already in WGS84; drop --crs")
        }
    }

    /// For commands that need clean fences (docs/fences.md#what-each-command-does-with-problems):
    /// strict mode throws the first problem; lenient mode drops every fence a problem is about
    /// (found by its location: a later definition of a duplicate identifier is not in
    /// ``fences``, so the first one is kept) and returns the counts by problem kind (each
    /// later duplicate counted). No problems: all fences and an empty count.
    /// - Throws: when `skipInvalid` is false and there is a problem: ``GeofenceError/input(_:)``
    ///   with kind ``InputError/Kind/invalidRecord(reason:)`` (the reason is
    ///   ``FenceProblem/Kind/code``), the first problem's location and fence id, and a message
    ///   saying how many more problems there are.
    /// - Complexity: O(fences + problems).
    public func usable(skipInvalid: Bool) throws(GeofenceError) -> (fences: [Fence], skipped: [FenceProblem.Kind: Int]) {
        if problems.isEmpty { return (fences, [:]) }
        guard skipInvalid else {
            let first = problems[0]
            let more = problems.count > 1 ? " (and \(problems.count - 1) more problem\(problems.count > 2 ? "s" : ""); run 'geofence validate' to list them, or pass --skip-invalid)" : ""
            throw .input(InputError(first.location, .invalidRecord(reason: first.kind.code), first.message + more, recordID: first.fenceID))
        }
        let bad = Set(problems.filter { $0.kind != .duplicateIdentifier }.map(\.location))
        var counts: [FenceProblem.Kind: Int] = [:]
        for p in problems { counts[p.kind, default: 0] += 1 }
        return (fences.filter { !bad.contains($0.source) }, counts)
    }
}
