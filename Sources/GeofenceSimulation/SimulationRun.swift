import GeofenceBase
import GeofenceLogs
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import GeofencePlanning

/// A whole simulation: ground truth by full evaluation, then every strategy on every device.
/// Metrics and output formats: docs/rotation.md#the-simulator.
public struct SimulationReport: Sendable {
    /// The results of one strategy.
    public struct StrategyResult: Sendable {
        /// The strategy's name (``Planner/Strategy`` raw value: `guaranteed`, `centre`, `trigger`).
        public var name: String
        /// The counts of all devices summed.
        public var overall: SimulationCounts
        /// The counts of each device, indexed like ``SimulationReport/devices``.
        public var perDevice: [SimulationCounts]
    }
    /// The OS model the strategies ran under.
    public var os: OSModel
    /// Whether the guaranteed planner was allowed cluster regions.
    public var clusters: Bool
    /// Device names, index = ``Fix/device``.
    public var devices: [String]
    /// One result per strategy, in the order they were given.
    public var strategies: [StrategyResult]
    /// The events the simulated app reported, by strategy name; device by device, each
    /// device's in the order reported.
    public var detected: [String: [ReportedEvent]]
    /// The number of fixes replayed.
    public var fixes: Int
    /// The number of fences.
    public var fences: Int

    /// The `-o REPORT.json` object (docs/rotation.md#the-simulator): `os`, `clusters`, `fixes`,
    /// `fences`, `strategies` (overall counts), `devices` (per-device counts).
    /// - Complexity: O(strategies × (devices + d log d)) for d matched delays (percentiles sort them).
    public var json: JSONValue {
        func strat(_ name: String, _ c: SimulationCounts, classes: Bool = false) -> JSONValue {
            guard case .object(let o) = c.json else { return .null }
            var fields = [("name", JSONValue.string(name))] + o
            if classes {
                fields.append(("speed_classes", .array(SpeedClass.allCases.map { k -> JSONValue in
                    let cc = k.rawValue < c.classes.count ? c.classes[k.rawValue] : SimulationCounts()
                    guard case .object(let co) = cc.json else { return .null }
                    return .object([("class", .string(k.name))] + co)
                })))
            }
            return .object(fields)
        }
        return .object([
            ("os", .object([("slots", .number(Double(os.slots))), ("min_radius", .number(os.minRadius)), ("max_radius", .number(os.maxRadius)),
                            ("delay_s", .number(os.delay)), ("exit_distance", .number(os.exitDistance))])),
            ("clusters", .bool(clusters)),
            ("fixes", .number(Double(fixes))), ("fences", .number(Double(fences))),
            ("strategies", .array(strategies.map { strat($0.name, $0.overall, classes: true) })),
            ("devices", .array(devices.enumerated().map { d, name in
                .object([("device", .string(name)), ("strategies", .array(strategies.map { strat($0.name, $0.perDevice[d]) }))])
            })),
        ])
    }

    /// Strategies as columns: the text table `geofence simulate` prints (overall counts; `-`
    /// for an undefined ratio).
    /// - Complexity: O(strategies × d log d) for d matched delays (percentiles sort them).
    public var table: String {
        func f(_ d: Double?, _ digits: Int = 3) -> String { d.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        var rows: [(String, (SimulationCounts) -> String)] = [
            ("recall enter", { f($0.recallEnter) }), ("recall exit", { f($0.recallExit) }),
            ("precision enter", { f($0.precisionEnter) }), ("precision exit", { f($0.precisionExit) }),
            ("delay p50 (s)", { f($0.percentile(0.5), 0) }), ("delay p95 (s)", { f($0.percentile(0.95), 0) }),
            ("registrations/km", { f($0.registrationsPerKm, 2) }), ("removals/km", { f($0.removalsPerKm, 2) }),
            ("registrations/h", { f($0.registrationsPerHour, 1) }),
            ("re-plans/h", { f($0.replansPerHour, 2) }), ("guarantee broken (s)", { String(Int($0.brokenSeconds)) }),
            ("truth enter/exit", { "\($0.truthEnter)/\($0.truthExit)" }),
        ]
        // Per speed class: the classes the trace spends time or distance in.
        let present = SpeedClass.allCases.filter { k in
            strategies.first.map { k.rawValue < $0.overall.classes.count && ($0.overall.classes[k.rawValue].seconds > 0 || $0.overall.classes[k.rawValue].metres > 0) } ?? false
        }
        for k in present {
            func c(_ s: SimulationCounts) -> SimulationCounts { s.classes[k.rawValue] }
            rows += [
                ("\(k.name): km, h", { String(format: "%.0f, %.1f", c($0).metres / 1000, c($0).seconds / 3600) }),
                ("\(k.name): recall enter", { f(c($0).recallEnter) }), ("\(k.name): recall exit", { f(c($0).recallExit) }),
                ("\(k.name): registrations/km", { f(c($0).registrationsPerKm, 2) }),
                ("\(k.name): re-plans/h", { f(c($0).replansPerHour, 2) }),
                ("\(k.name): broken (s)", { String(Int(c($0).brokenSeconds)) }),
                ("\(k.name): truth enter/exit", { "\(c($0).truthEnter)/\(c($0).truthExit)" }),
            ]
        }
        let w0 = rows.map { $0.0.count }.max()! + 2
        let cols = strategies.map { s in rows.map { $0.1(s.overall) } }
        let widths = strategies.enumerated().map { k, s in max(s.name.count, cols[k].map(\.count).max()!) + 2 }
        var out = "".padding(toLength: w0, withPad: " ", startingAt: 0)
        for (k, s) in strategies.enumerated() { out += String(repeating: " ", count: widths[k] - s.name.count) + s.name }
        out += "\n"
        for (r, row) in rows.enumerated() {
            out += row.0.padding(toLength: w0, withPad: " ", startingAt: 0)
            for k in strategies.indices { out += String(repeating: " ", count: widths[k] - cols[k][r].count) + cols[k][r] }
            out += "\n"
        }
        return out
    }
}

extension Simulator {
    /// Runs ground truth and every strategy. `fixes` in log order with dense device indices.
    ///
    /// Ground truth is a full evaluation of `fixes` with default ``EvaluationSettings`` (no exit
    /// margin, no dwell; dwell events dropped). Each strategy then replays every device
    /// (``run(strategy:clusters:device:fixes:truth:detected:)``), devices in parallel on up to
    /// `threads` threads (values below 1 count as 1). `circles` are the OS circles of the
    /// fences, indexed like `compiled.fences`.
    /// - Precondition: every fix's `device` is an index into `deviceNames`, and `os.slots` ≥ 2
    ///   when there are fixes (both trap otherwise).
    /// - Complexity: one full evaluation of the fixes, plus, per strategy, one replay of every
    ///   fix (each a geodesic per registered region, and a plan per re-plan).
    public static func simulate(compiled: CompiledFences, circles: [OSCircle], os: OSModel, strategies: [Planner.Strategy],
                                clusters: Bool, fixes: [Fix], deviceNames: [String], threads: Int,
                                tuning: StrategyTuning = StrategyTuning()) -> SimulationReport {
        let prepared = prepare(compiled: compiled, fixes: fixes, devices: deviceNames.count, threads: threads)
        return simulate(compiled: compiled, circles: circles, os: os, strategies: strategies, clusters: clusters, prepared: prepared,
                        deviceNames: deviceNames, threads: threads, tuning: tuning)
    }

