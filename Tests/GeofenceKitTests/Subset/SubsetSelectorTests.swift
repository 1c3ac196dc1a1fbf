import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceLogs
@testable import GeofenceFences
@testable import GeofenceEvaluation
@testable import GeofencePlanning
@testable import GeofenceSimulation
@testable import GeofenceSubsets

/// Each selector against brute force (`SubsetReference`: every fence on its
/// own, circles by geodesics, polygons by GEOS), on real sets (airports,
/// countries, Virginia/North Carolina counties) plus synthetic polar and
/// antimeridian fences, with holes, antimeridian boxes and polar circles.
final class SubsetSelectorTests: XCTestCase {
    static let tolerance = 1e-3

    func fences() throws -> [EngineFence] {
        try SubsetData.cached(["airports.csv", "countries.geojson", "us_counties_va_nc.geojson", fixture("subset/polar_antimeridian.geojson")])
    }

    /// Compares a selection with the reference's verdicts (nil: too close to call).
    func assertSame(_ got: [Int32], _ expected: [Int: Bool?], _ fences: [EngineFence], _ label: String,
                    file: StaticString = #filePath, line: UInt = #line) {
        let mine = Set(got.map(Int.init))
        XCTAssertEqual(got.count, mine.count, "\(label): duplicates", file: file, line: line)
        var extra: [String] = [], missing: [String] = []
        for (i, verdict) in expected {
            guard let v = verdict else { continue }
            if v && !mine.contains(i) { missing.append(fences[i].id) }
            if !v && mine.contains(i) { extra.append(fences[i].id) }
        }
        for i in mine where expected[i] == nil { extra.append(fences[i].id) }
        XCTAssertTrue(extra.isEmpty && missing.isEmpty, "\(label): extra \(extra.prefix(10)) missing \(missing.prefix(10))", file: file, line: line)
        let unsure = expected.values.filter { $0 == nil }.count
        print("\(label): \(got.count) selected, \(unsure) too close to call")
    }

    /// Haversine lower bound (metres, generous) from a point to a box, for pruning the reference.
    static func boxLowerBound(lat: Double, lon: Double, _ box: GeoBox) -> Double {
        let pieces = box.crossesAntimeridian ? [(box.west, 180.0), (-180.0, box.east)] : [(box.west, box.east)]
        var best = Double.infinity
        let rad = Double.pi / 180
        for (w, e) in pieces {
            let dlat = max(0, box.south - lat, lat - box.north)
            var dlon = 0.0
            if !(lon >= w && lon <= e) {
                var a = w - lon; if a < 0 { a += 360 }
                var c = lon - e; if c < 0 { c += 360 }
                dlon = min(a, c, 180)
            }
            let cmin = max(0, cos(max(abs(box.south), abs(box.north)) * rad))
            let h = pow(sin(dlat * rad / 2), 2) + cos(lat * rad) * cmin * pow(sin(dlon * rad / 2), 2)
            best = min(best, 2 * asin(min(1, h.squareRoot())) * 6_371_008.8 * 0.98)
        }
        return best
    }

    static let boxes: [GeoBox] = [
        GeoBox(west: -10, south: 35, east: 20, north: 60),        // Europe
        GeoBox(west: -80, south: 36, east: -75, north: 39),       // Virginia: counties cut by the edges
        GeoBox(west: 175, south: -25, east: -175, north: -10),    // across the antimeridian (Fiji)
        GeoBox(west: 170, south: 60, east: -170, north: 90),      // across the antimeridian, to the pole
        GeoBox(west: -180, south: 80, east: 180, north: 90),      // polar cap
        GeoBox(west: -180, south: -90, east: 180, north: -80),    // south polar cap
        GeoBox(west: -180, south: -5, east: 180, north: 5),       // equatorial band, full width
        GeoBox(west: 4.8, south: 45.7, east: 4.9, north: 45.8),   // small
        GeoBox(west: 10, south: 40, east: 10, north: 50),         // a meridian segment
        GeoBox(west: 100, south: 85, east: 140, north: 89.5),     // near the pole, narrow
    ]

    func testBboxIntersects() throws {
        let fences = try fences()
        let compiled = try CompiledFences(fences)
        let ref = SubsetReference(fences)
        for box in SubsetSelectorTests.boxes {
            let region = ref.boxGeometry(box)
            defer { ref.destroy(region) }
            var expected: [Int: Bool?] = [:]
            for (i, f) in fences.enumerated() {
                switch f.shape {
                case .circle(let lat, let lon, let r):
                    if box.contains(lat: lat, lon: lon) { expected[i] = true; continue }
                    if SubsetSelectorTests.boxLowerBound(lat: lat, lon: lon, box) > r + 1 { expected[i] = false; continue }
                    let d = SubsetReference.boxDistance(lat: lat, lon: lon, box)
                    expected[i] = abs(d - r) < SubsetSelectorTests.tolerance ? .some(nil) : d <= r
                case .polygon:
                    expected[i] = ref.intersects(ref.geometry(i)!, region)
                }
            }
            let got = try FenceSubset.select(.bbox(box), in: compiled)
            XCTAssertEqual(got, got.sorted(), "input order")
            assertSame(got, expected, fences, "bbox \(box)")
        }
    }

