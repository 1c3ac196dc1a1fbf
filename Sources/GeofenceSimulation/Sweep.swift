import Foundation
import GeofenceBase
import GeofenceEvaluation
import GeofencePlanning

/// A parameter sweep of every strategy over one trace: recall against registrations per
/// kilometre, and the Pareto comparison of the guaranteed strategy with the baselines
/// (docs/rotation.md#sweep).
public struct Sweep: Sendable {
    /// One configuration's result.
    public struct Point: Sendable {
        /// The strategy (``Planner/Strategy`` raw value).
        public var strategy: String
        /// The parameter varied, e.g. `horizon 5 km`, `radius 1000 m`.
        public var parameter: String
        /// The strategies' parameters of this run.
        public var tuning: StrategyTuning
        /// The counts of all devices summed.
        public var counts: SimulationCounts
        /// (matched enter + exit) ÷ (ground-truth enter + exit); 1 when there are none.
        public var recall: Double { counts.recall ?? 1 }
        /// Regions registered per km travelled; 0 when the devices did not move.
        public var registrationsPerKm: Double { counts.registrationsPerKm ?? 0 }
    }

    /// The guaranteed strategy's horizons swept, metres (nil: adaptive; ∞: every free slot used).
    public static let horizons: [Double?] = [nil, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, .infinity]
    /// The guaranteed strategy's horizons swept with the planner for an instant OS as well
    /// (speed cap and acceleration 0: cheaper, not safe at speed), metres.
    public static let instantHorizons: [Double?] = [1_000, 10_000, .infinity]
    /// The `trigger` baseline's movement-trigger radii swept, metres.
    public static let triggerRadii: [Double] = [250, 500, 1_000, 2_000, 5_000]
    /// The `centre` baseline's refresh radii swept, metres.
    public static let centreRadii: [Double] = [500, 1_000, 2_500, 5_000]

    /// Every configuration run, strategy by strategy, in the order of the grids above.
    public var points: [Point]

    /// Runs the grids above over a prepared trace (the OS model fixed, the guaranteed strategy
    /// speed-aware with the default speed cap).
    /// - Complexity: one replay of the trace per configuration (20 in all).
    public static func run(compiled: CompiledFences, circles: [OSCircle], os: OSModel, clusters: Bool,
                           prepared: Simulator.PreparedTrace, deviceNames: [String], threads: Int) -> Sweep {
        var configs: [(Planner.Strategy, String, StrategyTuning)] = []
        func name(_ h: Double?) -> String { h.map { $0.isFinite ? "horizon \(Int($0 / 1000)) km" : "horizon ∞" } ?? "adaptive" }
        for h in horizons {
            var t = StrategyTuning(); t.horizon = h
            configs.append((.guaranteed, name(h), t))
        }
        for h in instantHorizons {
            var t = StrategyTuning(); t.horizon = h; t.speedCap = 0; t.acceleration = 0
            configs.append((.guaranteed, "instant OS, " + name(h), t))
        }
        for r in triggerRadii { var t = StrategyTuning(); t.triggerRadius = r; configs.append((.trigger, "radius \(Int(r)) m", t)) }
        for r in centreRadii { var t = StrategyTuning(); t.centreRadius = r; configs.append((.centre, "radius \(Int(r)) m", t)) }
        var points: [Point] = []
        for (strategy, parameter, tuning) in configs {
            let report = Simulator.simulate(compiled: compiled, circles: circles, os: os, strategies: [strategy], clusters: clusters,
                                            prepared: prepared, deviceNames: deviceNames, threads: threads, tuning: tuning)
            points.append(Point(strategy: strategy.rawValue, parameter: parameter, tuning: tuning, counts: report.strategies[0].overall))
        }
        return Sweep(points: points)
    }

    /// A sweep of the given points (for tests and callers that run their own grid).
    public init(points: [Point]) { self.points = points }

    /// Baseline points strictly better on both axes (higher recall and fewer registrations per
    /// km) than some guaranteed point, with that point: empty when no guaranteed configuration is
    /// beaten on both counts at once by any baseline configuration.
    public var baselinesBeatingOurs: [(baseline: Point, ours: Point)] {
        let ours = points.filter { $0.strategy == Planner.Strategy.guaranteed.rawValue }
        var out: [(Point, Point)] = []
        for b in points where b.strategy != Planner.Strategy.guaranteed.rawValue {
            if let o = ours.first(where: { b.recall > $0.recall && b.registrationsPerKm < $0.registrationsPerKm }) { out.append((b, o)) }
        }
        return out
    }

    /// Baseline points that no guaranteed point matches or beats on both axes (recall at least
    /// as high and registrations per km at most as many): empty when ours dominates every
    /// baseline configuration.
    public var baselinesNotDominated: [Point] {
        let ours = points.filter { $0.strategy == Planner.Strategy.guaranteed.rawValue }
        return points.filter { b in
            b.strategy != Planner.Strategy.guaranteed.rawValue
                && !ours.contains { $0.recall >= b.recall && $0.registrationsPerKm <= b.registrationsPerKm }
        }
    }

