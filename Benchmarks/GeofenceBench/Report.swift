import Foundation
import GeofenceTestSupport
import GeofenceKit

/// One measured figure.
struct BenchResult {
    var suite: String
    /// The workload, e.g. "uniform 100k".
    var workload: String
    /// "ours", "brute", "geos", "ours 2 threads", ...
    var engine: String
    /// "queries/s", "fixes/s", "ms", "bytes/fence", ...
    var metric: String
    var value: Double
    var higherIsBetter: Bool
    /// Per-query latency percentiles, nanoseconds.
    var p50: Double? = nil
    var p90: Double? = nil
    var p99: Double? = nil
    var fences: Int? = nil
    var fixes: Int? = nil
    var note: String? = nil
    /// For CPU-time throughputs: the wall-clock figure, and the share of samples left out of the percentiles.
    var wallValue: Double? = nil
    /// For wall-clock throughputs (evaluate): the same work per second of process CPU time (all threads).
    var cpuValue: Double? = nil
    var discarded: Double? = nil

    var key: String { "\(suite) | \(workload) | \(engine) | \(metric)" }
}

/// A ratio printed from figures of the same run.
struct BenchRatio {
    var suite: String
    var workload: String
    /// e.g. "ours/brute"
    var what: String
    var value: Double
}

/// A target from the issues, judged on this run's figures (reported, never asserted).
struct TargetCheck {
    var name: String
    var goal: String
    var value: Double?
    var shown: String
    var met: Bool?
}

/// A scaling exponent: cost ~ size^exponent.
struct ScalingFit {
    var what: String
    var exponent: Double
    var points: [(x: Double, y: Double)]
}

/// Collects results, prints the table as it goes, writes JSON at the end.
final class Report {
    var results: [BenchResult] = []
    var ratios: [BenchRatio] = []
    var targets: [TargetCheck] = []
    var scaling: [ScalingFit] = []
    var notes: [String] = []

    /// Starts a block of the table (one workload).
    func section(_ title: String) {
        print("")
        print("== \(title)")
        print(pad("suite", 18) + pad("engine", 18) + lpad("value", 12) + "  " + pad("unit", 12)
              + lpad("p50", 10) + lpad("p90", 10) + lpad("p99", 10) + "  note")
        fflush(nil)
    }

    func add(_ r: BenchResult) {
        results.append(r)
        var line = pad(r.suite, 18) + pad(r.engine, 18) + lpad(Report.number(r.value), 12) + "  " + pad(r.metric, 12)
        line += lpad(r.p50.map(Report.duration) ?? "", 10) + lpad(r.p90.map(Report.duration) ?? "", 10) + lpad(r.p99.map(Report.duration) ?? "", 10)
        if let n = r.note { line += "  " + n }
        print(line)
        fflush(nil)
    }

    func ratio(_ suite: String, _ workload: String, _ what: String, _ value: Double) {
        ratios.append(BenchRatio(suite: suite, workload: workload, what: what, value: value))
        print(pad(suite, 18) + pad("ratio " + what, 18) + lpad(String(format: "%.1f×", value), 12))
        fflush(nil)
    }

    func note(_ s: String) {
        notes.append(s)
        print("   note: " + s)
        fflush(nil)
    }

    /// The figure of a result, if measured.
    func value(_ suite: String, _ workload: String, _ engine: String, _ metric: String) -> BenchResult? {
        results.last { $0.suite == suite && $0.workload == workload && $0.engine == engine && $0.metric == metric }
    }

    static func number(_ v: Double) -> String {
        if !v.isFinite { return "\(v)" }
        let a = abs(v)
        if a >= 1e9 { return String(format: "%.2f G", v / 1e9) }
        if a >= 1e6 { return String(format: "%.2f M", v / 1e6) }
        if a >= 1e4 { return String(format: "%.1f k", v / 1e3) }
        if a >= 100 { return String(format: "%.0f", v) }
        if a >= 10 { return String(format: "%.1f", v) }
        return String(format: "%.2f", v)
    }

    static func duration(_ ns: Double) -> String {
        if ns >= 1e6 { return String(format: "%.2fms", ns / 1e6) }
        if ns >= 1e3 { return String(format: "%.2fµs", ns / 1e3) }
        return String(format: "%.0fns", ns)
    }