    func testBboxWithin() throws {
        let fences = try fences()
        let compiled = try CompiledFences(fences)
        let ref = SubsetReference(fences)
        let g = Geodesic.wgs84
        for box in SubsetSelectorTests.boxes {
            let region = ref.boxGeometry(box)
            defer { ref.destroy(region) }
            var expected: [Int: Bool?] = [:]
            for (i, f) in fences.enumerated() {
                switch f.shape {
                case .circle(let lat, let lon, let r):
                    guard box.contains(lat: lat, lon: lon) else { expected[i] = false; continue }
                    let edges = SubsetSelectorTests.edges(box)
                    if (edges.map { SubsetSelectorTests.boxLowerBound(lat: lat, lon: lon, $0) }.min() ?? .infinity) > r * 1.03 + 10 {
                        expected[i] = true
                        continue
                    }
                    // The circle's edge, sampled every 2°: within when every sample is in the box;
                    // too close to call when the nearest sample is within the sampling error of an edge.
                    var inside = true, minIn = Double.infinity, maxOut = 0.0
                    for a in stride(from: 0.0, to: 360, by: 2) {
                        let q = g.direct(lat: lat, lon: lon, azimuth: a, distance: r)
                        if box.contains(lat: q.lat, lon: q.lon) {
                            minIn = min(minIn, edges.map { SubsetReference.boxDistance(lat: q.lat, lon: q.lon, $0) }.min() ?? .infinity)
                        } else {
                            inside = false
                            maxOut = max(maxOut, SubsetReference.boxDistance(lat: q.lat, lon: q.lon, box))
                        }
                    }
                    let tol = r * 1e-3 + 1
                    expected[i] = inside ? (minIn < tol ? .some(nil) : true) : (maxOut < tol ? .some(nil) : false)
                case .polygon:
                    expected[i] = ref.coversGeometry(region, ref.geometry(i)!)
                }
            }
            let got = try FenceSubset.select(.bbox(box), mode: .within, in: compiled)
            assertSame(got, expected, fences, "bbox within \(box)")
        }
    }

    /// The edges of a box as degenerate boxes (none at a pole; no meridians for a full-width box).
    static func edges(_ box: GeoBox) -> [GeoBox] {
        var e: [GeoBox] = []
        if box.south > -90 { e.append(GeoBox(west: box.west, south: box.south, east: box.east, north: box.south)) }
        if box.north < 90 { e.append(GeoBox(west: box.west, south: box.north, east: box.east, north: box.north)) }
        if !(box.west == -180 && box.east == 180) {
            e.append(GeoBox(west: box.west, south: box.south, east: box.west, north: box.north))
            e.append(GeoBox(west: box.east, south: box.south, east: box.east, north: box.north))
        }
        return e
    }

    func testWithinPolygonWithHoles() throws {
        let fences = try fences()
        let compiled = try CompiledFences(fences)
        let ref = SubsetReference(fences)
        let region = try SelectionRegion.load(path: fixture("subset/region_holes.geojson"))
        XCTAssertEqual(region.features.count, 5)
        let featureGeoms = region.features.map { f in ref.multiPolygon(f.map { $0.map { $0.map { ($0.lon, $0.lat) } } }) }
        defer { featureGeoms.forEach(ref.destroy) }
        let boxes = region.features.indices.map { region.box(of: $0) }
        for mode in SubsetMode.allCases {
            var expected: [Int: Bool?] = [:]
            for (i, f) in fences.enumerated() {
                switch f.shape {
                case .circle(let lat, let lon, let r):
                    var verdict: Bool? = false
                    for (k, feature) in region.features.enumerated() where SubsetSelectorTests.boxLowerBound(lat: lat, lon: lon, boxes[k]) <= r + 1 {
                        let covered = ref.covers(featureGeoms[k], lat: lat, lon: lon)
                        let b = ref.boundaryDistance(feature, lat: lat, lon: lon)
                        let v: Bool = mode == .intersects ? (covered || b <= r) : (covered && b >= r)
                        if abs(b - r) < SubsetSelectorTests.tolerance { if verdict == false { verdict = nil } } else if v { verdict = true }
                    }
                    expected[i] = .some(verdict)
                case .polygon:
                    expected[i] = featureGeoms.contains { mode == .intersects ? ref.intersects($0, ref.geometry(i)!) : ref.coversGeometry($0, ref.geometry(i)!) }
                }
            }
            let got = try FenceSubset.select(.within(region), mode: mode, in: compiled)
            assertSame(got, expected, fences, "within \(mode)")
            // The holes: the circle in the fixture's hole around 5,5 is out (intersects) only if it misses the ring.
            let inHole = fences.firstIndex { $0.id == "in-hole" }!
            XCTAssertFalse(got.contains(Int32(inHole)), "in-hole lies in the region's hole (\(mode))")
            if mode == .intersects {
                XCTAssertTrue(got.contains(Int32(fences.firstIndex { $0.id == "FJI" }!)), "Fiji meets the split region")
                XCTAssertTrue(got.contains(Int32(fences.firstIndex { $0.id == "pole-n-50km" }!)), "polar circle meets the arctic cap")
                XCTAssertFalse(got.contains(Int32(fences.firstIndex { $0.id == "51760" }!)), "Richmond city is in the Virginia hole")
            } else {
                // The holed fence's own hole covers the region's hole: it lies within the region.
                XCTAssertTrue(got.contains(Int32(fences.firstIndex { $0.id == "holed" }!)))
                XCTAssertTrue(got.contains(Int32(fences.firstIndex { $0.id == "equator-0" }!)))
                // On the seam between the two half caps: within neither feature.
                XCTAssertFalse(got.contains(Int32(fences.firstIndex { $0.id == "pole-n-50km" }!)))
            }
        }
    }

