import GeofenceKit
import GeofenceTestSupport
import Foundation

/// Planning cost: `Planner.plan` of the guaranteed strategy (nearest 20 by boundary
/// distance, refresh radius, cluster check), of the same for a moving device under the iOS-like
/// OS ("guaranteed moving": speed, delay, acceleration, adaptive horizon) and of the two
/// baselines, at 100k and 1M circles.
///
/// Correctness inside the loop: before timing, every plan's monitored fences are compared with
/// `FenceIndex.nearest(19)` (the brute-force-checked query) and its refresh radius with the 20th
/// distance less nothing (exit distance 0); the timed loop `precondition`s the plan is unchanged.
struct PlanSuite {
    let options: BenchOptions
    let report: Report

    var sizes: [Int] { options.quick ? [1_000, 10_000] : [100_000, 1_000_000] }
    var queries: Int { options.quick ? 1_000 : 20_000 }
    var repeats: Int { options.quick ? 1 : 3 }

    func selected(_ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "plan \(workload)".lowercased().contains($0) }
    }

    func run() throws {
        for n in sizes {
            for kind in ["uniform", "clustered"] {
                let name = "\(kind) \(Synthetic.sizeName(n))"
                guard selected(name) else { continue }
                report.section("plan \(name)")
                let w = kind == "uniform" ? Synthetic.uniform(count: n, queries: queries, seed: options.seed)
                                          : Synthetic.clustered(count: n, queries: queries, seed: options.seed)
                let index = try FenceIndex(circles: w.circles)
                let circles = w.circles.map { OSCircle(lat: $0.lat, lon: $0.lon, radius: $0.radius) }
                for (strategy, moving) in Planner.Strategy.allCases.map({ ($0, false) }) + [(.guaranteed, true)] {
                    // "guaranteed moving": the iOS-like OS (20 s delay, 100 m exit distance), a device at
                    // 30 m/s heading north-east with fixes every 10 s, acceleration 0.2 m/s², adaptive horizon.
                    var settings = Planner.Settings(slots: 20, minRadius: 100, maxRadius: 100_000, exitDistance: moving ? 100 : 0)
                    if moving { settings.delay = 20; settings.acceleration = 0.2; settings.adaptiveHorizon = true }
                    let motion = moving ? Planner.Motion(speed: 30, interval: 10, heading: 45) : .still
                    let planner = Planner(index: index, circles: circles, settings: settings, strategy: strategy)
                    // The centre baseline scans every fence within 10 km: slow in dense sets, so fewer positions.
                    let q = strategy == .centre ? Array(w.queries.prefix(options.quick ? 200 : 2_000)) : w.queries
                    var expected: [Plan] = []
                    expected.reserveCapacity(q.count)
                    for p in q { expected.append(planner.plan(lat: p.lat, lon: p.lon, motion: motion)) }
                    if moving {
                        for (i, p) in q.enumerated() where i % 10 == 0 && expected[i].clusters.isEmpty && !expected[i].guaranteeBroken {
                            let near = index.nearest(20, lat: p.lat, lon: p.lon)
                            let plan = expected[i]
                            precondition(plan.fences == Array(near.prefix(plan.fences.count).map(\.slot)), "moving plan is not a nearest prefix at query \(i)")
                            precondition(plan.refresh == nil || plan.refresh!.radius <= plan.coverage - 100, "refresh region not shrunk at query \(i)")
                        }
                    } else if strategy == .guaranteed {
                        for (i, p) in q.enumerated() where i % 10 == 0 {
                            let near = index.nearest(20, lat: p.lat, lon: p.lon)
                            let plan = expected[i]
                            if plan.clusters.isEmpty {
                                precondition(plan.fences == Array(near.prefix(19).map(\.slot)), "plan differs from nearest-19 at query \(i)")
                                if near.count == 20 { precondition(plan.coverage == near[19].distance, "coverage differs from the 20th distance at query \(i)") }
                            }
                        }
                    }
                    let s = timeQueries(count: q.count, repeats: repeats) { i in
                        let plan = planner.plan(lat: q[i].lat, lon: q[i].lon, motion: motion)
                        precondition(plan == expected[i], "plan changed at query \(i)")
                        return plan.fences.count
                    }
                    report.add(BenchResult(suite: "plan", workload: name, engine: strategy.rawValue + (moving ? " moving" : ""), metric: "plans/s", value: s.perSecond,
                                           higherIsBetter: true, p50: s.p50, p90: s.p90, p99: s.p99, fences: n,
                                           note: "\(q.count) positions, 20 slots, min radius 100 m, exact nearest by boundary distance\(moving ? "; 30 m/s, 20 s delay, adaptive horizon" : ""); wall \(Report.number(s.wallPerSecond))/s",
                                           wallValue: s.wallPerSecond, discarded: s.discarded))
                }
            }
        }
    }
}
