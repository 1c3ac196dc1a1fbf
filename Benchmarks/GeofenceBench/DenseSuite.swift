import Foundation
import GeofenceKit
import GeofenceTestSupport

/// Dense overlaps: a device inside k fences at once (k circles on one centre, radii 100 m to
/// 5 km), walking out and back in, at k = 10, 1k and 100k. The cost per fix must grow like
/// k (or k log k), not k²: the table reports fixes/s and nanoseconds per fix and fence, next
/// to a brute force that only measures every fence's exact distance (no state, no events).
///
/// Correctness: before timing, the run's event count is compared with the count the brute
/// force's in/out sequence implies (every fence entered and left as the walk says).
struct DenseSuite {
    let options: BenchOptions
    let report: Report

    var sizes: [Int] { options.quick ? [10, 1_000] : [10, 1_000, 100_000] }

    func selected(_ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "evaluate-dense \(workload)".lowercased().contains($0) }
    }

    func run() throws {
        let centre = (lat: 48.8566, lon: 2.3522)
        for k in sizes {
            let name = "\(Synthetic.sizeName(k)) fences on one centre"
            guard selected(name) else { continue }
            report.section("evaluate-dense \(name)")
            var rng = SeededGenerator(benchmarkSeed: options.seed ^ UInt64(k))
            var fences: [Fence] = []
            fences.reserveCapacity(k)
            for i in 0..<k { fences.append(.circle(id: "d\(i)", lat: centre.lat, lon: centre.lon, radius: rng.uniform(100, 5_000))) }
            // Fixes alternate between the centre (inside every fence) and 0.1° north (outside all).
            let fixes = (0..<40).map { i in
                Fix(device: 0, time: 1_700_000_000 + Double(i) * 60, lat: centre.lat + (i % 2 == 0 ? 0 : 0.1), lon: centre.lon)
            }
            let compiled = try CompiledFences(fences)
            // 20 visits: an enter per fence at each visit, an exit per fence at each leaving.
            let expected = k * (fixes.count / 2) * 2
            var events = 0
            let (seconds, _) = measure {
                let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: 1)
                run.process(fixes)
                events = run.eventCounts.values.reduce(0, +)
            }
            precondition(events == expected, "dense overlaps: \(events) events, expected \(expected)")
            let perFix = seconds / Double(fixes.count)
            report.add(BenchResult(suite: "evaluate-dense", workload: name, engine: "ours", metric: "fixes/s", value: 1 / perFix,
                                   higherIsBetter: true, fences: k, fixes: fixes.count,
                                   note: String(format: "%.1f ns per fix and fence; %d events", perFix * 1e9 / Double(k), events)))
            let (bruteSeconds, inside) = measure {
                var n = 0
                for f in fixes {
                    for fence in fences {
                        guard case .circle(let lat, let lon, let r) = fence.shape else { continue }
                        if Geodesic.wgs84.distance(lat1: f.lat, lon1: f.lon, lat2: lat, lon2: lon) <= r { n += 1 }
                    }
                }
                return n
            }
            precondition(inside == k * fixes.count / 2, "brute force: every fence holds the centre")
            let brutePerFix = bruteSeconds / Double(fixes.count)
            report.add(BenchResult(suite: "evaluate-dense", workload: name, engine: "brute", metric: "fixes/s", value: 1 / brutePerFix,
                                   higherIsBetter: true, fences: k, fixes: fixes.count,
                                   note: String(format: "exact distance to every fence, no state: %.1f ns per fix and fence", brutePerFix * 1e9 / Double(k))))
            report.ratio("evaluate-dense", name, "ours/brute", brutePerFix / perFix)
        }
    }

    /// Seconds of the fastest of three runs, and the body's last result.
    func measure<T>(_ body: () -> T) -> (Double, T) {
        var best = Double.infinity
        var result: T? = nil
        for _ in 0..<(options.quick ? 1 : 3) {
            let t0 = Clock.now()
            result = body()
            best = min(best, Double(Clock.now() - t0) / 1e9)
        }
        return (best, result!)
    }
}