    func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
    func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? " " + s : String(repeating: " ", count: n - s.count) + s }

    func printSummary() {
        if !scaling.isEmpty {
            print("")
            print("== scaling exponents (cost per run ~ size^k, least squares in log-log)")
            for s in scaling { print("   " + pad(s.what, 60) + String(format: "k = %.2f", s.exponent)) }
        }
        if !targets.isEmpty {
            print("")
            print("== targets (judged on this run, never asserted)")
            for t in targets {
                let verdict = t.met.map { $0 ? "met" : "MISSED" } ?? "not measured"
                print("   " + pad(t.name, 52) + pad(t.goal, 14) + pad(t.shown, 18) + verdict)
            }
        }
        fflush(nil)
    }

    /// Reloads the results of a saved `--json` output (for `--render`).
    static func load(_ path: String) -> Report? {
        guard let data = FileManager.default.contents(atPath: path), let json = try? JSONParser.parse([UInt8](data)),
              let results = json["results"]?.arrayValue else { return nil }
        let r = Report()
        for x in results {
            guard let s = x["suite"]?.stringValue, let w = x["workload"]?.stringValue, let e = x["engine"]?.stringValue,
                  let m = x["metric"]?.stringValue, let v = x["value"]?.doubleValue else { continue }
            r.results.append(BenchResult(suite: s, workload: w, engine: e, metric: m, value: v,
                                         higherIsBetter: x["higher_is_better"]?.boolValue ?? true,
                                         p50: x["p50_ns"]?.doubleValue, p90: x["p90_ns"]?.doubleValue, p99: x["p99_ns"]?.doubleValue,
                                         fences: x["fences"]?.doubleValue.map { Int($0) }, fixes: x["fixes"]?.doubleValue.map { Int($0) },
                                         note: x["note"]?.stringValue, wallValue: x["wall_value"]?.doubleValue, cpuValue: x["cpu_value"]?.doubleValue,
                                         discarded: x["descheduled_fraction"]?.doubleValue))
        }
        return r
    }

    // MARK: JSON

    func json(machine: MachineFacts, options: BenchOptions, seconds: Double) -> JSONValue {
        func num(_ d: Double?) -> JSONValue { d.map { $0.isFinite ? JSONValue.number(($0 * 1000).rounded() / 1000) : .null } ?? .null }
        let m: JSONValue = .object([
            ("cores", .number(Double(machine.cores))), ("cpu_model", .string(machine.cpuModel)),
            ("memory_gb", num(machine.memoryGB)), ("kernel", .string(machine.kernel)),
            ("swift", .string(machine.swiftVersion)), ("geos", .string(machine.geosVersion)),
            ("proj", .string(machine.projVersion)), ("date", .string(machine.date)),
            ("load_average_start", num(machine.loadAverage)), ("load_average_end", num(MachineFacts.loadAverage())),
        ])
        let rs: [JSONValue] = results.map { r in
            var o: [(String, JSONValue)] = [("suite", .string(r.suite)), ("workload", .string(r.workload)), ("engine", .string(r.engine)),
                                            ("metric", .string(r.metric)), ("value", num(r.value)), ("higher_is_better", .bool(r.higherIsBetter))]
            if let p = r.p50 { o.append(("p50_ns", num(p))) }
            if let p = r.p90 { o.append(("p90_ns", num(p))) }
            if let p = r.p99 { o.append(("p99_ns", num(p))) }
            if let f = r.fences { o.append(("fences", .number(Double(f)))) }
            if let f = r.fixes { o.append(("fixes", .number(Double(f)))) }
            if let w = r.wallValue { o.append(("wall_value", num(w))) }
            if let c = r.cpuValue { o.append(("cpu_value", num(c))) }
            if let d = r.discarded { o.append(("descheduled_fraction", num(d))) }
            if let n = r.note { o.append(("note", .string(n))) }
            return .object(o)
        }
        let mem = ProcessMemory.read()
        return .object([
            ("machine", m),
            ("mode", .string(options.quick ? "quick" : "full")),
            ("filters", .array(options.filters.map { .string($0) })),
            ("seed", .number(Double(options.seed))),
            ("seconds", num(seconds)),
            ("peak_rss_bytes", .number(Double(mem.peak))),
            ("results", .array(rs)),
            ("ratios", .array(ratios.map { .object([("suite", .string($0.suite)), ("workload", .string($0.workload)),
                                                    ("what", .string($0.what)), ("value", num($0.value))]) })),
            ("scaling", .array(scaling.map { s in .object([("what", .string(s.what)), ("exponent", num(s.exponent)),
                                                           ("points", .array(s.points.map { .array([num($0.x), num($0.y)]) }))]) })),
            ("targets", .array(targets.map { t in .object([("name", .string(t.name)), ("goal", .string(t.goal)), ("value", num(t.value)),
                                                           ("met", t.met.map { .bool($0) } ?? .null)]) })),
            ("notes", .array(notes.map { .string($0) })),
        ])
    }
}
