import Foundation
import GeofenceTestSupport
import GeofenceKit

/// The index suites: build, memory, point query, nearest-20,
/// each for our `FenceIndex`, the brute force and GEOS's STRtree, in one run.
struct IndexSuites {
    let options: BenchOptions
    let report: Report
    let data: RealData?

    static let suiteNames = ["index-build", "index-memory", "index-point", "index-nearest20"]

    var sizes: [Int] { options.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000] }
    var pointQueries: Int { options.quick ? 4_000 : 200_000 }
    var nearestQueries: Int { options.quick ? 1_000 : 20_000 }
    var repeats: Int { options.quick ? 1 : 3 }

    func selected(_ suite: String, _ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "\(suite) \(workload)".lowercased().contains($0) }
    }

    func anySelected(_ workload: String) -> Bool { IndexSuites.suiteNames.contains { selected($0, workload) } }

    func run() throws {
        var workloads: [() throws -> CircleWorkload] = []
        var names: [String] = []
        for n in sizes {
            names.append("uniform \(Synthetic.sizeName(n))")
            workloads.append { Synthetic.uniform(count: n, queries: pointQueries, seed: options.seed) }
        }
        for n in sizes {
            names.append("clustered \(Synthetic.sizeName(n))")
            workloads.append { Synthetic.clustered(count: n, queries: pointQueries, seed: options.seed) }
        }
        if let data {
            var real: [(String, [String])] = [("ports", ["data/ports.csv"]), ("airports", ["data/airports.csv"])]
            if data.hasFetched && !options.quick { real.append(("cities", ["data/fetched/cities.csv"])) }
            for (name, files) in real {
                names.append("real \(name)")
                workloads.append { try realWorkload(name: name, files: files, data: data) }
            }
        } else {
            report.note("data/ not found (run from the repository or pass --data-root): real index workloads skipped")
        }
        for (name, make) in zip(names, workloads) where anySelected(name) {
            let w = try make()
            try runWorkload(w)
        }
        fitScaling()
    }

    /// Real fences; queries half real AIS fixes, half within 1.5 r of a random fence.
    func realWorkload(name: String, files: [String], data: RealData) throws -> CircleWorkload {
        let circles = try data.circles(files)
        let trace = try data.fixes(data.traceName).fixes
        var rng = SeededGenerator(benchmarkSeed: options.seed ^ 0x5EED_0003)
        var queries: [Point] = []
        for k in 0..<pointQueries {
            if k % 2 == 0 {
                let f = trace[rng.int(trace.count)]
                queries.append(Point(lat: f.lat, lon: f.lon))
            } else {
                let f = circles[rng.int(circles.count)]
                queries.append(Synthetic.offset(Point(lat: f.lat, lon: f.lon), metres: f.radius * 1.5 * rng.unit().squareRoot(),
                                                bearing: rng.uniform(0, 2 * Double.pi)))
            }
        }
        return CircleWorkload(name: "real \(name)", circles: circles, queries: queries,
                              description: "\(files.joined(separator: " + ")); queries half \(data.traceName) fixes, half within 1.5 r of a fence")
    }

    // MARK: One workload

    func runWorkload(_ w: CircleWorkload) throws {
        let n = w.circles.count
        report.section("index · \(w.name) (\(n) circles)")
        let brute = BruteForce(w.circles)

        // Build (and memory, measured on the last build).
        let buildRepeats = n >= 1_000_000 ? min(repeats, 2) : repeats
        var index = FenceIndex()
        var times: [Double] = []
        var rssDelta = 0
        for _ in 0..<buildRepeats {
            index = FenceIndex()
            ProcessMemory.trim()
            let r0 = ProcessMemory.read().rss
            let t = try Clock.seconds { index = try FenceIndex(circles: w.circles) }
            rssDelta = ProcessMemory.read().rss - r0
            times.append(t)
        }
        precondition(index.count == n, "index holds every fence")
        var geos: GEOSBaseline? = nil
        var geosTimes: [Double] = []
        var geosDelta = 0
        for _ in 0..<buildRepeats {
            geos = nil
            ProcessMemory.trim()
            let r0 = ProcessMemory.read().rss
            let t = Clock.seconds { geos = GEOSBaseline(index: index, slots: n) }
            geosDelta = ProcessMemory.read().rss - r0
            geosTimes.append(t)
        }
        let g = geos!
        if selected("index-build", w.name) {
            report.add(BenchResult(suite: "index-build", workload: w.name, engine: "ours", metric: "ms", value: Stats.median(times) * 1e3,
                                   higherIsBetter: false, fences: n, note: "FenceIndex(circles:), table + packed R-tree, median of \(buildRepeats)"))
            report.add(BenchResult(suite: "index-build", workload: w.name, engine: "geos", metric: "ms", value: Stats.median(geosTimes) * 1e3,
                                   higherIsBetter: false, fences: n, note: "rectangles + GEOSSTRtree_insert_r + first query (builds), capacity \(g.nodeCapacity)"))
        }
        if selected("index-memory", w.name) {
            let fp = index.footprint
            report.add(BenchResult(suite: "index-memory", workload: w.name, engine: "ours index", metric: "bytes/fence",
                                   value: Double(fp.indexBytes) / Double(n), higherIsBetter: false, fences: n,
                                   note: "FenceIndex.footprint.indexBytes: R-tree + buffers + live bits"))
            report.add(BenchResult(suite: "index-memory", workload: w.name, engine: "ours table", metric: "bytes/fence",
                                   value: Double(fp.tableBytes) / Double(n), higherIsBetter: false, fences: n,
                                   note: "ids, id map, compiled circles (footprint.tableBytes)"))
            report.add(BenchResult(suite: "index-memory", workload: w.name, engine: "ours rss", metric: "bytes/fence",
                                   value: Double(rssDelta) / Double(n), higherIsBetter: false, fences: n,
                                   note: "RSS growth while building (index + table; coarse below 100k)"))
            report.add(BenchResult(suite: "index-memory", workload: w.name, engine: "geos rss", metric: "bytes/fence",
                                   value: Double(geosDelta) / Double(n), higherIsBetter: false, fences: n,
                                   note: "RSS growth: rectangles + STRtree (coarse below 100k)"))
        }
        if selected("index-point", w.name) { pointSuite(w, index: index, brute: brute, geos: g) }
        if selected("index-nearest20", w.name) { nearestSuite(w, index: index, brute: brute, geos: g) }
    }

    // MARK: Point query

    func pointSuite(_ w: CircleWorkload, index: FenceIndex, brute: BruteForce, geos: GEOSBaseline) {
        let n = w.circles.count, q = w.queries
        let suite = "index-point"
        // Expected answers (fingerprints) from the index; the brute-force loop checks them on its sample,
        // the GEOS loop on every query.
        var buf: [Int32] = []
        buf.reserveCapacity(256)
        var expected = [UInt64](repeating: 0, count: q.count)
        var hits = 0
        for i in 0..<q.count {
            index.containing(lat: q[i].lat, lon: q[i].lon, into: &buf)
            expected[i] = Fingerprint.set(buf)
            hits += buf.count
        }
        let sampled = min(q.count, max(200, Int(5e8 / Double(n))))
        let (b, o) = timeContainment(index: index, queries: q, expected: expected, sampled: sampled, repeats: repeats) { brute.containing($0, into: &$1) }
        let points = q.map { geos.point($0) }
        let gs = timeQueries(count: q.count, repeats: repeats) { i in
            geos.containing(points[i], q[i], exact: brute, into: &buf)
            precondition(Fingerprint.set(buf) == expected[i], "index and GEOS STRtree disagree at query \(i) \(q[i])")
            return buf.count
        }
        for p in points { geos.destroy(p) }
        let avgHits = Double(hits) / Double(q.count)
        add(suite, w, "brute", b, n, note: "\(sampled) queries (sample), \(group(b))")
        add(suite, w, "ours", o, n, note: String(format: "%d queries, %.2f fences/answer, %@", q.count, avgHits, group(o)))
        add(suite, w, "geos", gs, n, note: "STRtree query + same exact test, \(group(gs))")
        report.ratio(suite, w.name, "ours/brute", o.perSecond / b.perSecond)
        report.ratio(suite, w.name, "ours/geos", o.perSecond / gs.perSecond)
    }

    func group(_ s: QueryStats) -> String { s.group == 1 ? "timed one by one" : "timed in groups of \(s.group)" }

    func add(_ suite: String, _ w: CircleWorkload, _ engine: String, _ s: QueryStats, _ n: Int, note: String) {
        report.add(BenchResult(suite: suite, workload: w.name, engine: engine, metric: "queries/s", value: s.perSecond, higherIsBetter: true,
                               p50: s.p50, p90: s.p90, p99: s.p99, fences: n,
                               note: note + String(format: "; wall %@/s, %.1f%% groups descheduled", Report.number(s.wallPerSecond), s.discarded * 100),
                               wallValue: s.wallPerSecond, discarded: s.discarded))
    }

    // MARK: Nearest-20

    func nearestSuite(_ w: CircleWorkload, index: FenceIndex, brute: BruteForce, geos: GEOSBaseline) {
        let n = w.circles.count
        let k = 20
        let q = Array(w.queries.prefix(nearestQueries))
        let suite = "index-nearest20"
        var scratch = NearestScratch(capacity: 1024)
        var res: [Neighbor] = []
        res.reserveCapacity(k)
        var expected = [UInt64](repeating: 0, count: q.count)
        var answers: [[Neighbor]] = []
        var kth: [Double] = []
        for i in 0..<q.count {
            index.nearest(k, lat: q[i].lat, lon: q[i].lon, scratch: &scratch, into: &res)
            expected[i] = Fingerprint.ordered(res)
            answers.append(res)
            if let last = res.last { kth.append(last.distance) }
        }
        let sampled = min(q.count, max(20, Int(3e7 / Double(n))))
        var bres: [Neighbor] = []
        let b = timeQueries(count: sampled, repeats: repeats) { i in
            brute.nearest(k, q[i], into: &bres)
            precondition(Fingerprint.ordered(bres) == expected[i], "index and brute force disagree on nearest-\(k) at query \(i) \(q[i])")
            for j in 0..<bres.count {
                precondition(abs(bres[j].distance - answers[i][j].distance) <= 0.001, "nearest distance differs by more than 1 mm at query \(i)")
            }
            return bres.count
        }
        let o = timeQueries(count: q.count, repeats: repeats) { i in
            index.nearest(k, lat: q[i].lat, lon: q[i].lon, scratch: &scratch, into: &res)
            precondition(Fingerprint.ordered(res) == expected[i], "index nearest answer changed at query \(i)")
            return res.count
        }
        let start = Stats.median(kth)
        var cand: [Int32] = []
        var rounds = 0
        let gs = timeQueries(count: q.count, repeats: repeats) { i in
            rounds &+= geos.nearest(k, q[i], startRadius: start, exact: brute, into: &bres, candidates: &cand)
            precondition(Fingerprint.ordered(bres) == expected[i], "index and GEOS expansion disagree on nearest-\(k) at query \(i) \(q[i])")
            return bres.count
        }
        add(suite, w, "brute", b, n, note: "\(sampled) queries (sample), two-pass bound/exact selection")
        add(suite, w, "ours", o, n, note: "\(q.count) queries, best-first, exact metres, \(group(o))")
        add(suite, w, "geos", gs, n, note: String(format: "STRtree window expansion from R=%.0f m, %@", start, group(gs)))
        report.ratio(suite, w.name, "ours/brute", o.perSecond / b.perSecond)
        report.ratio(suite, w.name, "ours/geos", o.perSecond / gs.perSecond)
    }

    // MARK: Scaling and targets

    func fitScaling() {
        for kind in ["uniform", "clustered"] {
            for (suite, label) in [("index-point", "point query"), ("index-nearest20", "nearest-20")] {
                let pts: [(x: Double, y: Double)] = report.results.compactMap { r in
                    guard r.suite == suite, r.engine == "ours", r.workload.hasPrefix(kind + " "), let f = r.fences else { return nil }
                    return (Double(f), 1 / r.value)
                }
                if pts.count >= 2, let k = Stats.logLogSlope(pts) {
                    report.scaling.append(ScalingFit(what: "\(label) time per query vs fences (\(kind))", exponent: k, points: pts))
                }
            }
            let build: [(x: Double, y: Double)] = report.results.compactMap { r in
                guard r.suite == "index-build", r.engine == "ours", r.workload.hasPrefix(kind + " "), let f = r.fences else { return nil }
                return (Double(f), r.value)
            }
            if build.count >= 2, let k = Stats.logLogSlope(build) {
                report.scaling.append(ScalingFit(what: "index build time vs fences (\(kind))", exponent: k, points: build))
            }
        }
    }
}
