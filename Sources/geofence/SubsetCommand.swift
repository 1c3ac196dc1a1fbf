import Foundation
import GeofenceKit

/// `geofence subset`: regional subsets, and tile bundles with a coverage guarantee (docs/subsets.md).
enum SubsetCommand {
    static let spec = CommandSpec(
        name: "subset",
        summary: "Fence subsets by bbox, polygon, radius or nearest N; tile bundles with a k-nearest guarantee.",
        usage: """
        --fences <file> ... (--bbox W,S,E,N | --within <poly.geojson> | --near LAT,LON --radius M | --nearest N --at LAT,LON)
                        [--mode intersects|within] [--format geojson|ndjson|csv|gpkg|fgb] [-o <out>]
               geofence subset --fences <file> ... --tiles Z [-k 20] --out <dir> [--reach M] [--bbox W,S,E,N | --at LAT,LON]
                        [--split N] [--threads N] [--previous <dir>] [--changes <file>]
        """,
        options: [
            .value("--fences", "-f", name: "file", repeatable: true, help: fencesHelp),
            layerOption,
        ] + fenceFieldOptions() + [
            .value("--bbox", name: "W,S,E,N", help: "Lon/lat box, degrees. W > E crosses the antimeridian. With --tiles: only the tiles meeting it."),
            .value("--within", name: "file", help: "GeoJSON Polygon/MultiPolygon features (holes respected)."),
            .value("--near", name: "lat,lon", help: "Fences within --radius metres of this point (distance to the fence, 0 inside)."),
            .value("--radius", name: "metres", help: "Radius for --near."),
            .value("--nearest", name: "n", help: "The n fences nearest to --at (the ranking of 'geofence nearest')."),
            .value("--at", name: "lat,lon", help: "The point for --nearest; with --tiles: build only the tile holding it."),
            .value("--mode", name: "intersects|within", help: "For --bbox/--within: fences touching the area (default) or lying wholly in it."),
            .value("--format", name: "geojson|ndjson|csv|gpkg|fgb", help: "Output format (default: gpkg/fgb when -o ends in .gpkg/.fgb, else geojson; csv for circle-only results; gpkg and fgb need -o)."),
            .value("--output", "-o", name: "file", help: "Write the subset here (temporary name, renamed on success); default stdout."),
            .value("--tiles", name: "zoom", help: "Write a bundle per Web Mercator tile z/x/y at this zoom (0-24)."),
            .value("-k", "--slots", name: "n", help: "Tile bundles: the guarantee's k (regions a device monitors; default 20)."),
            .value("--out", name: "dir", help: "Tile bundles: output directory (DIR/z/x/y.geojson, DIR/manifest.json)."),
            .value("--reach", name: "metres", help: "Tile bundles: omit tiles with no fence within this distance (default 100000)."),
            .value("--split", name: "n", help: "Tile bundles: cells per tile side for the bound (default 8; more: smaller bundles, more work)."),
            .value("--threads", "-j", name: "n", help: "Tile bundles: worker threads (default: all cores). Output is identical for any value."),
            .value("--previous", name: "dir", help: "Tile bundles: compare with this build's manifest (default: the one already in --out)."),
            .value("--changes", name: "file", help: "Tile bundles: write the added/removed/changed tiles as JSON here."),
            .value("--crs", name: "crs", help: "CRS of the fence input (default: WGS84)."),
            .flag("--skip-invalid", help: "Skip fences with problems instead of stopping (counts on stderr)."),
            .flag("--quiet", "-q", help: "No summary or progress on stderr."),
            .value("--verify", name: "dir", help: "Check a tile bundle against its manifest (every tile present with its sha256, nothing extra); exit 65 on a mismatch."),
            .flag("--force", help: "Tile bundles: build even when the range holds more than 4,194,304 tiles."),
        ],
        discussion: """
        Subsets keep every input property. bbox and polygon results are in input order; --near and
        --nearest results by distance (ties by identifier). Counts go to stderr; an empty result is
        not an error (exit 0, an empty collection, and a note on stderr).

        Tile bundles: each DIR/z/x/y.geojson holds every fence that can be among the k nearest (by
        distance to the fence, 0 inside) for some point of the tile, so a device holding its tile's
        bundle plans exactly as with the whole set. Tiles with no fence within --reach are omitted
        (listed as such in the manifest's counts). Tiles need latitudes within ±85.0511287798°.
        Rebuilding with the same input gives identical bytes; an existing manifest in --out (or
        --previous) is compared and the changed tiles reported. A build is staged beside --out and
        swapped in whole, so --out always holds a complete bundle, old or new (also after a kill);
        --verify DIR checks one. See docs/subsets.md.
        """)