    /// The points as a text table (strategy, parameter, recall, recall enter/exit,
    /// registrations/km, re-plans/h, broken seconds) followed by the two Pareto verdicts.
    public var table: String {
        func f(_ d: Double?, _ digits: Int) -> String { d.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        var rows = [["strategy", "parameter", "recall", "enter", "exit", "registrations/km", "re-plans/h", "broken (s)"]]
        for p in points {
            rows.append([p.strategy, p.parameter, f(p.counts.recall, 3), f(p.counts.recallEnter, 3), f(p.counts.recallExit, 3),
                         f(p.counts.registrationsPerKm, 3), f(p.counts.replansPerHour, 2), String(Int(p.counts.brokenSeconds))])
        }
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max()! }
        var out = ""
        for r in rows {
            out += r.enumerated().map { c, v in c < 2 ? v.padding(toLength: widths[c], withPad: " ", startingAt: 0)
                : String(repeating: " ", count: widths[c] - v.count) + v }.joined(separator: "  ") + "\n"
        }
        let beating = baselinesBeatingOurs, open = baselinesNotDominated
        out += "baseline configurations with higher recall and fewer registrations/km than one of ours: "
            + (beating.isEmpty ? "none" : beating.map { "\($0.baseline.strategy) \($0.baseline.parameter) over guaranteed \($0.ours.parameter)" }.joined(separator: "; ")) + "\n"
        out += "baseline configurations no configuration of ours matches on both: "
            + (open.isEmpty ? "none" : open.map { "\($0.strategy) \($0.parameter)" }.joined(separator: "; ")) + "\n"
        return out
    }

    /// The sweep as JSON: `points` (strategy, parameter, recall, recall_enter, recall_exit,
    /// registrations_per_km, replans_per_hour, guarantee_broken_s), `baselines_beating_ours`,
    /// `baselines_not_dominated` (as `"strategy parameter"` strings).
    public var json: JSONValue {
        func n(_ d: Double?) -> JSONValue { d.map { .number(($0 * 10000).rounded() / 10000) } ?? .null }
        return .object([
            ("points", .array(points.map { p in
                .object([("strategy", .string(p.strategy)), ("parameter", .string(p.parameter)), ("recall", n(p.counts.recall)),
                         ("recall_enter", n(p.counts.recallEnter)), ("recall_exit", n(p.counts.recallExit)),
                         ("registrations_per_km", n(p.counts.registrationsPerKm)), ("replans_per_hour", n(p.counts.replansPerHour)),
                         ("guarantee_broken_s", .number(p.counts.brokenSeconds.rounded()))])
            })),
            ("baselines_beating_ours", .array(baselinesBeatingOurs.map { .string("\($0.baseline.strategy) \($0.baseline.parameter)") })),
            ("baselines_not_dominated", .array(baselinesNotDominated.map { .string("\($0.strategy) \($0.parameter)") })),
        ])
    }

