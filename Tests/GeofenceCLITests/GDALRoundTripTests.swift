import Foundation
import XCTest
import GeofenceKit
import GeofenceTestSupport

/// Fences through GDAL (docs/fences.md#other-vector-formats-gdal): the bundled fences converted
/// by GDAL's own `ogr2ogr` (the independent reference) and written by `subset`, read back by
/// `validate` and `evaluate`: the same fences and the same events as from the original files.
final class GDALRoundTripTests: XCTestCase {
    static let ogr2ogrPath = ["/usr/bin/ogr2ogr", "/usr/local/bin/ogr2ogr"].first { FileManager.default.isExecutableFile(atPath: $0) }

    var dir = ""

    override func setUpWithError() throws {
        try XCTSkipIf(Self.ogr2ogrPath == nil, "ogr2ogr (gdal-bin) is not installed; run scripts/install-deps")
        dir = CLI.tempPath("gdal")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if !dir.isEmpty { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// The shared objects a `geofence` run loads (the dynamic loader's own list, LD_DEBUG=files).
    func loadedLibraries(_ args: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = CLI.productsDirectory.appendingPathComponent("geofence")
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(["LD_DEBUG": "files"]) { $1 }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text.suffix(2000).description)
        return text.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: "file=") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != " " && $0 != "[" })
        }
    }

    /// libgdal and its dependencies are opened only by a run that reads or writes a GDAL
    /// format: the others start without them.
    func testGDALIsLoadedOnlyWhenAGDALFormatIsUsed() throws {
        let plain = try loadedLibraries(["nearest", "--fences", CLI.data("ports.csv"), "--at", "36.85,-76.30"])
        XCTAssertFalse(plain.isEmpty, "LD_DEBUG lists the libraries")
        XCTAssertFalse(plain.contains { $0.contains("libgdal") }, "\(plain)")
        let gpkg = dir + "/ports.gpkg"
        try ogr2ogr(["-f", "GPKG", gpkg, CLI.data("ports.csv")] + sourceOptions("ports.csv"))
        let vector = try loadedLibraries(["nearest", "--fences", gpkg, "--at", "36.85,-76.30"])
        XCTAssertTrue(vector.contains { $0.contains("libgdal") }, "\(vector)")
    }

    /// Runs ogr2ogr; fails the test when it fails.
    func ogr2ogr(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.ogr2ogrPath!)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "ogr2ogr \(args.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))", file: file, line: line)
    }

    /// ogr2ogr options for a source: the CSV circles need their coordinate columns named.
    func sourceOptions(_ source: String) -> [String] {
        source.hasSuffix(".csv") ? ["-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "-a_srs", "EPSG:4326"] : []
    }

    static let formats: [(ext: String, driver: String)] = [("gpkg", "GPKG"), ("shp", "ESRI Shapefile"), ("fgb", "FlatGeobuf"), ("kml", "KML")]
    static let sources = ["ports.csv", "airports.csv", "countries.geojson", "us_counties_va_nc.geojson"]

    /// GDAL's own GeoJSON of an OGR file, as the reference reading: the `id` field as the
    /// Feature id, and a text radius (files converted from CSV, KML) as a number, as our GDAL
    /// reader takes it. GDAL's number formatting trims digit runs (`22.876219999999932` is
    /// written `22.87622`), so coordinates agree within ``tolerance``, not bit for bit.
    func reference(of path: String) throws -> String {
        let raw = dir + "/ref-raw-" + URL(fileURLWithPath: path).lastPathComponent + ".geojson"
        try ogr2ogr(["-f", "GeoJSON", "-lco", "ID_FIELD=id", "-lco", "SIGNIFICANT_FIGURES=17", raw, path])
        var text = try String(contentsOfFile: raw, encoding: .utf8)
        text = text.replacingOccurrences(of: #""radius": "([0-9.eE+-]+)""#, with: #""radius": $1"#, options: .regularExpression)
        let out = dir + "/ref-" + URL(fileURLWithPath: path).lastPathComponent + ".geojson"
        try text.write(toFile: out, atomically: true, encoding: .utf8)
        return out
    }

    /// Fences by identifier (shape and options), and the problems as (identifier, kind).
    func read(_ paths: [String], layer: String? = nil) throws -> (fences: [String: Fence], problems: [String]) {
        let set = try FenceSet.load(paths: paths, crs: nil, layer: layer)
        var byID: [String: Fence] = [:]
        for var f in set.fences {
            f.source = SourceLocation(file: "")
            f.properties = []
            // The same region whichever way its rings run (our outputs are wound as RFC 7946 asks).
            if case .polygon(let parts) = f.shape { f.shape = .polygon(parts.map(FenceWriter.wound)) }
            byID[f.id] = f
        }
        return (byID, set.problems.map { "\($0.fenceID ?? "?") \($0.kind.rawValue)" }.sorted())
    }

    /// The identifiers whose fences differ between `a` and `b` (or are in one only), sorted:
    /// options and radius exactly, coordinates within `tolerance` degrees (0: bit for bit).
    func differing(_ a: [String: Fence], _ b: [String: Fence], tolerance: Double = 0) -> [String] {
        func near(_ x: Coordinate, _ y: Coordinate) -> Bool { abs(x.lat - y.lat) <= tolerance && abs(x.lon - y.lon) <= tolerance }
        func same(_ f: Fence?, _ g: Fence?) -> Bool {
            guard let f, let g, f.options == g.options else { return false }
            switch (f.shape, g.shape) {
            case let (.circle(la, lo, r), .circle(lb, lob, rb)):
                return r == rb && near(Coordinate(lon: lo, lat: la), Coordinate(lon: lob, lat: lb))
            case let (.polygon(p), .polygon(q)):
                return p.count == q.count && zip(p, q).allSatisfy { rp, rq in
                    rp.count == rq.count && zip(rp, rq).allSatisfy { $0.count == $1.count && zip($0, $1).allSatisfy(near) }
                }
            default: return false
            }
        }
        return Set(a.keys).union(b.keys).filter { !same(a[$0], b[$0]) }.sorted()
    }

    /// How far GDAL's GeoJSON writer may move a coordinate (its trimming changes the 13th-15th digit).
    static let tolerance = 1e-9

    func events(_ fences: [String], log: String, extra: [String] = []) throws -> String {
        let r = try CLI.run(["evaluate", "--log", CLI.data(log), "--skip-invalid"] + fences.flatMap { ["--fences", $0] } + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    /// Which trace goes with which fences: the AIS ships for ports and counties, the flights for
    /// airports and countries.
    static func log(for source: String) -> String {
        source.hasPrefix("ports") || source.hasPrefix("us_counties") ? "virginia_beach_ais.csv" : "flights_us.csv"
    }

    /// Each bundled fence file through each format by ogr2ogr: our reading equals GDAL's own
    /// GeoJSON conversion of the same file (fences and problems), and the events equal those of
    /// the original file. GeoPackage, FlatGeobuf and Shapefile keep every coordinate: the fences
    /// equal the original's bit for bit; KML's within ``tolerance``.
    func testBundledFencesThroughOgr2ogr() throws {
        for source in Self.sources {
            let original = try read([CLI.data(source)])
            let originalEvents = try events([CLI.data(source)], log: Self.log(for: source))
            XCTAssertFalse(originalEvents.isEmpty, source)
            for format in Self.formats {
                let path = dir + "/" + source.split(separator: ".")[0] + "." + format.ext
                try ogr2ogr(["-f", format.driver, path, CLI.data(source)] + sourceOptions(source))
                let ours = try read([path])
                let reference = try read([try reference(of: path)])
                XCTAssertEqual(ours.fences.count, original.fences.count, "\(source) as \(format.ext)")
                XCTAssertEqual(differing(ours.fences, reference.fences, tolerance: Self.tolerance), [],
                               "\(source) as \(format.ext): our reading differs from ogr2ogr's GeoJSON")
                // GeoPackage, FlatGeobuf and Shapefile store the doubles as they are: bit for bit
                // the original. KML keeps 15 significant digits.
                let exact = format.ext != "kml"
                XCTAssertEqual(differing(ours.fences, original.fences, tolerance: exact ? 0 : Self.tolerance), [],
                               "\(source) as \(format.ext): fences differ from the original")
                if format.ext == "kml" && source == "countries.geojson" {
                    // KML's 15 digits write Russia's 180.00000000000006 as 180: only Antarctica is left.
                    XCTAssertEqual(ours.problems, ["ATA crosses the antimeridian"])
                } else {
                    XCTAssertEqual(ours.problems, original.problems, "\(source) as \(format.ext)")
                }
                XCTAssertEqual(try events([path], log: Self.log(for: source)), originalEvents, "\(source) as \(format.ext): events differ")
                let v = try CLI.run(["validate", "--fences", path])
                XCTAssertTrue(v.stdout.contains(" read: \(ours.fences.count) fences ("), "\(path): \(v.stdout)")
            }
        }
    }

    /// `subset` writes GeoPackage and FlatGeobuf (by extension and by --format) that GDAL reads as
    /// the same fences with their properties, and that give the same events; `validate
    /// --repair` writes them too.
    func testSubsetWritesGeoPackageAndFlatGeobuf() throws {
        let inputs = [CLI.data("ports.csv"), CLI.data("us_counties_va_nc.geojson")]
        let original = try read(inputs)
        let originalEvents = try events(inputs, log: "virginia_beach_ais.csv")
        for (ext, byFormat) in [("gpkg", false), ("fgb", false), ("gpkg", true), ("fgb", true)] {
            let out = dir + "/subset-\(byFormat)." + (byFormat ? "bin" : ext)
            let r = try CLI.run(["subset", "--bbox", "-180,-90,180,90", "-o", out] + (byFormat ? ["--format", ext] : []) + inputs.flatMap { ["-f", $0] })
            XCTAssertEqual(r.status, 0, r.stderr)
            let read = try read([out])
            XCTAssertEqual(read.fences, original.fences, ext)
            XCTAssertEqual(read.problems, [])
            // GDAL's own reading of our file: the same fences, properties included.
            let reference = try FenceSet.load(paths: [try reference(of: out)], crs: nil)
            let props = Dictionary(uniqueKeysWithValues: reference.fences.map { ($0.id, $0.properties) })
            XCTAssertEqual(JSONValue.object(props["WPI8280"] ?? [])["name"], .string("Norfolk"), ext)
            XCTAssertEqual(JSONValue.object(props["WPI8280"] ?? [])["harbor_size"], .string("Large"), ext)
            XCTAssertEqual(JSONValue.object(props["51810"] ?? [])["detailed_name"], .string("Virginia Beach city, Virginia"), ext)
            XCTAssertEqual(reference.fences.count, original.fences.count)
            XCTAssertEqual(try events([out], log: "virginia_beach_ais.csv"), originalEvents, ext)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }, [], "temporary files left")
        }
        // Binary formats need a file.
        let stdout = try CLI.run(["subset", "-f", inputs[0], "--bbox", "-180,-90,180,90", "--format", "gpkg"])
        XCTAssertEqual(stdout.status, 64)
        XCTAssertTrue(stdout.stderr.contains("--format gpkg writes a file: give -o <out.gpkg>"), stdout.stderr)

        let bowtie = CLI.fixture("bad/bowtie.geojson")
        let asJSON = dir + "/repaired.geojson", asGPKG = dir + "/repaired.gpkg"
        XCTAssertEqual(try CLI.run(["validate", "-f", bowtie, "--repair", "-o", asJSON]).status, 0)
        let rep = try CLI.run(["validate", "-f", bowtie, "--repair", "-o", asGPKG])
        XCTAssertEqual(rep.status, 0, rep.stderr)
        XCTAssertTrue(rep.stdout.contains("written to \(asGPKG)"), rep.stdout)
        XCTAssertEqual(try read([asGPKG]).fences, try read([asJSON]).fences)
    }

    /// A shapefile zipped (`.shp.zip`, and a plain `.zip` opened through /vsizip/) reads as the shapefile.
    func testZippedShapefile() throws {
        let source = CLI.data("us_counties_va_nc.geojson")
        let shp = dir + "/counties.shp", zipped = dir + "/counties.shp.zip", plain = dir + "/export.zip"
        try ogr2ogr([shp, source])
        try ogr2ogr(["-f", "ESRI Shapefile", zipped, source])
        try FileManager.default.copyItem(atPath: zipped, toPath: plain)
        let expected = try read([shp])
        XCTAssertEqual(expected.fences.count, 234)
        XCTAssertEqual(try read([zipped]).fences, expected.fences)
        XCTAssertEqual(try read([plain]).fences, expected.fences)
        let ev = try events([source], log: "virginia_beach_ais.csv")
        XCTAssertEqual(try events([plain], log: "virginia_beach_ais.csv"), ev)
    }

    /// A GeoPackage with two layers: without --layer, exit 64 naming both; with it, each layer
    /// gives the fences and events of its source. A missing layer is named with the list.
    func testMultiLayerGeoPackage() throws {
        let gpkg = dir + "/multi.gpkg"
        try ogr2ogr(["-f", "GPKG", "-nln", "counties", gpkg, CLI.data("us_counties_va_nc.geojson")])
        try ogr2ogr(["-f", "GPKG", "-update", "-nln", "ports", gpkg, CLI.data("ports.csv")] + sourceOptions("ports.csv"))
        let ambiguous = try CLI.run(["validate", "--fences", gpkg])
        XCTAssertEqual(ambiguous.status, 64)
        XCTAssertEqual(ambiguous.stderr, "geofence validate: error: --layer: \(gpkg) has 2 layers with geometry (\"counties\", \"ports\"); choose one with --layer NAME\n")
        let missing = try CLI.run(["evaluate", "--fences", gpkg, "--layer", "roads", "--log", CLI.data("virginia_beach_ais.csv")])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("has no layer \"roads\" (layers: \"counties\", \"ports\")"), missing.stderr)
        for (layer, source) in [("counties", "us_counties_va_nc.geojson"), ("ports", "ports.csv")] {
            XCTAssertEqual(try read([gpkg], layer: layer).fences, try read([CLI.data(source)]).fences, layer)
            XCTAssertEqual(try events([gpkg], log: "virginia_beach_ais.csv", extra: ["--layer", layer]),
                           try events([CLI.data(source)], log: "virginia_beach_ais.csv"), layer)
        }
        // Problems name the layer and the FID.
        let v = try CLI.run(["validate", "--fences", gpkg, "--layer", "ports", "--min-radius", "2500"])
        XCTAssertTrue(v.stdout.contains("\(gpkg): layer \"ports\", FID "), v.stdout)
    }

    /// A shapefile projected by ogr2ogr (Web Mercator, and UTM 18N around the trace) is read in
    /// its own CRS: the fences land within 1e-7° of the WGS84 source and the events are the same.
    /// A conflicting --crs is refused; the same CRS is accepted.
    func testProjectedShapefile() throws {
        let source = CLI.data("us_counties_va_nc.geojson")
        let original = try read([source])
        let ev = try events([source, CLI.data("ports.csv")], log: "virginia_beach_ais.csv")
        for crs in ["EPSG:3857", "EPSG:32618"] {
            let shp = dir + "/projected-\(crs.dropFirst(5)).shp"
            try ogr2ogr(["-t_srs", crs, shp, source])
            let read = try read([shp])
            XCTAssertEqual(Set(read.fences.keys), Set(original.fences.keys))
            var worst = 0.0
            for (id, f) in read.fences {
                guard case .polygon(let a) = f.shape, case .polygon(let b)? = original.fences[id]?.shape else { XCTFail(id); continue }
                // Shapefile rings may come back in another order or orientation: compare vertex sets.
                let pa = a.flatMap { $0.flatMap { $0 } }, pb = b.flatMap { $0.flatMap { $0 } }
                XCTAssertEqual(pa.count, pb.count, id)
                let sa = pa.sorted { ($0.lon, $0.lat) < ($1.lon, $1.lat) }, sb = pb.sorted { ($0.lon, $0.lat) < ($1.lon, $1.lat) }
                for (x, y) in zip(sa, sb) { worst = max(worst, abs(x.lon - y.lon), abs(x.lat - y.lat)) }
            }
            XCTAssertLessThan(worst, 1e-7, crs)
            XCTAssertGreaterThan(worst, 0, "\(crs): the reprojection did happen")
            XCTAssertEqual(try events([shp, CLI.data("ports.csv")], log: "virginia_beach_ais.csv"), ev, crs)
            let conflict = try CLI.run(["validate", "--fences", shp, "--crs", "EPSG:2154"])
            XCTAssertEqual(conflict.status, 64)
            XCTAssertTrue(conflict.stderr.contains("--crs: 'EPSG:2154' conflicts with the CRS of \(shp) (layer \""), conflict.stderr)
            XCTAssertEqual(try CLI.run(["validate", "--fences", shp, "--crs", crs]).status, 0)
        }
    }

    /// A damaged GeoPackage: exit 65 with GDAL's message, no raw bytes; nothing GDAL recognises: the same.
    func testCorruptGeoPackage() throws {
        let good = dir + "/good.gpkg"
        try ogr2ogr(["-f", "GPKG", good, CLI.data("us_counties_va_nc.geojson")])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let truncated = dir + "/truncated.gpkg"
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: truncated))
        let r = try CLI.run(["validate", "--fences", truncated])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(r.stderr, "geofence validate: error: \(truncated): cannot read it as a vector data source (GDAL: database disk image is malformed)\n")
        let garbage = dir + "/garbage.gpkg"
        try Data([0x53, 0x51, 0x00, 0xFF, 0xFE, 0x01, 0x02, 0x1B]).write(to: URL(fileURLWithPath: garbage))
        let g = try CLI.run(["evaluate", "--fences", garbage, "--log", CLI.data("virginia_beach_ais.csv")])
        XCTAssertEqual(g.status, 65)
        XCTAssertEqual(g.stderr, "geofence evaluate: error: \(garbage): cannot read it as a vector data source (GDAL: `\(garbage)' not recognized as a supported file format.)\n")
        XCTAssertEqual(try CLI.run(["validate", "--fences", dir + "/absent.gpkg"]).status, 66)
    }
}