    static let tileOnly = ["--tiles", "-k", "--out", "--reach", "--split", "--threads", "--previous", "--changes"]

    /// The most tiles a range may hold without --force (a world at zoom 11).
    static let tileLimit = 4_194_304

    static func run(_ args: Arguments) throws -> Int32 {
        if let dir = args.value("--verify") { return try verify(dir, args) }
        let paths = try args.requiredAll("--fences")
        if args.value("--tiles") != nil { return try runTiles(args, paths: paths) }
        for o in tileOnly where args.value(o) != nil {
            throw CommandError.usage("geofence subset: option '\(o)' needs --tiles")
        }
        let given = ["--bbox", "--within", "--near", "--nearest"].filter { args.value($0) != nil }
        guard given.count == 1 else {
            throw CommandError.usage(given.isEmpty
                ? "geofence subset: give one of --bbox, --within, --near (with --radius), --nearest (with --at) or --tiles"
                : "geofence subset: give only one selector, got \(given.joined(separator: " and "))")
        }
        if args.value("--radius") != nil && given[0] != "--near" { throw CommandError.usage("geofence subset: option '--radius' goes with --near") }
        if args.value("--at") != nil && given[0] != "--nearest" { throw CommandError.usage("geofence subset: option '--at' goes with --nearest or --tiles") }
        if args.value("--mode") != nil && given[0] != "--bbox" && given[0] != "--within" {
            throw CommandError.usage("geofence subset: option '--mode' goes with --bbox or --within")
        }
        let mode = SubsetMode(rawValue: try args.choice("--mode", SubsetMode.allCases.map(\.rawValue), default: "intersects"))!
        // A GeoPackage or FlatGeobuf by --format, or by the extension of -o when --format is absent.
        let formats = SubsetFormat.allCases.map(\.rawValue) + VectorFormat.allCases.map(\.rawValue)
        let output = args.value("--output")
        let byExtension = output.flatMap { VectorFormat(path: $0) }?.rawValue
        let formatName = try args.choice("--format", formats, default: byExtension ?? "geojson")
        let vectorFormat = VectorFormat(rawValue: formatName)
        if let vectorFormat, output == nil || output == "-" {
            throw CommandError.usage("geofence subset: --format \(vectorFormat.rawValue) writes a file: give -o <out.\(vectorFormat.rawValue)>")
        }

        let selector: SubsetSelector
        let label: String
        switch given[0] {
        case "--bbox":
            let box = try bbox(args)
            selector = .bbox(box)
            label = "bbox \(args.value("--bbox")!)\(box.crossesAntimeridian ? " (across the antimeridian)" : ""), \(mode.rawValue)"
        case "--within":
            let path = args.value("--within")!
            selector = .within(try SelectionRegion.load(path: path))
            label = "within \(path), \(mode.rawValue)"
        case "--near":
            let p = try args.latLon("--near")!
            guard let r = try args.double("--radius", min: 0) else { throw CommandError.usage("geofence subset: --near needs --radius <metres>") }
            selector = .near(lat: p.lat, lon: p.lon, radius: r)
            label = "within \(number(r)) m of \(args.value("--near")!)"
        default:
            let n = try args.int("--nearest", min: 1)!
            guard let p = try args.latLon("--at") else { throw CommandError.usage("geofence subset: --nearest needs --at LAT,LON") }
            selector = .nearest(count: n, lat: p.lat, lon: p.lon)
            label = "\(n) nearest to \(args.value("--at")!)"
        }

        let compiled = try loadFences(paths, crs: args.value("--crs"), layer: args.value("--layer"), fields: args.fenceFields(), skipInvalid: args.flag("--skip-invalid"), command: "subset").compiled
        let slots = try FenceSubset.select(selector, mode: mode, in: compiled)
        let fences = try library { () throws(GeofenceError) in try compiled.loadFences() }
        let selected = slots.map { fences[Int($0)] }
        if let vectorFormat, let output {
            try VectorFenceWriter.write(selected, to: output, format: vectorFormat)
        } else if let format = SubsetFormat(rawValue: formatName) {
            try writeText(selected, format: format, to: output)
        }
        if !args.flag("--quiet") {
            let line = slots.isEmpty
                ? "geofence subset: no fence matches (\(label)) among \(counted(fences.count, "fence")); the output is empty"
                : "geofence subset: \(slots.count) of \(counted(fences.count, "fence")) (\(label))"
            Console.err((line + "\n"))
        }
        return 0
    }

