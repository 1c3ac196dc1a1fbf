import Foundation
import GeofenceTestSupport
import GeofenceKit
import GeometryKit

/// Point queries over polygon fences: real outline sets (counties,
/// countries) and seeded synthetic sets made from real outlines (`Synthetic.polygons`,
/// uniform and clustered, 1k → 1M). Our index's point-in-polygon against GEOS's STRtree +
/// prepared `covers`, the reference the tests use, and against a brute force on a sample.
/// All boundary-inclusive, edges straight in lon/lat.
///
/// GEOS: the polygons' boxes (the same boxes as ours) in an STRtree, and for every candidate
/// `GEOSPreparedCovers_r` of the prepared (multi)polygon against a point geometry made before
/// timing (GEOS 3.11 has no `GEOSPreparedContainsXY_r`). Prepared geometries build their
/// edge index lazily on first use, so GEOS's warm-up pass runs every query once.
/// Every GEOS answer must equal ours; the brute force (`PolygonBruteForce`) is checked on
/// its sample.
struct PolygonSuite {
    let options: BenchOptions
    let report: Report
    let data: RealData

    var queries: Int { options.quick ? 2_000 : 100_000 }
    var repeats: Int { options.quick ? 1 : 3 }
    var syntheticSizes: [Int] { options.quick ? [1_000] : [1_000, 10_000, 100_000, 1_000_000] }