    /// A trace split by device with its ground truth, computed once for several simulations
    /// (``prepare(compiled:fixes:devices:threads:)``).
    public struct PreparedTrace: Sendable {
        /// Each device's fixes, in log order.
        public var fixes: [[Fix]]
        /// Each device's ground-truth enter and exit events.
        public var truth: [[ReportedEvent]]
    }

    /// Splits `fixes` by device (dense indices below `devices`) and computes the ground truth:
    /// a full evaluation with default ``EvaluationSettings`` (no exit margin, no dwell; dwell
    /// events dropped) on `threads` threads.
    /// - Complexity: one full evaluation of the fixes.
    public static func prepare(compiled: CompiledFences, fixes: [Fix], devices n: Int, threads: Int) -> PreparedTrace {
        // Ground truth: full evaluation of the same trace (docs/evaluation.md, no margin, no dwell).
        let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: threads)
        var k = 0
        let batch = EvaluationRun.defaultBatchSize
        while k < fixes.count { run.process(Array(fixes[k..<min(fixes.count, k + batch)])); k += batch }
        var truth = Array(repeating: [ReportedEvent](), count: n)
        for e in run.events where e.type != .dwell {
            truth[Int(e.device)].append(ReportedEvent(device: e.device, fence: e.fence, type: e.type, time: e.time))
        }
        var byDevice = Array(repeating: [Fix](), count: n)
        for f in fixes { byDevice[Int(f.device)].append(f) }
        return PreparedTrace(fixes: byDevice, truth: truth)
    }

    /// Runs every strategy over a prepared trace (as
    /// ``simulate(compiled:circles:os:strategies:clusters:fixes:deviceNames:threads:tuning:)``).
    /// - Precondition: `prepared` has one entry per name of `deviceNames`.
    public static func simulate(compiled: CompiledFences, circles: [OSCircle], os: OSModel, strategies: [Planner.Strategy],
                                clusters: Bool, prepared: PreparedTrace, deviceNames: [String], threads: Int,
                                tuning: StrategyTuning = StrategyTuning()) -> SimulationReport {
        let n = deviceNames.count
        var sim = Simulator(compiled: compiled, circles: circles, os: os)
        sim.tuning = tuning
        let fixesByDevice = prepared.fixes, truthByDevice = prepared.truth
        let sim_ = sim
        var results: [SimulationReport.StrategyResult] = []
        var detectedAll: [String: [ReportedEvent]] = [:]
        for s in strategies {
            var per = Array(repeating: SimulationCounts(), count: n)
            var det = Array(repeating: [ReportedEvent](), count: n)
            per.withUnsafeMutableBufferPointer { pb in
                det.withUnsafeMutableBufferPointer { db in
                    let p = UnsafeShared(base: pb.baseAddress!), d = UnsafeShared(base: db.baseAddress!)
                    DispatchQueue.concurrentPerform(iterations: max(1, min(threads, n))) { w in
                        var dev = w
                        while dev < n {
                            var out: [ReportedEvent] = []
                            p.base[dev] = sim_.run(strategy: s, clusters: clusters, device: Int32(dev), fixes: fixesByDevice[dev], truth: truthByDevice[dev], detected: &out)
                            d.base[dev] = out
                            dev += max(1, min(threads, n))
                        }
                    }
                }
            }
            var overall = SimulationCounts()
            for c in per { overall.add(c) }
            results.append(.init(name: s.rawValue, overall: overall, perDevice: per))
            detectedAll[s.rawValue] = det.flatMap { $0 }
        }
        return SimulationReport(os: os, clusters: clusters, devices: deviceNames, strategies: results, detected: detectedAll,
                                fixes: fixesByDevice.reduce(0) { $0 + $1.count }, fences: compiled.index.count)
    }
}
