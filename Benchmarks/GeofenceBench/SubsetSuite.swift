import Dispatch
import GeofenceTestSupport
import Foundation
import GeofenceKit

/// Subsets (docs/subsets.md): tile-bundle builds, the bbox / radius /
/// nearest-N selectors of `geofence subset`, and the end-to-end bundle write.
///
/// - **Bundles**: `TileBundler.bundle(for:scratch:)` over every tile of a region at a zoom,
///   1 thread (each tile timed alone) and 2 threads (tiles handed out in chunks, one
///   `Scratch` per worker; answers must equal the 1-thread ones). The baseline is the
///   brute force with the same guarantee: the centre-only bound over a scan of every fence,
///   {F : d(c, F) ≤ D_k(c) + 2R} (R: centre-to-corner distance), timed on sampled tiles.
///   On those tiles the coverage guarantee is `precondition`ed: at the corners, the centre and
///   random points, the exact k nearest by brute force are all in our bundle (and the baseline's).
/// - **Selectors**: `FenceSubset.select` against a scan of every fence, answers identical
///   (same slots, same order) on a sample, unchanged inside the timed loop.
/// - **Write**: `TileBundleWriter.build` (GeoJSON tiles, SHA-256 manifest) into a temporary
///   directory, removed afterwards; bytes/s of wall time.
struct SubsetSuite {
    let options: BenchOptions
    let report: Report
    let data: RealData?

    /// The planner's k and the CLI's default reach.
    static let k = 20
    static let reach = 100_000.0
    static let threads = 2
    /// Selector parameters: bbox side (degrees), radius (metres), N.
    static let boxSide = 0.5
    static let radius = 20_000.0
    static let nearestCount = 100
    /// The end-to-end write is skipped above this many fences over all tiles.
    static let maxWriteRecords = 2_000_000

    /// Europe, for the real sets.
    static let europe = GeoBox(west: -11, south: 35, east: 32, north: 60)

    var sizes: [Int] { options.quick ? [10_000] : [10_000, 100_000, 1_000_000] }
    var selectorQueries: Int { options.quick ? 200 : 2_000 }
    /// Fewer selector queries at 1M: clustered answers hold thousands of fences.
    func selectorQueries(_ n: Int) -> Int { n >= 1_000_000 ? selectorQueries / 4 : selectorQueries }
    var repeats: Int { options.quick ? 1 : 3 }

    /// A fence set, query points for the selectors, and the tiles to bundle.
    struct Workload {
        var name: String
        var fences: [Fence]
        var circles: [CircleRecord]
        var queries: [Point]
        var range: TileRange
        var region: String
    }