    func selected(_ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "index-polygons \(workload)".lowercased().contains($0) }
    }

    func run() throws {
        let counties = data.path("data/fetched/us_counties.geojson") != nil ? "data/fetched/us_counties.geojson" : "data/us_counties_va_nc.geojson"
        let countries = data.path("data/fetched/countries.geojson") != nil ? "data/fetched/countries.geojson" : "data/countries.geojson"
        for (name, file, worldQueries) in [("real counties", counties, false), ("real countries", countries, true)] where selected(name) {
            let (w, dropped) = try realWorkload(name: name, file: file, worldQueries: worldQueries)
            try measure(w, title: "\(file)", note: dropped > 0 ? "\(dropped) fence(s) with problems dropped by the loader (see data/README.md)" : nil)
        }
        var templates: OutlineTemplates? = nil
        for kind in ["uniform", "clustered"] {
            for n in syntheticSizes where selected("\(kind) \(Synthetic.sizeName(n))") {
                if templates == nil { templates = try OutlineTemplates.counties(data) }
                let t = templates!
                // Clustered answers grow with n (300 cities at every size: 240 polygons per answer at 1M),
                // so fewer queries there keep the run in minutes: 10k at 1M.
                let count = kind == "clustered" ? min(queries, Int(1e10 / Double(n))) : queries
                let w = Synthetic.polygons(kind: kind, count: n, queries: count, templates: t, seed: options.seed)
                try measure(w, title: t.summary, note: w.description)
            }
        }
        fitScaling()
    }

    /// A real outline set; queries half real AIS fixes, half uniform (in the set's box, or on the sphere).
    func realWorkload(name: String, file: String, worldQueries: Bool) throws -> (PolygonWorkload, dropped: Int) {
        let (fences, dropped) = try data.fences([file])
        let polygons: [PolygonRecord] = fences.compactMap { f in
            guard case .polygon(let p) = f.shape else { return nil }
            return PolygonRecord(id: f.id, polygons: p.map { $0.map { $0.map { Coordinate(lon: $0.lon, lat: $0.lat) } } })
        }
        let trace = try data.fixes(data.traceName).fixes
        var west = 180.0, south = 90.0, east = -180.0, north = -90.0
        for p in polygons {
            let xy = p.shape.coordinates
            for v in stride(from: 0, to: xy.count, by: 2) {
                west = min(west, xy[v]); east = max(east, xy[v]); south = min(south, xy[v + 1]); north = max(north, xy[v + 1])
            }
        }
        var rng = SeededGenerator(benchmarkSeed: options.seed ^ 0x5EED_0007)
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
        return (PolygonWorkload(name: name, polygons: polygons, queries: q,
                                description: "queries half \(data.traceName) fixes, half uniform \(worldQueries ? "on the sphere" : "in the set's box")"), dropped)
    }

    // MARK: One workload

    /// Build (ours, GEOS), point queries (brute sample, ours, GEOS), footprint.
    func measure(_ w: PolygonWorkload, title: String, note: String?) throws {
        let n = w.polygons.count, q = w.queries
        let vertices = w.polygons.reduce(0) { $0 + $1.shape.vertexCount }
        report.section("index-polygons · \(w.name) (\(n) polygons, \(vertices) vertices, \(title))")
        if let note { report.note(note) }

        // Ours.
        let fences = w.polygons.map(Fence.polygon)
        var index = FenceIndex()
        var times: [Double] = []
        for _ in 0..<(n >= 1_000_000 ? 1 : repeats) {
            index = FenceIndex()
            times.append(try Clock.seconds { index = try FenceIndex(fences) })
        }
        precondition(index.count == n, "index holds every polygon")
        // GEOS: STRtree over the same boxes, prepared geometries.
        let ctx = try GEOSContext()
        var prepared: [PreparedGeometry] = []
        prepared.reserveCapacity(n)
        var geos: GEOSBaseline? = nil
        let geosBuild = try Clock.seconds {
            geos = GEOSBaseline(index: index, slots: n)
            for p in w.polygons {
                let g = try ctx.multiPolygon(p.shape.polygons.map { $0.map { $0.map { (x: $0.lon, y: $0.lat) } } })
                prepared.append(try g.prepared())
            }
        }
        let tree = geos!
        report.add(BenchResult(suite: "index-polygons", workload: w.name, engine: "ours build", metric: "ms", value: Stats.median(times) * 1e3,
                               higherIsBetter: false, fences: n, note: "FenceIndex over the polygons, median of \(times.count)"))
        report.add(BenchResult(suite: "index-polygons", workload: w.name, engine: "geos build", metric: "ms", value: geosBuild * 1e3,
                               higherIsBetter: false, fences: n, note: "STRtree + GEOS geometries + GEOSPrepare (prepared indexes build lazily on first use)"))

        var buf: [Int32] = []
        var expected = [UInt64](repeating: 0, count: q.count)
        var hits = 0, nonEmpty = 0
        for i in 0..<q.count {
            index.containing(lat: q[i].lat, lon: q[i].lon, into: &buf)
            expected[i] = Fingerprint.set(buf)
            hits += buf.count
            if !buf.isEmpty { nonEmpty += 1 }
        }
        let brute = PolygonBruteForce(w.polygons)
        let sampled = min(q.count, max(200, Int(2e8 / Double(n))))
        let (b, o) = timeContainment(index: index, queries: q, expected: expected, sampled: sampled, repeats: repeats) { brute.containing($0, into: &$1) }
        let treePoints = q.map { tree.point($0) }
        let kitPoints = try q.map { try ctx.point(x: $0.lon, y: $0.lat) }
        defer { for p in treePoints { tree.destroy(p) } }
        let g = timeQueries(count: q.count, repeats: repeats, warmup: q.count) { i in
            buf.removeAll(keepingCapacity: true)
            tree.query(treePoints[i])
            for s in tree.collected where (try? prepared[Int(s)].covers(kitPoints[i])) == true { buf.append(s) }
            precondition(Fingerprint.set(buf) == expected[i], "index and GEOS prepared covers disagree at query \(i) \(q[i])")
            return buf.count
        }
        let answers = String(format: "%d queries, %.2f polygons/answer, %.0f%% non-empty", q.count, Double(hits) / Double(q.count),
                             100 * Double(nonEmpty) / Double(q.count))
        for (engine, s, extra) in [("brute", b, "\(sampled) queries (sample), box scan + crossing number"),
                                   ("ours", o, "\(answers), point-in-polygon over latitude bands"),
                                   ("geos", g, "STRtree + GEOSPreparedCovers_r")] {
            report.add(BenchResult(suite: "index-polygons", workload: w.name, engine: engine, metric: "queries/s", value: s.perSecond, higherIsBetter: true,
                                   p50: s.p50, p90: s.p90, p99: s.p99, fences: n,
                                   note: "\(extra); wall \(Report.number(s.wallPerSecond))/s",
                                   wallValue: s.wallPerSecond, discarded: s.discarded))
        }
        report.ratio("index-polygons", w.name, "ours/geos", o.perSecond / g.perSecond)
        report.ratio("index-polygons", w.name, "ours/brute", o.perSecond / b.perSecond)
        let fp = index.footprint
        report.add(BenchResult(suite: "index-polygons", workload: w.name, engine: "ours memory", metric: "bytes/fence",
                               value: Double(fp.indexBytes + fp.tableBytes) / Double(n), higherIsBetter: false, fences: n,
                               note: "footprint (index + table) per polygon"))
        report.add(BenchResult(suite: "index-polygons", workload: w.name, engine: "ours table", metric: "bytes/vertex",
                               value: Double(fp.tableBytes) / Double(vertices), higherIsBetter: false, fences: n,
                               note: "footprint.tableBytes per vertex (compiled polygons, bands, ids)"))
    }

    // MARK: Scaling

    /// Exponents of our query and build cost in the polygon count, per synthetic kind.
    func fitScaling() {
        for kind in ["uniform", "clustered"] {
            for (engine, label, perQuery) in [("ours", "polygon point query time per query", true), ("ours build", "polygon index build time", false)] {
                let pts: [(x: Double, y: Double)] = report.results.compactMap { r in
                    guard r.suite == "index-polygons", r.engine == engine, r.workload.hasPrefix(kind + " "), let f = r.fences else { return nil }
                    return (Double(f), perQuery ? 1 / r.value : r.value)
                }
                if pts.count >= 2, let k = Stats.logLogSlope(pts) {
                    let answers = perQuery && kind == "clustered" ? "; answers grow with n" : ""
                    report.scaling.append(ScalingFit(what: "\(label) vs polygons (\(kind)\(answers))", exponent: k, points: pts))
                }
            }
        }
    }
}