    func testNear() throws {
        let fences = try fences()
        let compiled = try CompiledFences(fences)
        let ref = SubsetReference(fences)
        let queries: [(Double, Double, Double)] = [
            (45.764, 4.8357, 20_000), (89.95, 0, 30_000), (-89.9, 45, 150_000), (-17.0, 180, 100_000), (-17.0, -180, 100_000),
            (36.85, -76.3, 5_000), (0, 0, 0), (37.54, -77.43, 0), (5, 5, 250_000),
        ]
        for (lat, lon, m) in queries {
            var expected: [Int: Bool?] = [:]
            for i in fences.indices {
                if ref.lowerBound(i, lat: lat, lon: lon) > m + 1 { expected[i] = false; continue }
                let d = ref.distance(i, lat: lat, lon: lon)
                expected[i] = (abs(d - m) < SubsetSelectorTests.tolerance && d > 0) ? .some(nil) : d <= m
            }
            let got = try FenceSubset.select(.near(lat: lat, lon: lon, radius: m), in: compiled)
            assertSame(got, expected, fences, "near \(lat),\(lon) \(m) m")
            let ds = got.map { compiled.index.distance(to: $0, lat: lat, lon: lon) }
            XCTAssertEqual(ds, ds.sorted(), "by distance")
        }
    }

    func testNearest() throws {
        let fences = try fences()
        let compiled = try CompiledFences(fences)
        let ref = SubsetReference(fences)
        for (lat, lon, n) in [(45.764, 4.8357, 10), (89.99, 100.0, 5), (-17.5, 179.9, 7), (-17.5, -179.9, 7), (36.85, -76.3, 15), (-89.0, 0.0, 3)] {
            let expected = ref.ranked(n, lat: lat, lon: lon).prefix(n)
            let got = try FenceSubset.select(.nearest(count: n, lat: lat, lon: lon), in: compiled)
            XCTAssertEqual(got.count, n)
            for (g, e) in zip(got, expected) where Int(g) != e.index {
                // Only polygon distances within 1 mm of each other may swap.
                let dg = ref.distance(Int(g), lat: lat, lon: lon)
                XCTAssertEqual(dg, e.distance, accuracy: SubsetSelectorTests.tolerance, "nearest \(n) at \(lat),\(lon): \(fences[Int(g)].id) vs \(fences[e.index].id)")
            }
            // Same ranking as `geofence nearest` (the index's nearest).
            XCTAssertEqual(got, compiled.index.nearest(n, lat: lat, lon: lon).map(\.slot))
        }
    }

    // MARK: Output