    func selected(_ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "subset \(workload)".lowercased().contains($0) }
    }

    func run() throws {
        // World tiles for the synthetic sets: tens of thousands at most (zoom 7: 16,384).
        let worldZoom = options.quick ? 5 : 7
        var makers: [(String, () throws -> Workload)] = []
        for kind in ["uniform", "clustered"] {
            for n in sizes {
                makers.append(("\(kind) \(Synthetic.sizeName(n))", {
                    let w = kind == "uniform" ? Synthetic.uniform(count: n, queries: selectorQueries, seed: options.seed)
                                              : Synthetic.clustered(count: n, queries: selectorQueries, seed: options.seed)
                    return Workload(name: w.name, fences: RandomWalk.engineFences(w.circles), circles: w.circles, queries: w.queries,
                                    range: try Tile.world(zoom: worldZoom), region: "world z\(worldZoom)")
                }))
            }
        }
        if let data {
            var real = [("airports", "data/airports.csv")]
            if data.hasFetched && !options.quick { real.append(("cities", "data/fetched/cities.csv")) }
            let zoom = options.quick ? 8 : 10
            for (name, file) in real {
                makers.append(("real \(name)", { try realWorkload(name: name, file: file, data: data, zoom: zoom) }))
            }
        } else {
            report.note("data/ not found: real subset workloads skipped")
        }
        for (name, make) in makers where selected(name) {
            let w = try make()
            report.section("subset · \(w.name) (\(w.circles.count) circles)")
            let compiled = try CompiledFences(w.fences)
            let brute = BruteForce(w.circles)
            let bundler = TileBundler(compiled: compiled, k: SubsetSuite.k, reach: SubsetSuite.reach)
            let built = bundles(w, bundler: bundler, brute: brute)
            selectors(w, compiled: compiled, brute: brute)
            try write(w, bundler: bundler, expected: built)
        }
    }

    /// Real circles over Europe; queries within 20 km of random fences.
    func realWorkload(name: String, file: String, data: RealData, zoom: Int) throws -> Workload {
        let fences = try data.fences([file]).fences
        let circles: [CircleRecord] = fences.map { f in
            guard case .circle(let lat, let lon, let r) = f.shape else { preconditionFailure("\(file): \(f.id) is not a circle") }
            return CircleRecord(id: f.id, lat: lat, lon: lon, radius: r)
        }
        var rng = SeededGenerator(benchmarkSeed: options.seed ^ 0x5EED_0007)
        let queries: [Point] = (0..<selectorQueries).map { _ in
            let f = circles[rng.int(circles.count)]
            return Synthetic.offset(Point(lat: f.lat, lon: f.lon), metres: rng.uniform(0, 20_000), bearing: rng.uniform(0, 2 * Double.pi))
        }
        return Workload(name: "real \(name)", fences: fences, circles: circles, queries: queries,
                        range: try Tile.covering(SubsetSuite.europe, zoom: zoom), region: "Europe z\(zoom)")
    }

    // MARK: Tile bundles

    /// Per-tile answers of one pass: fence count (-1 omitted) and an order-dependent fingerprint.
    struct TileAnswers: Equatable {
        var counts: [Int]
        var hashes: [UInt64]
    }

    /// Times the bundles of every tile of the range (1 and 2 threads) and the brute-force
    /// baseline on sampled tiles, checking the coverage guarantee there. Returns the 1-thread answers.
    func bundles(_ w: Workload, bundler: TileBundler, brute: BruteForce) -> TileAnswers {
        let tiles = w.range.columnList.flatMap { x in w.range.rows.map { Tile(z: w.range.zoom, x: x, y: $0) } }
        let n = w.circles.count, k = SubsetSuite.k

        // 1 thread, each tile timed alone (after a short warm-up).
        var scratch = TileBundler.Scratch()
        for t in tiles.prefix(64) { blackHole(bundler.bundle(for: t, scratch: &scratch)) }
        var answers = TileAnswers(counts: [], hashes: [])
        var perTile: [Double] = []
        var tileTime = [Double](repeating: 0, count: tiles.count)
        let (wall, cpu) = Clock.wallAndCPU {
            for (i, t) in tiles.enumerated() {
                let t0 = Clock.now()
                let b = bundler.bundle(for: t, scratch: &scratch)
                let dt = Clock.now() - t0
                tileTime[i] = Double(dt)
                answers.counts.append(b?.slots.count ?? -1)
                answers.hashes.append(b.map { SubsetSuite.fingerprint($0.slots) } ?? 0)
                if b != nil { perTile.append(Double(dt)) }
            }
        }
        let sizes = answers.counts.filter { $0 >= 0 }
        let written = sizes.count, total = sizes.reduce(0, +)
        let mean = written > 0 ? Double(total) / Double(written) : 0
        perTile.sort()
        let workload = w.name
        report.add(BenchResult(suite: "subset", workload: workload, engine: "bundle 1 thread", metric: "tiles/s", value: Double(tiles.count) / wall,
                               higherIsBetter: true, p50: Stats.quantile(perTile, 0.5), p90: Stats.quantile(perTile, 0.9),
                               p99: Stats.quantile(perTile, 0.99), fences: n,
                               note: String(format: "%@: %d tiles, %d bundled, %d omitted; %@ fences/s; %.2f s; percentiles per bundled tile",
                                            w.region, tiles.count, written, tiles.count - written, Report.number(Double(total) / wall), wall),
                               cpuValue: Double(tiles.count) / cpu))

        // 2 threads: the same answers.
        let work = TileWork(tiles: tiles)
        let (wall2, cpu2) = Clock.wallAndCPU {
            DispatchQueue.concurrentPerform(iterations: SubsetSuite.threads) { _ in
                var scratch = TileBundler.Scratch()
                while let chunk = work.claim(16) {
                    var counts: [Int] = [], hashes: [UInt64] = []
                    for t in tiles[chunk] {
                        let b = bundler.bundle(for: t, scratch: &scratch)
                        counts.append(b?.slots.count ?? -1)
                        hashes.append(b.map { SubsetSuite.fingerprint($0.slots) } ?? 0)
                    }
                    work.store(chunk, counts: counts, hashes: hashes)
                }
            }
        }
        precondition(work.answers == answers, "bundles differ between 1 and \(SubsetSuite.threads) threads")
        report.add(BenchResult(suite: "subset", workload: workload, engine: "bundle \(SubsetSuite.threads) threads", metric: "tiles/s",
                               value: Double(tiles.count) / wall2, higherIsBetter: true, fences: n,
                               note: String(format: "same tiles, one Scratch per worker, chunks of 16; %@ fences/s; %.2f s, %.2f CPU-s; answers equal 1 thread",
                                            Report.number(Double(total) / wall2), wall2, cpu2),
                               cpuValue: Double(tiles.count) / cpu2))
        report.ratio("subset", workload, "\(SubsetSuite.threads)t/1t", wall / wall2)

        // Brute force on sampled bundled tiles, and the coverage guarantee there.
        let bundled = answers.counts.indices.filter { answers.counts[$0] >= 0 }
        var bruteTimes: [Double] = [], oursTime = 0.0, bruteSizes: [Int] = [], unionSizes: [Int] = [], ourSizes: [Int] = []
        var rng = SeededGenerator(benchmarkSeed: options.seed ^ 0x5EED_0008)
        var near: [Neighbor] = []
        for i in sampleIndices(bundled.count, n: n).map({ bundled[$0] }) {
            let ours = bundler.bundle(for: tiles[i], scratch: &scratch)!.slots
            precondition(SubsetSuite.fingerprint(ours) == answers.hashes[i], "bundle of \(tiles[i]) changed")
            let t0 = Clock.now()
            let base = bruteBundle(tiles[i], brute: brute)
            bruteTimes.append(Double(Clock.now() - t0))
            oursTime += tileTime[i]
            let oursSet = Set(ours), baseSet = Set(base)
            var union = Set<Int32>()
            for p in SubsetSuite.samplePoints(tiles[i], &rng) {
                brute.nearest(k, p, into: &near)
                for nb in near {
                    precondition(oursSet.contains(nb.slot), "tile \(tiles[i]): fence \(w.circles[Int(nb.slot)].id), among the \(k) nearest to \(p), not in the bundle")
                    precondition(baseSet.contains(nb.slot), "tile \(tiles[i]): brute-force bundle misses a nearest fence")
                    union.insert(nb.slot)
                }
            }
            bruteSizes.append(base.count); unionSizes.append(union.count); ourSizes.append(ours.count)
        }
        let sampled = bruteTimes.count
        if sampled > 0 {
            let bruteRate = Double(sampled) / (bruteTimes.reduce(0, +) / 1e9)
            let oursRate = Double(sampled) / (oursTime / 1e9)
            bruteTimes.sort()
            func avg(_ xs: [Int]) -> Double { Double(xs.reduce(0, +)) / Double(max(1, xs.count)) }
            report.add(BenchResult(suite: "subset", workload: workload, engine: "bundle brute", metric: "tiles/s", value: bruteRate,
                                   higherIsBetter: true, p50: Stats.quantile(bruteTimes, 0.5), p90: Stats.quantile(bruteTimes, 0.9),
                                   p99: Stats.quantile(bruteTimes, 0.99), fences: n,
                                   note: String(format: "%d sampled tiles, scan of all fences, centre bound d(c,F) <= D_k(c) + 2R; ours there %@ tiles/s; %.1f fences/bundle vs ours %.1f",
                                                sampled, Report.number(oursRate), avg(bruteSizes), avg(ourSizes))))
            report.ratio("subset", workload, "bundle ours/brute", oursRate / bruteRate)
            report.add(BenchResult(suite: "subset", workload: workload, engine: "bundle size", metric: "fences/tile", value: mean,
                                   higherIsBetter: false, fences: n,
                                   note: String(format: "k %d: mean %.2f k, p50 %d, p99 %d, max %d; coverage checked at %d sampled tiles (9 points each): exact k-nearest union there %.1f, ours %.1f, brute %.1f",
                                                k, mean / Double(k), SubsetSuite.quantile(sizes, 0.5), SubsetSuite.quantile(sizes, 0.99),
                                                sizes.max() ?? 0, sampled, avg(unionSizes), avg(ourSizes), avg(bruteSizes))))
        }
        return answers
    }

    /// Evenly spread tile indices for the brute-force sample (fewer for large sets: a scan costs O(n)).
    func sampleIndices(_ count: Int, n: Int) -> [Int] {
        let want = options.quick ? 24 : min(200, max(16, 20_000_000 / n))
        let step = max(1, count / want)
        return Array(stride(from: step / 2, to: count, by: step))
    }

    /// The brute-force bundle: every fence F with d(c, F) ≤ D_k(c) + 2R, c the box centre, R the
    /// largest centre-to-corner geodesic (the farthest point of a lon/lat box under 90° wide is a
    /// corner). For p in the tile, D_k(p) ≤ D_k(c) + R and d(c, F) ≤ d(p, F) + R, so the k nearest to
    /// p pass. Distances bounded outward (sphere bound); sorted slots.
    func bruteBundle(_ tile: Tile, brute: BruteForce) -> [Int32] {
        let b = tile.box
        let c = Point(lat: (b.south + b.north) / 2, lon: (b.west + b.east) / 2)
        let g = Geodesic.wgs84
        let corners = [(b.north, b.west), (b.north, b.east), (b.south, b.west), (b.south, b.east)]
        let r = corners.map { g.distance(lat1: c.lat, lon1: c.lon, lat2: $0.0, lon2: $0.1) }.max()! * (1 + 1e-9) + 1e-6
        var near: [Neighbor] = []
        brute.nearest(SubsetSuite.k, c, into: &near)
        let threshold = (near.last?.distance ?? .infinity) + 2 * r
        let cosC = cos(c.lat * BruteForce.d2r)
        var out: [Int32] = []
        for i in 0..<brute.count {
            let lower = BruteForce.bounds(angle: BruteForce.angle(brute.lat[i], brute.lon[i], brute.cosLat[i], c.lat, c.lon, cosC)).lower
            if lower - brute.radius[i] <= threshold { out.append(Int32(i)) }
        }
        return out
    }

    /// Corners, centre and four random interior points of a tile.
    static func samplePoints(_ tile: Tile, _ rng: inout SeededGenerator) -> [Point] {
        let b = tile.box
        var out = [Point(lat: b.north, lon: b.west), Point(lat: b.north, lon: b.east), Point(lat: b.south, lon: b.west),
                   Point(lat: b.south, lon: b.east), Point(lat: (b.south + b.north) / 2, lon: (b.west + b.east) / 2)]
        for _ in 0..<4 { out.append(Point(lat: rng.uniform(b.south, b.north), lon: rng.uniform(b.west, b.east))) }
        return out
    }

    // MARK: Selectors

    /// bbox, radius and nearest-N selection: ours vs a scan of every fence, same answers.
    func selectors(_ w: Workload, compiled: CompiledFences, brute: BruteForce) {
        let n = w.circles.count, q = Array(w.queries.prefix(selectorQueries(n)))
        let h = SubsetSuite.boxSide / 2
        let boxes = q.map { GeoBox(west: max(-180, $0.lon - h), south: max(-90, $0.lat - h), east: min(180, $0.lon + h), north: min(90, $0.lat + h)) }
        let cases: [(String, String, (Int) -> SubsetSelector, (Int) -> [Int32])] = [
            ("bbox", "\(SubsetSuite.boxSide)° box around the query, intersects", { .bbox(boxes[$0]) },
             { bruteBox(boxes[$0], brute) }),
            ("radius", "fences within \(Int(SubsetSuite.radius / 1000)) km, by distance", { .near(lat: q[$0].lat, lon: q[$0].lon, radius: SubsetSuite.radius) },
             { bruteNear(q[$0], SubsetSuite.radius, brute) }),
            ("nearest", "\(SubsetSuite.nearestCount) nearest", { .nearest(count: SubsetSuite.nearestCount, lat: q[$0].lat, lon: q[$0].lon) },
             { i in var out: [Neighbor] = []; brute.nearest(SubsetSuite.nearestCount, q[i], into: &out); return out.map(\.slot) }),
        ]
        for (name, what, selector, scan) in cases {
            var expected: [UInt64] = []
            var hits = 0
            for i in q.indices {
                let s = SubsetSuite.select(selector(i), compiled)
                expected.append(SubsetSuite.fingerprint(s))
                hits += s.count
            }
            let sampled = min(q.count, max(20, Int(3e7 / Double(n))))
            let b = timeQueries(count: sampled, repeats: 1) { i in
                let s = scan(i)
                precondition(SubsetSuite.fingerprint(s) == expected[i], "subset \(name) differs from brute force at query \(i) \(q[i])")
                return s.count
            }
            let o = timeQueries(count: q.count, repeats: repeats) { i in
                let s = SubsetSuite.select(selector(i), compiled)
                precondition(SubsetSuite.fingerprint(s) == expected[i], "subset \(name) answer changed at query \(i)")
                return s.count
            }
            for (engine, s, note) in [("\(name) brute", b, "\(sampled) queries (sample), scan of every fence; answers identical"),
                                      ("\(name) ours", o, String(format: "FenceSubset.select, %d queries, %@; %.1f fences/answer", q.count, what,
                                                                 Double(hits) / Double(q.count)))] {
                report.add(BenchResult(suite: "subset", workload: w.name, engine: engine, metric: "queries/s", value: s.perSecond,
                                       higherIsBetter: true, p50: s.p50, p90: s.p90, p99: s.p99, fences: n,
                                       note: note + "; wall \(Report.number(s.wallPerSecond))/s", wallValue: s.wallPerSecond, discarded: s.discarded))
            }
            report.ratio("subset", w.name, "\(name) ours/brute", o.perSecond / b.perSecond)
        }
    }

    /// Circles meeting the box (geodesic distance from the centre to the box ≤ radius), in slot
    /// order; a latitude-gap reject (the meridian arc is the shortest way between parallels).
    func bruteBox(_ box: GeoBox, _ brute: BruteForce) -> [Int32] {
        var out: [Int32] = []
        for i in 0..<brute.count {
            let lat = brute.lat[i]
            if box.contains(lat: lat, lon: brute.lon[i]) { out.append(Int32(i)); continue }
            if max(box.south - lat, lat - box.north) > brute.reach[i] { continue }
            if FenceIndex.geodesicDistance(lat: lat, lon: brute.lon[i], to: box) <= brute.radius[i] { out.append(Int32(i)) }
        }
        return out
    }

    /// Circles within `radius` of the point (max(0, d − r), exact), by distance then identifier.
    func bruteNear(_ p: Point, _ radius: Double, _ brute: BruteForce) -> [Int32] {
        let cosP = cos(p.lat * BruteForce.d2r)
        var hits: [(Int32, Double)] = []
        for i in 0..<brute.count {
            let bounds = BruteForce.bounds(angle: BruteForce.angle(brute.lat[i], brute.lon[i], brute.cosLat[i], p.lat, p.lon, cosP))
            if bounds.lower - brute.radius[i] > radius { continue }
            let d = max(0, brute.exactDistance(i, p) - brute.radius[i])
            if d <= radius { hits.append((Int32(i), d)) }
        }
        hits.sort { a, b in a.1 != b.1 ? a.1 < b.1 : brute.ids[Int(a.0)].utf8.lexicographicallyPrecedes(brute.ids[Int(b.0)].utf8) }
        return hits.map { $0.0 }
    }

    // MARK: End-to-end write

    /// `TileBundleWriter.build` into a temporary directory (removed after): bytes/s; the tiles
    /// written and their sizes must match the bundler's. Skipped above `maxWriteRecords` fences
    /// over all tiles (about 160 bytes each: uniform 1M at zoom 7 would write 480 MB).
    func write(_ w: Workload, bundler: TileBundler, expected: TileAnswers) throws {
        let records = expected.counts.reduce(0) { $0 + max(0, $1) }
        guard records <= SubsetSuite.maxWriteRecords else {
            report.note("subset \(w.name): bundle write skipped (\(records) fence records over all tiles, cap \(SubsetSuite.maxWriteRecords))")
            return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-bench-subset-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let build: TileBuildReport
        do {
            build = try TileBundleWriter.build(bundler: bundler, range: w.range, outDir: dir, sources: [], threads: SubsetSuite.threads)
        } catch {
            throw BenchError.failed("tile bundle write failed: \(error)")
        }
        let sizes = expected.counts.filter { $0 >= 0 }
        precondition(build.written == sizes.count && build.bundleSizes.max == (sizes.max() ?? 0)
                     && abs(build.bundleSizes.mean * Double(max(1, sizes.count)) - Double(sizes.reduce(0, +))) < 0.5,
                     "written tiles differ from the bundler's")
        report.add(BenchResult(suite: "subset", workload: w.name, engine: "write \(SubsetSuite.threads) threads", metric: "MB/s",
                               value: Double(build.bytes) / build.seconds / 1e6, higherIsBetter: true, fences: w.circles.count,
                               note: String(format: "TileBundleWriter.build, %@: %d tiles, %.1f MB GeoJSON + SHA-256 manifest, %.2f s, %@ tiles/s",
                                            w.region, build.written, Double(build.bytes) / 1e6, build.seconds,
                                            Report.number(Double(build.written) / build.seconds))))
    }

    // MARK: Helpers

    static func select(_ s: SubsetSelector, _ compiled: CompiledFences) -> [Int32] {
        do { return try FenceSubset.select(s, in: compiled) } catch { preconditionFailure("FenceSubset.select failed: \(error)") }
    }

    /// Order-dependent fingerprint of a slot list.
    static func fingerprint(_ slots: [Int32]) -> UInt64 {
        var h = UInt64(slots.count)
        for s in slots { h = Fingerprint.mix(h ^ UInt64(UInt32(bitPattern: s))) }
        return h
    }

    static func quantile(_ xs: [Int], _ q: Double) -> Int {
        xs.isEmpty ? 0 : Int(Stats.quantile(xs.sorted().map(Double.init), q))
    }
}

/// Tiles handed out in chunks to worker threads; each chunk's answers stored by one worker.
final class TileWork: @unchecked Sendable {
    let tiles: [Tile]
    private let lock = NSLock()
    private var next = 0
    private(set) var answers: SubsetSuite.TileAnswers

    init(tiles: [Tile]) {
        self.tiles = tiles
        answers = SubsetSuite.TileAnswers(counts: Array(repeating: 0, count: tiles.count), hashes: Array(repeating: 0, count: tiles.count))
    }

    /// The next chunk of at most `size` tile indices, nil when all are taken.
    func claim(_ size: Int) -> Range<Int>? {
        lock.lock(); defer { lock.unlock() }
        guard next < tiles.count else { return nil }
        let r = next..<min(tiles.count, next + size)
        next = r.upperBound
        return r
    }

    func store(_ chunk: Range<Int>, counts: [Int], hashes: [UInt64]) {
        lock.lock(); defer { lock.unlock() }
        answers.counts.replaceSubrange(chunk, with: counts)
        answers.hashes.replaceSubrange(chunk, with: hashes)
    }
}