    /// The Pareto chart as SVG: recall (y) against registrations per km (x, logarithmic, ticks at
    /// 1, 2 and 5 × 10ⁿ), one series per strategy (ours split into the speed-aware planner and the
    /// planner for an instant OS), each series' points joined in order of registrations and
    /// labelled with their parameter (points closer than 6 px share one label; labels slanted); ours is drawn
    /// last (on top); the two verdicts under the title. `title` is escaped.
    /// - Complexity: O(points²) (label grouping).
    public func svg(title: String) -> String {
        let w = 960.0, h = 670.0, left = 80.0, right = 250.0, top = 140.0, bottom = 90.0
        let plotRight = w - right, plotBottom = h - bottom
        let xs = points.map { max($0.registrationsPerKm, 1e-4) }
        var lo = log10(xs.min() ?? 0.01), hi = log10(xs.max() ?? 1)
        let span = max(hi - lo, 0.3)
        lo -= span * 0.08; hi += span * 0.15
        let minRecall = points.map(\.recall).min() ?? 0
        let y0 = max(0, floor((minRecall - 0.02) * 20) / 20), y1 = 1.0 + (1.0 - y0) * 0.03
        func px(_ p: Point) -> (Double, Double) {
            let x = left + (log10(max(p.registrationsPerKm, 1e-4)) - lo) / (hi - lo) * (plotRight - left)
            let y = top + (y1 - p.recall) / max(y1 - y0, 1e-9) * (plotBottom - top)
            return (x, y)
        }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func esc(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" viewBox=\"0 0 \(Int(w)) \(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        out += "<text x=\"\(f(left))\" y=\"26\" font-size=\"15\">\(esc(title))</text>\n"
        let verdict = baselinesBeatingOurs.isEmpty ? "no baseline configuration beats one of ours on both axes"
            : "\(baselinesBeatingOurs.count) baseline configuration\(baselinesBeatingOurs.count == 1 ? "" : "s") beat\(baselinesBeatingOurs.count == 1 ? "s" : "") one of ours on both axes"
        let verdict2 = baselinesNotDominated.isEmpty ? "every baseline configuration is matched or beaten on both by one of ours"
            : "\(baselinesNotDominated.count) baseline configuration\(baselinesNotDominated.count == 1 ? "" : "s") not matched on both by one of ours"
        out += "<text x=\"\(f(left))\" y=\"46\" font-size=\"11\" fill=\"#333\">\(esc(verdict)); \(esc(verdict2))</text>\n"
        out += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotRight - left))\" height=\"\(f(plotBottom - top))\" fill=\"none\" stroke=\"#444\"/>\n"
        // Log ticks at 1, 2, 5 × 10^n.
        var e = floor(lo)
        while e <= hi {
            for m in [1.0, 2.0, 5.0] {
                let v = log10(m) + e
                guard v >= lo, v <= hi else { continue }
                let x = left + (v - lo) / (hi - lo) * (plotRight - left)
                out += "<line x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(plotBottom))\" stroke=\"#ddd\"/>\n"
                out += "<text x=\"\(f(x))\" y=\"\(f(plotBottom + 18))\" text-anchor=\"middle\">\(String(format: "%g", m * pow(10, e)))</text>\n"
            }
            e += 1
        }
        let step = (y1 - y0) > 0.3 ? 0.1 : (y1 - y0) > 0.12 ? 0.05 : 0.01
        var r = y0
        while r <= 1.0 + 1e-9 {
            let y = top + (y1 - r) / max(y1 - y0, 1e-9) * (plotBottom - top)
            out += "<line x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(plotRight))\" y2=\"\(f(y))\" stroke=\"#ddd\"/>\n"
            out += "<text x=\"\(f(left - 8))\" y=\"\(f(y + 4))\" text-anchor=\"end\">\(String(format: "%.2f", r))</text>\n"
            r += step
        }
        out += "<text x=\"\(f((left + plotRight) / 2))\" y=\"\(f(h - 25))\" text-anchor=\"middle\">registrations per km (log scale; fewer is better)</text>\n"
        out += "<text x=\"20\" y=\"\(f((top + plotBottom) / 2))\" transform=\"rotate(-90 20 \(f((top + plotBottom) / 2)))\" text-anchor=\"middle\">recall, enter and exit (higher is better)</text>\n"
        // Series: baselines first, ours on top. Each: (legend, colour, filter, prefix stripped from labels, ours).
        let series: [(String, String, (Point) -> Bool, String, Bool)] = [
            ("centre: refresh radius", "#762a83", { $0.strategy == "centre" }, "radius ", false),
            ("trigger: trigger radius", "#d95f02", { $0.strategy == "trigger" }, "radius ", false),
            ("ours, instant-OS planner: horizon", "#7fbf7b", { $0.strategy == "guaranteed" && $0.parameter.hasPrefix("instant OS, ") }, "instant OS, horizon ", true),
            ("ours (guaranteed): horizon", "#1b7837", { $0.strategy == "guaranteed" && !$0.parameter.hasPrefix("instant OS, ") }, "horizon ", true),
        ]
        var legendY = top + 10
        for (legend, c, member, prefix, ours) in series {
            let pts = points.filter(member).sorted { $0.registrationsPerKm < $1.registrationsPerKm }
            guard !pts.isEmpty else { continue }
            let at = pts.map(px)
            out += "<polyline fill=\"none\" stroke=\"\(c)\" stroke-width=\"1.5\" points=\"\(at.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " "))\"/>\n"
            var labelled = [Bool](repeating: false, count: pts.count)
            for (i, (p, q)) in zip(pts, at).enumerated() {
                out += ours
                    ? "<circle cx=\"\(f(q.0))\" cy=\"\(f(q.1))\" r=\"5\" fill=\"\(c)\"><title>\(esc("\(p.strategy) \(p.parameter)"))</title></circle>\n"
                    : "<rect x=\"\(f(q.0 - 4))\" y=\"\(f(q.1 - 4))\" width=\"8\" height=\"8\" fill=\"\(c)\"><title>\(esc("\(p.strategy) \(p.parameter)"))</title></rect>\n"
                guard !labelled[i] else { continue }
                // One label for the points of this series within 12 px of this one.
                var group: [String] = []
                for j in i..<pts.count where !labelled[j] && abs(at[j].0 - q.0) < 6 && abs(at[j].1 - q.1) < 6 {
                    labelled[j] = true
                    group.append(pts[j].parameter.hasPrefix(prefix) ? String(pts[j].parameter.dropFirst(prefix.count)) : pts[j].parameter)
                }
                // Slanted labels (ours up, baselines down) so neighbours do not overwrite each other.
                let lx = q.0 + 4, ly = q.1 + (ours ? -7 : 12), angle = ours ? -60 : 35
                out += "<text x=\"\(f(lx))\" y=\"\(f(ly))\" transform=\"rotate(\(angle) \(f(lx)) \(f(ly)))\" font-size=\"10\" fill=\"\(c)\">\(esc(group.joined(separator: ", ")))</text>\n"
            }
            out += "<rect x=\"\(f(plotRight + 16))\" y=\"\(f(legendY - 9))\" width=\"10\" height=\"10\" fill=\"\(c)\"/>"
            out += "<text x=\"\(f(plotRight + 32))\" y=\"\(f(legendY))\">\(esc(legend))</text>\n"
            legendY += 20
        }
        out += "</svg>\n"
        return out
    }
}
