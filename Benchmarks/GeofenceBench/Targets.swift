import GeofenceKit
import GeofenceTestSupport
/// The performance targets of the index and the evaluator, judged on one run's figures.
/// Reported in the table and the JSON; never asserted (timings are noisy).
enum Targets {
    static func judge(_ report: Report) {
        for kind in ["uniform", "clustered"] {
            let w = "\(kind) 100k"
            if let o = report.value("index-point", w, "ours", "queries/s") {
                if let b = report.value("index-point", w, "brute", "queries/s") {
                    let r = o.value / b.value
                    report.targets.append(TargetCheck(name: "point query \(w): ours/brute", goal: ">= 20×", value: r,
                                                      shown: String(format: "%.1f×", r), met: r >= 20))
                }
                if let g = report.value("index-point", w, "geos", "queries/s") {
                    let r = o.value / g.value
                    report.targets.append(TargetCheck(name: "point query \(w): ours/GEOS STRtree", goal: ">= 3×", value: r,
                                                      shown: String(format: "%.1f×", r), met: r >= 3))
                }
            }
            let m = "\(kind) 1M"
            if let o = report.value("index-nearest20", m, "ours", "queries/s"), let p99 = o.p99 {
                report.targets.append(TargetCheck(name: "nearest-20 p99 \(m)", goal: "< 50 µs", value: p99 / 1e3,
                                                  shown: Report.duration(p99), met: p99 < 50_000))
            }
            for size in ["100k", "1M"] {
                if let b = report.value("index-memory", "\(kind) \(size)", "ours index", "bytes/fence") {
                    report.targets.append(TargetCheck(name: "index bytes/fence \(kind) \(size) (beyond the table)", goal: "< 64",
                                                      value: b.value, shown: String(format: "%.1f B", b.value), met: b.value < 64))
                }
            }
        }
        for kind in ["scaled-cities", "uniform"] {
            if let e = report.results.last(where: { $0.suite == "evaluate-memory" && $0.workload == "\(kind) 100k" && $0.engine.hasPrefix("ours 2") }) {
                report.targets.append(TargetCheck(name: "evaluate in memory, \(kind) 100k, 2 threads", goal: ">= 3M fixes/s",
                                                  value: e.value, shown: Report.number(e.value) + " fixes/s", met: e.value >= 3e6))
            }
        }
        report.targets.append(TargetCheck(name: "evaluate >= 10× shapely STRtree join (same files)", goal: ">= 10×", value: nil,
                                          shown: "Benchmarks/peers", met: nil))
    }
}