    /// GeoJSON, NDJSON or CSV to `output` (temporary name, renamed) or to stdout.
    static func writeText(_ fences: [Fence], format: SubsetFormat, to output: String?) throws {
        let text = try SubsetWriter.text(fences, format: format)
        if let output, output != "-" {
            try AtomicFile.write(text, to: output)
        } else {
            try Console.out(text)
        }
    }

    static func runTiles(_ args: Arguments, paths: [String]) throws -> Int32 {
        for o in ["--within", "--near", "--radius", "--nearest", "--output", "--format", "--mode"] where args.value(o) != nil {
            throw CommandError.usage("geofence subset: option '\(o)' does not go with --tiles")
        }
        let zoom = try args.int("--tiles", min: 0, max: Tile.maxZoom)!
        let k = try args.int("-k", default: 20, min: 1, max: 100_000)!
        guard let out = args.value("--out") else { throw CommandError.usage("geofence subset: --tiles needs --out <dir>") }
        let reach = try args.double("--reach", default: 100_000, min: 0)!
        let split = try args.int("--split", min: 1, max: 64)
        let threads = try args.int("--threads", default: ProcessInfo.processInfo.activeProcessorCount, min: 1, max: 1024)!
        if args.value("--bbox") != nil && args.value("--at") != nil {
            throw CommandError.usage("geofence subset: give --bbox or --at with --tiles, not both")
        }
        let range: TileRange
        var area: GeoBox? = nil
        do {
            if args.value("--bbox") != nil {
                area = try bbox(args)
                range = try Tile.covering(area!, zoom: zoom)
            } else if let at = try args.latLon("--at") {
                let t = try Tile.containing(lat: at.lat, lon: at.lon, zoom: zoom)
                area = GeoBox(west: at.lon, south: at.lat, east: at.lon, north: at.lat)
                range = TileRange(t)
            } else {
                range = try Tile.world(zoom: zoom)
            }
        }

        if range.count > tileLimit && !args.flag("--force") {
            throw CommandError.usage("geofence subset: zoom \(zoom) over \(area == nil ? "the world" : "this area") is \(counted(range.count, "tile")), more than \(tileLimit); narrow it with --bbox or a lower zoom, or pass --force")
        }
        if !args.flag("--quiet") && isatty(2) != 0 {
            Console.err("geofence subset: \(counted(range.count, "tile")) to consider at zoom \(zoom)\n")
        }
        let compiled = try loadFences(paths, crs: args.value("--crs"), layer: args.value("--layer"), fields: args.fenceFields(), skipInvalid: args.flag("--skip-invalid"), command: "subset").compiled
        let bundler = TileBundler(compiled: compiled, k: k, reach: reach, split: split ?? TileBundler.defaultSplit)
        let quiet = args.flag("--quiet")
        let progress: (@Sendable (Int, Int) -> Void)? = (!quiet && isatty(2) != 0) ? showProgress : nil
        let report = try TileBundleWriter.build(bundler: bundler, range: range, outDir: out, sources: paths, area: area,
                                                previousDir: args.value("--previous"), threads: threads, progress: progress,
                                                changesPath: args.value("--changes"))
        if progress != nil { Console.err("\r\u{1B}[K") }
        if !quiet {
            let s = report.bundleSizes
            var line = "geofence subset: zoom \(zoom), k \(k): \(report.written) of \(counted(report.considered, "tile")) written"
            line += " (\(report.omitted) omitted: no fence within \(number(reach)) m), \(counted(report.bytes, "byte"))"
            if report.written > 0 {
                line += String(format: "; fences per tile mean %.1f (%.2f k), p50 %d, p90 %d, max %d", s.mean, s.mean / Double(k), s.p50, s.p90, s.max)
            } else {
                line += "; no tile has a fence within reach, the bundle set is empty"
            }
            line += String(format: "; %.1f s, %d thread%@", report.seconds, threads, threads == 1 ? "" : "s")
            Console.err((line + "\n"))
            if let ch = report.changes {
                var c = "geofence subset: vs previous manifest: \(ch.changed.count) changed, \(ch.added.count) added, \(ch.removed.count) removed, \(ch.unchanged) unchanged"
                let listed = (ch.changed + ch.added + ch.removed).prefix(20).map(\.description)
                if !listed.isEmpty { c += " (" + listed.joined(separator: " ") + (ch.changed.count + ch.added.count + ch.removed.count > 20 ? " ..." : "") + ")" }
                Console.err((c + "\n"))
            }
        }
        return 0
    }

