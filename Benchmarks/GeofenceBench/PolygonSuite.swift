import FenceIndex
import Foundation
import GeofenceEngine
import GeometryKit

/// Point queries over real polygon outlines (issue 3 item 2, issue 7 "polygons from real
/// outlines"): our index's point-in-polygon against GEOS's STRtree + prepared `covers`, the
/// reference the tests use. Both boundary-inclusive, edges straight in lon/lat.
///
/// GEOS: the polygons' boxes (the same boxes as ours) in an STRtree, and for every candidate
/// `GEOSPreparedCovers_r` of the prepared (multi)polygon against a point geometry made before
/// timing (GEOS 3.11 has no `GEOSPreparedContainsXY_r`). Every GEOS answer must equal ours.
/// No brute force here: scanning every polygon is GEOS's job without the tree, and the tree
/// candidates are already checked against GEOS's own predicate.
struct PolygonSuite {
    let options: BenchOptions
    let report: Report
    let data: RealData

    var queries: Int { options.quick ? 2_000 : 100_000 }
    var repeats: Int { options.quick ? 1 : 3 }

    func selected(_ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "index-polygons \(workload)".lowercased().contains($0) }
    }

    func run() throws {
        let counties = data.path("data/fetched/us_counties.geojson") != nil ? "data/fetched/us_counties.geojson" : "data/us_counties_va_nc.geojson"
        let countries = data.path("data/fetched/countries.geojson") != nil ? "data/fetched/countries.geojson" : "data/countries.geojson"
        for (name, file, worldQueries) in [("real counties", counties, false), ("real countries", countries, true)] where selected(name) {
            try runWorkload(name: name, file: file, worldQueries: worldQueries)
        }
    }

    func runWorkload(name: String, file: String, worldQueries: Bool) throws {
        let (fences, dropped) = try data.fences([file])
        let polygons: [(id: String, parts: [[[Coordinate]]])] = fences.compactMap { f in
            if case .polygon(let p) = f.shape { return (f.id, p) }
            return nil
        }
        let n = polygons.count
        let vertices = polygons.reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } }
        report.section("index-polygons · \(name) (\(n) polygons, \(vertices) vertices, \(file))")
        if dropped > 0 { report.note("\(dropped) fence(s) with problems dropped by the loader (see data/README.md)") }

        // Queries: half real AIS fixes, half uniform (in the set's box, or on the sphere).
        let trace = try data.fixes(data.traceName).fixes
        var west = 180.0, south = 90.0, east = -180.0, north = -90.0
        for p in polygons { for part in p.parts { for ring in part { for c in ring {
            west = min(west, c.lon); east = max(east, c.lon); south = min(south, c.lat); north = max(north, c.lat)
        } } } }
        var rng = SeededRandom(seed: options.seed ^ 0x5EED_0007)
        var q: [Point] = []
        for k in 0..<queries {
            if k % 2 == 0 {
                let f = trace[rng.int(trace.count)]
                q.append(Point(lat: f.lat, lon: f.lon))
            } else if worldQueries {
                q.append(Synthetic.uniformOnSphere(&rng))
            } else {
                q.append(Point(lat: rng.uniform(south, north), lon: rng.uniform(west, east)))
            }
        }

        // Ours.
        var index = FenceIndex()
        let build = try Clock.seconds {
            index = try FenceIndex(polygons.map { p in
                .polygon(PolygonFence(id: p.id, polygons: p.parts.map { $0.map { $0.map { LonLat(lon: $0.lon, lat: $0.lat) } } }))
            })
        }
        // GEOS: STRtree over the same boxes, prepared geometries.
        let ctx = try GEOSContext()
        var prepared: [PreparedGeometry] = []
        var geos: GEOSBaseline? = nil
        let geosBuild = try Clock.seconds {
            geos = GEOSBaseline(index: index, slots: n)
            for p in polygons {
                let g = try ctx.multiPolygon(p.parts.map { $0.map { $0.map { (x: $0.lon, y: $0.lat) } } })
                prepared.append(try g.prepared())
            }
        }
        let tree = geos!
        report.add(BenchResult(suite: "index-polygons", workload: name, engine: "ours build", metric: "ms", value: build * 1e3,
                               higherIsBetter: false, fences: n, note: "FenceIndex over the polygons"))
        report.add(BenchResult(suite: "index-polygons", workload: name, engine: "geos build", metric: "ms", value: geosBuild * 1e3,
                               higherIsBetter: false, fences: n, note: "STRtree + GEOS geometries + GEOSPrepare (prepared indexes build lazily on first use)"))

        var buf: [Int32] = []
        var expected = [UInt64](repeating: 0, count: q.count)
        var hits = 0
        for i in 0..<q.count {
            index.containing(lat: q[i].lat, lon: q[i].lon, into: &buf)
            expected[i] = Fingerprint.set(buf)
            hits += buf.count
        }
        let treePoints = q.map { tree.point($0) }
        let kitPoints = try q.map { try ctx.point(x: $0.lon, y: $0.lat) }
        defer { for p in treePoints { tree.destroy(p) } }
        let o = timeQueries(count: q.count, repeats: repeats) { i in
            index.containing(lat: q[i].lat, lon: q[i].lon, into: &buf)
            precondition(Fingerprint.set(buf) == expected[i], "index answer changed at query \(i)")
            return buf.count
        }
        let g = timeQueries(count: q.count, repeats: repeats) { i in
            buf.removeAll(keepingCapacity: true)
            tree.query(treePoints[i])
            for s in tree.collected where (try? prepared[Int(s)].covers(kitPoints[i])) == true { buf.append(s) }
            precondition(Fingerprint.set(buf) == expected[i], "index and GEOS prepared covers disagree at query \(i) \(q[i])")
            return buf.count
        }
        let note = String(format: "%d queries, %.2f polygons/answer", q.count, Double(hits) / Double(q.count))
        for (engine, s, extra) in [("ours", o, "point-in-polygon over latitude bands"), ("geos", g, "STRtree + GEOSPreparedCovers_r")] {
            report.add(BenchResult(suite: "index-polygons", workload: name, engine: engine, metric: "queries/s", value: s.perSecond, higherIsBetter: true,
                                   p50: s.p50, p90: s.p90, p99: s.p99, fences: n,
                                   note: "\(note), \(extra); wall \(Report.number(s.wallPerSecond))/s",
                                   wallValue: s.wallPerSecond, discarded: s.discarded))
        }
        report.ratio("index-polygons", name, "ours/geos", o.perSecond / g.perSecond)
        let fp = index.footprint
        report.add(BenchResult(suite: "index-polygons", workload: name, engine: "ours table", metric: "bytes/vertex",
                               value: Double(fp.tableBytes) / Double(vertices), higherIsBetter: false, fences: n,
                               note: "footprint.tableBytes per vertex (compiled polygons, bands, ids)"))
    }
}
