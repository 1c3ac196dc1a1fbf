import GeofenceKit
import GeofenceTestSupport

/// End to end over synthetic polygon fences: the county-outline sets of
/// `Synthetic.polygons` (uniform at 10k and 100k, clustered at 10k), random-walk devices
/// starting near the fences' centres, `EvaluationRun.process` at 1 and 2 threads.
extension EvaluateSuites {
    var polygonSizes: [Int] { options.quick ? [10_000] : [10_000, 100_000] }

    func polygons(_ data: RealData) throws {
        var templates: OutlineTemplates? = nil
        for kind in ["uniform", "clustered"] {
            // Clustered 100k puts ~25 polygons under every fix (1.2M events): minutes per run, so 10k only.
            for n in polygonSizes where (kind == "uniform" || n <= 10_000) && selected("evaluate-memory", "polygons \(kind) \(Synthetic.sizeName(n))") {
                if templates == nil { templates = try OutlineTemplates.counties(data) }
                let w = Synthetic.polygons(kind: kind, count: n, queries: 0, templates: templates!, seed: options.seed)
                let name = "polygons \(w.name)"
                report.section("evaluate · \(name) fences (\(templates!.summary)), \(fixCount) random-walk fixes")
                let src = SourceLocation(file: "synthetic")
                let compiled = try CompiledFences(w.polygons.map { p in
                    Fence(id: p.id, shape: .polygon(p.shape.polygons.map { $0.map { $0.map { Coordinate(lon: $0.lon, lat: $0.lat) } } }),
                                         source: src)
                })
                // Devices start within 100 m of a fence's box centre (the walk only reads the centres).
                let brute = PolygonBruteForce(w.polygons)
                let centres = (0..<n).map { i in
                    CircleRecord(id: w.polygons[i].id, lat: (brute.south[i] + brute.north[i]) / 2, lon: (brute.west[i] + brute.east[i]) / 2, radius: 1)
                }
                let batches = RandomWalk.batches(fences: centres, fixes: fixCount, seed: options.seed)
                checkSample(compiled.index, brute, batches)
                inMemory(name, compiled, batches, suite: "evaluate-memory", fences: n, repeats: repeats)
            }
        }
    }

    /// Checks the index against the polygon brute force on a sample of the fixes.
    func checkSample(_ index: FenceIndex, _ brute: PolygonBruteForce, _ batches: [[Fix]]) {
        var rng = SeededGenerator(benchmarkSeed: options.seed ^ 0x5EED_0013)
        var a: [Int32] = [], b: [Int32] = []
        for _ in 0..<min(2_000, max(100, Int(2e8 / Double(brute.count)))) {
            let batch = batches[rng.int(batches.count)]
            let f = batch[rng.int(batch.count)]
            index.containing(lat: f.lat, lon: f.lon, into: &a)
            brute.containing(Point(lat: f.lat, lon: f.lon), into: &b)
            precondition(Fingerprint.set(a) == Fingerprint.set(b), "index and polygon brute force disagree at fix \(f)")
        }
    }
}