    @Sendable static func showProgress(_ done: Int, _ total: Int) {
        if done == total || done % 16 == 0 {
            Console.err("\rgeofence subset: tile columns \(done)/\(total)\u{1B}[K")
        }
    }

    /// Shortest text for a number (integers without ".0").
    static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    /// `--bbox W,S,E,N`: longitudes in [-180, 180], latitudes in [-90, 90], S <= N; W > E crosses the antimeridian.
    static func bbox(_ args: Arguments) throws -> GeoBox {
        let s = args.value("--bbox")!
        let parts = s.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let w = parts[0], let so = parts[1], let e = parts[2], let n = parts[3],
              w.isFinite, so.isFinite, e.isFinite, n.isFinite else {
            throw CommandError.usage("geofence subset: option '--bbox' expects W,S,E,N in degrees (west, south, east, north), got '\(s)'")
        }
        guard abs(w) <= 180, abs(e) <= 180 else { throw CommandError.usage("geofence subset: longitudes in '--bbox' must be within [-180, 180], got '\(s)'") }
        guard abs(so) <= 90, abs(n) <= 90 else { throw CommandError.usage("geofence subset: latitudes in '--bbox' must be within [-90, 90], got '\(s)'") }
        guard so <= n else { throw CommandError.usage("geofence subset: '--bbox' south \(parts[1]!) is north of north \(parts[3]!) (W,S,E,N order)") }
        return GeoBox(west: w, south: so, east: e, north: n)
    }

    /// `--verify DIR`: the bundle against its manifest.
    static func verify(_ dir: String, _ args: Arguments) throws -> Int32 {
        for o in ["--fences", "--tiles", "--out", "--bbox", "--within", "--near", "--nearest"] where args.value(o) != nil {
            throw CommandError.usage("geofence subset: option '\(o)' does not go with --verify")
        }
        let problems = try TileBundleWriter.verify(dir)
        if problems.isEmpty {
            if !args.flag("--quiet") { Console.err("geofence subset: \(dir): the bundle matches its manifest\n") }
            return 0
        }
        let shown = problems.prefix(20).map { "  \(dir)/\($0)" }.joined(separator: "\n")
        throw CommandError.data("\(dir): \(counted(problems.count, "tile")) \(problems.count == 1 ? "does" : "do") not match the manifest:\n\(shown)\(problems.count > 20 ? "\n  ..." : "")")
    }
}