    func testGeoJSONKeepsPropertiesAndCSVRoundTrips() throws {
        let fences = try SubsetData.cached(["airports.csv"])
        let compiled = try CompiledFences(fences)
        let slots = try FenceSubset.select(.bbox(GeoBox(west: 4, south: 45, east: 6, north: 46)), in: compiled)
        let picked = slots.map { fences[Int($0)] }
        XCTAssertEqual(picked.count, 23)
        // GeoJSON: read back, same fences and properties.
        let loader = FenceLoader()
        let gj = try loader.load(bytes: Array(try SubsetWriter.text(picked, format: .geojson).utf8), name: "out.geojson", format: .geojson)
        XCTAssertEqual(gj.problems, [])
        XCTAssertEqual(gj.fences.map(\.id), picked.map(\.id))
        XCTAssertEqual(gj.fences.map(\.shape), picked.map(\.shape))
        XCTAssertEqual(gj.fences.map { JSONValue.object($0.properties) }, picked.map { JSONValue.object($0.properties) })
        // CSV: the same columns as the input, byte for byte for these rows.
        let csv = try SubsetWriter.text(picked, format: .csv)
        let lines = csv.split(separator: "\n")
        XCTAssertEqual(lines.first, "id,lat,lon,radius,name,iata,country")
        let source = try String(contentsOfFile: SubsetData.data("airports.csv"), encoding: .utf8).split(separator: "\n")
        let sourceRows = Dictionary(source.dropFirst().map { (String($0.split(separator: ",", maxSplits: 1)[0]), String($0)) }, uniquingKeysWith: { a, _ in a })
        for l in lines.dropFirst() {
            XCTAssertEqual(String(l), sourceRows[String(l.split(separator: ",", maxSplits: 1)[0])])
        }
        let back = try loader.load(bytes: Array(csv.utf8), name: "out.csv", format: .csv)
        XCTAssertEqual(back.fences.map(\.shape), picked.map(\.shape))
        // NDJSON: one feature per line.
        XCTAssertEqual(try SubsetWriter.text(picked, format: .ndjson).split(separator: "\n").count, 23)
        // Polygons cannot go to CSV.
        let poly = try SubsetData.cached(["us_counties_va_nc.geojson"]).prefix(2)
        XCTAssertThrowsError(try SubsetWriter.text(Array(poly), format: .csv)) { XCTAssertEqual(($0 as? GeofenceError)?.category, .badArgument) }
    }

    func testCSVQuotesAndMixedProperties() throws {
        let f = EngineFence(id: "a,b", shape: .circle(lat: 1.5, lon: -2, radius: 10),
                            properties: [("note", .string("say \"hi\"")), ("n", .number("1.50")), ("ok", .bool(true)), ("tags", .array([.string("x")])), ("radius", .number("10"))],
                            source: SourceLocation(file: "x"))
        let g = EngineFence(id: "c", shape: .circle(lat: 0, lon: 0, radius: 2.5), properties: [("extra", .null), ("n", .number("2"))], source: SourceLocation(file: "x"))
        XCTAssertEqual(try SubsetWriter.text([f, g], format: .csv),
                       "id,lat,lon,radius,note,n,ok,tags,extra\n\"a,b\",1.5,-2,10,\"say \"\"hi\"\"\",1.50,true,\"[\"\"x\"\"]\",\n" +
                       "c,0,0,2.5,,2,,,\n")
    }

    func testRegionFileErrors() throws {
        let dir = NSTemporaryDirectory() + "subset-region-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func load(_ text: String) -> GeofenceError? {
            let p = dir + "/r.geojson"
            XCTAssertTrue(FileManager.default.createFile(atPath: p, contents: Data(text.utf8)))
            do { _ = try SelectionRegion.load(path: p); return nil } catch { return error }
        }
        XCTAssertEqual(load(#"{"type":"Point","coordinates":[0,0]}"#)?.description, "\(dir)/r.geojson: geometry: Point is not a polygon (give Polygon or MultiPolygon geometries)")
        XCTAssertEqual(load(#"{"type":"FeatureCollection","features":[]}"#)?.description, "\(dir)/r.geojson: no Polygon or MultiPolygon to select with")
        XCTAssertEqual(load(#"{"type":"Polygon","coordinates":[[[170,0],[-170,0],[-170,1],[170,0]]]}"#)?.description,
                       "\(dir)/r.geojson: geometry: exterior ring crosses the antimeridian at point 1; split it at ±180° (RFC 7946 §3.1.9)")
        XCTAssertEqual(load("{")?.category, .badData)
        do { _ = try SelectionRegion.load(path: dir + "/none.geojson"); XCTFail() } catch { XCTAssertEqual(error.category, .missingInput) }
        // A self-intersecting (bow-tie) region is reported with GEOS's reason.
        let compiled = try CompiledFences(try SubsetData.cached(["ports.csv"]))
        let bowtie = SelectionRegion(features: [[[[Coordinate(lon: 0, lat: 0), Coordinate(lon: 1, lat: 1), Coordinate(lon: 1, lat: 0), Coordinate(lon: 0, lat: 1), Coordinate(lon: 0, lat: 0)]]]])
        XCTAssertThrowsError(try FenceSubset.select(.within(bowtie), in: compiled)) { e in
            XCTAssertEqual((e as? GeofenceError)?.category, .badData)
            XCTAssertTrue("\(e)".contains("invalid polygon: Self-intersection"), "\(e)")
        }
    }
}
