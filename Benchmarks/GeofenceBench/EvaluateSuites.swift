import Foundation
import GeofenceTestSupport
import GeofenceKit

/// The evaluate suites: end to end from in-memory
/// fixes and from a CSV file, 1 and 2 threads, synthetic and real.
struct EvaluateSuites {
    let options: BenchOptions
    let report: Report
    let data: RealData?

    var sizes: [Int] { options.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000] }
    var fixCount: Int { options.quick ? 100_000 : 1_000_000 }
    /// Evaluate workloads: dense (scaled cities, about one fence per fix) and sparse (uniform world).
    static let kinds = ["scaled-cities", "uniform"]
    var repeats: Int { options.quick ? 1 : 3 }
    var threadCounts: [Int] { Array(Set([1, max(2, ProcessInfo.processInfo.activeProcessorCount)])).sorted() }

    func selected(_ suite: String, _ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "\(suite) \(workload)".lowercased().contains($0) }
    }

    func run() throws {
        for kind in EvaluateSuites.kinds {
            for n in sizes {
                let name = "\(kind) \(Synthetic.sizeName(n))"
                if selected("evaluate-memory", name) || selected("evaluate-file", name) { try synthetic(n, kind: kind) }
            }
        }
        if !options.quick && selected("evaluate-fixes", "scaled-cities 100k") { try fixScaling() }
        fitFenceScaling()
        if let data {
            try polygons(data)
            try real(data)
        }
    }

    // MARK: Timing one run

    /// Evaluates batches with `threads` workers; returns seconds and the run (for checks).
    func evaluate(_ compiled: CompiledFences, _ batches: [[Fix]], threads: Int) -> (Double, EvaluationRun, Double) {
        let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: threads)
        let t = Clock.wallAndCPU { for b in batches { run.process(b) } }
        return (t.wall, run, t.cpu)
    }

    /// Times in-memory evaluation at every thread count (warm-up, repeats, median), checks the
    /// event stream is identical across runs and thread counts, and reports fixes/s.
    @discardableResult
    func inMemory(_ workload: String, _ compiled: CompiledFences, _ batches: [[Fix]], suite: String,
                  fences: Int, repeats: Int) -> [Int: Double] {
        let total = batches.reduce(0) { $0 + $1.count }
        var reference: (count: Int, hash: UInt64)? = nil
        var rates: [Int: Double] = [:]
        for threads in threadCounts {
            var times: [Double] = [], cpus: [Double] = []
            for r in 0...repeats {  // run 0 is the warm-up
                let (t, run, cpu) = evaluate(compiled, batches, threads: threads)
                if r > 0 { cpus.append(cpu) }
                precondition(run.fixes == total, "every fix evaluated")
                let fp = eventFingerprint(run)
                if let reference {
                    precondition(fp == reference, "event stream differs between runs or thread counts (\(fp.count) vs \(reference.count) events)")
                } else {
                    reference = fp
                }
                if r > 0 { times.append(t) }
                blackHole(run)
            }
            let rate = Double(total) / Stats.median(times)
            rates[threads] = rate
            let cpuRate = Double(total) / Stats.median(cpus)
            report.add(BenchResult(suite: suite, workload: workload, engine: "ours \(threads) thread\(threads == 1 ? "" : "s")", metric: "fixes/s",
                                   value: rate, higherIsBetter: true, fences: fences, fixes: total,
                                   note: String(format: "%d fixes, %d events, median of %d (%.3f s); %@ fixes per CPU-second", total, reference!.count,
                                                repeats, Stats.median(times), Report.number(cpuRate)),
                                   cpuValue: cpuRate))
        }
        if let one = rates[1], let many = rates.filter({ $0.key > 1 }).max(by: { $0.key < $1.key }) {
            report.ratio(suite, workload, "\(many.key)t/1t", many.value / one)
        }
        return rates
    }

    /// One LogReader → EvaluationRun pass over a file, as `geofence evaluate` reads it (without
    /// writing events; the cores shared batch by batch as there, `CoreSharing`): wall time, the
    /// run, CPU time.
    func readAndEvaluate(_ compiled: CompiledFences, path: String, threads: Int) throws -> (Double, EvaluationRun, Double) {
        let run = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: threads)
        var batch: [Fix] = []
        batch.reserveCapacity(RandomWalk.batchSize)
        let (t, cpu) = try Clock.wallAndCPU {
            var options = LogReaderOptions()
            options.threads = threads
            options.quickStart = true        // as `geofence evaluate` reads
            let reader = try LogReader(path: path, options: options)
            var sharing = CoreSharing(threads: threads)
            while try reader.next(into: &batch, max: RandomWalk.batchSize) {
                sharing.process(batch, with: run, reader: reader)
                sharing.record(fixes: batch.count)
                sharing.prepare(reader)
            }
        }
        return (t, run, cpu)
    }

    /// From file (and each other log in `files`) against in memory at the largest thread count,
    /// run in turn (in memory, then each file, again and again) so that a machine whose speed
    /// drifts from one block of runs to the next weighs on all alike; reports the ratios of the
    /// medians as percentages of in-memory, and the median of each round's own ratio. Checks
    /// every run's events against the first's.
    func interleaved(_ workload: String, _ compiled: CompiledFences, _ batches: [[Fix]], files: [(label: String, path: String)],
                     suite: String, repeats: Int) throws {
        let threads = threadCounts.last!
        var times = [[Double]](repeating: [], count: files.count + 1)
        var reference: (count: Int, hash: UInt64)? = nil
        for r in 0...repeats {  // round 0 is the warm-up
            for k in 0...files.count {
                let (t, run, _) = k == 0 ? evaluate(compiled, batches, threads: threads)
                                         : try readAndEvaluate(compiled, path: files[k - 1].path, threads: threads)
                let fp = eventFingerprint(run)
                if let reference { precondition(fp == reference, "event stream differs between in-memory and file runs") } else { reference = fp }
                if r > 0 { times[k].append(t) }
            }
        }
        let memory = Stats.median(times[0])
        for (k, f) in files.enumerated() {
            let share = memory / Stats.median(times[k + 1])
            // Each round's own ratio too (in memory over the same round's run of this file):
            // the runs of a round meet the machine in much the same state, so where its speed
            // changes from one round to the next, their median moves less than the ratio of
            // the medians.
            let rounds = Stats.median(zip(times[0], times[k + 1]).map { $0 / $1 })
            report.ratio(suite, workload, "\(threads)t \(f.label)/in-memory, in turn", share)
            report.note(String(format: "%@ at %d threads, run in turn with in-memory (%d rounds): %.0f%% of in-memory (medians %.3f ms and %.3f ms; median of the rounds' own ratios %.0f%%)",
                               f.label, threads, repeats, 100 * share, 1e3 * Stats.median(times[k + 1]), 1e3 * memory, 100 * rounds))
        }
    }

    /// Times LogReader → EvaluationRun over a file (the CLI's loop, without writing events); the
    /// run's threads read the file too.
    func fromFile(_ workload: String, _ compiled: CompiledFences, path: String, bytes: Int, suite: String,
                  fences: Int, repeats: Int, expectedFixes: Int?, engineSuffix: String = "") throws {
        var reference: (count: Int, hash: UInt64)? = nil
        var rates: [Int: Double] = [:]
        for threads in threadCounts {
            var times: [Double] = [], cpus: [Double] = []
            var fixes = 0
            for r in 0...repeats {
                let (t, run, cpu) = try readAndEvaluate(compiled, path: path, threads: threads)
                if r > 0 { cpus.append(cpu) }
                fixes = run.fixes
                if let e = expectedFixes { precondition(fixes == e, "every row read (\(fixes) of \(e))") }
                let fp = eventFingerprint(run)
                if let reference { precondition(fp == reference, "event stream differs between runs or thread counts") } else { reference = fp }
                if r > 0 { times.append(t) }
            }
            let s = Stats.median(times)
            rates[threads] = Double(fixes) / s
            report.add(BenchResult(suite: suite, workload: workload, engine: "ours \(threads) thread\(threads == 1 ? "" : "s")" + engineSuffix, metric: "fixes/s",
                                   value: Double(fixes) / s, higherIsBetter: true, fences: fences, fixes: fixes,
                                   note: String(format: "CSV %.0f MB, %.0f MB/s, %d events, median of %d; %@ fixes per CPU-second", Double(bytes) / 1e6,
                                                Double(bytes) / s / 1e6, reference!.count, repeats, Report.number(Double(fixes) / Stats.median(cpus))),
                                   cpuValue: Double(fixes) / Stats.median(cpus)))
        }
        if let one = rates[1], let many = rates.filter({ $0.key > 1 }).max(by: { $0.key < $1.key }) {
            report.ratio(suite, workload, "\(many.key)t/1t" + engineSuffix, many.value / one)
        }
    }

    // MARK: Synthetic

    func synthetic(_ n: Int, kind: String) throws {
        let w = kind == "uniform" ? Synthetic.uniform(count: n, queries: 0, seed: options.seed) : Synthetic.scaledCities(count: n, seed: options.seed)
        report.section("evaluate · \(w.name) fences, \(fixCount) random-walk fixes")
        let compiled = try CompiledFences(RandomWalk.engineFences(w.circles))
        let batches = RandomWalk.batches(fences: w.circles, fixes: fixCount, seed: options.seed)
        checkSample(compiled.index, w.circles, batches)
        if selected("evaluate-memory", w.name) {
            inMemory(w.name, compiled, batches, suite: "evaluate-memory", fences: n, repeats: repeats)
        }
        if selected("evaluate-file", w.name) {
            let dir = NSTemporaryDirectory() + "geofence-bench-\(getpid())"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let path = dir + "/fixes.csv"
            let bytes = try RandomWalk.writeCSV(batches, to: path)
            try fromFile(w.name, compiled, path: path, bytes: bytes, suite: "evaluate-file", fences: n, repeats: repeats,
                         expectedFixes: fixCount)
        }
    }

    /// Checks the index against the brute force on a sample of the fixes (state as docs/evaluation.md with accuracy).
    func checkSample(_ index: FenceIndex, _ circles: [CircleRecord], _ batches: [[Fix]]) {
        let brute = BruteForce(circles)
        var rng = SeededGenerator(benchmarkSeed: options.seed ^ 0x5EED_0005)
        let sample = min(2_000, max(100, Int(2e8 / Double(circles.count))))
        var a: [Int32] = [], b: [Int32] = []
        for _ in 0..<sample {
            let batch = batches[rng.int(batches.count)]
            let f = batch[rng.int(batch.count)]
            index.containing(lat: f.lat, lon: f.lon, into: &a)
            brute.containing(Point(lat: f.lat, lon: f.lon), into: &b)
            precondition(Fingerprint.set(a) == Fingerprint.set(b), "index and brute force disagree at fix \(f)")
        }
    }

    /// Cost vs the fix count at 100k fences, two ways: a longer log of the same
    /// 5,000 devices (fixes per device grow), and more devices of 200 fixes each
    /// (per-device state grows with the log).
    func fixScaling() throws {
        let n = 100_000
        let w = Synthetic.scaledCities(count: n, seed: options.seed)
        report.section("evaluate · fix-count scaling, \(w.name) fences")
        let compiled = try CompiledFences(RandomWalk.engineFences(w.circles))
        let threads = threadCounts.last!
        for fixedDevices in [true, false] {
            var points: [(x: Double, y: Double)] = []
            // Warm-up once on the smallest; then one timed run per size (10M fixes take a while here).
            var warmed = false
            for fixes in [1_000_000, 3_000_000, 10_000_000] {
                let devices = fixedDevices ? 5_000 : fixes / RandomWalk.fixesPerDevice
                let batches = RandomWalk.batches(fences: w.circles, fixes: fixes, devices: devices, seed: options.seed)
                var times: [Double] = []
                for r in 0...(warmed ? 0 : 1) {
                    let (t, run, _) = evaluate(compiled, batches, threads: threads)
                    precondition(run.fixes == fixes)
                    if warmed || r > 0 { times.append(t) }
                }
                warmed = true
                let s = Stats.median(times)
                points.append((Double(fixes), s))
                let how = fixedDevices ? "5000 devices" : "200 fixes/device"
                report.add(BenchResult(suite: "evaluate-fixes", workload: "\(w.name) × \(Synthetic.sizeName(fixes)) fixes, \(how)",
                                       engine: "ours \(threads) threads", metric: "fixes/s", value: Double(fixes) / s, higherIsBetter: true,
                                       fences: n, fixes: fixes,
                                       note: String(format: "%.3f s, one timed run, %d devices × %d fixes", s, devices, fixes / devices)))
            }
            if let k = Stats.logLogSlope(points) {
                let what = fixedDevices ? "5,000 devices, longer log" : "200 fixes per device, more devices"
                report.scaling.append(ScalingFit(what: "evaluate time vs fixes (100k fences, \(threads) threads, \(what))", exponent: k, points: points))
            }
        }
    }

    func fitFenceScaling() {
        for kind in EvaluateSuites.kinds {
            for threads in threadCounts {
                let engine = "ours \(threads) thread\(threads == 1 ? "" : "s")"
                let pts: [(x: Double, y: Double)] = report.results.compactMap { r in
                    guard r.suite == "evaluate-memory", r.engine == engine, r.workload.hasPrefix(kind + " "), let f = r.fences, let x = r.fixes else { return nil }
                    return (Double(f), Double(x) / r.value)
                }
                if pts.count >= 2, let k = Stats.logLogSlope(pts) {
                    report.scaling.append(ScalingFit(what: "evaluate time vs fences (\(kind), \(fixCount) fixes, \(engine))", exponent: k, points: pts))
                }
            }
        }
    }

    // MARK: Real

    struct RealCase {
        var name: String
        var fenceFiles: [String]
        var trace: String
    }

    func realCases(_ data: RealData) -> [RealCase] {
        let trace = data.traceName
        let counties = data.path("data/fetched/us_counties.geojson") != nil ? "data/fetched/us_counties.geojson" : "data/us_counties_va_nc.geojson"
        var cases = [
            RealCase(name: "airports+ports × AIS", fenceFiles: ["data/airports.csv", "data/ports.csv"], trace: trace),
            RealCase(name: "counties × AIS", fenceFiles: [counties], trace: trace),
            RealCase(name: "airports+ports+counties × AIS", fenceFiles: ["data/airports.csv", "data/ports.csv", counties], trace: trace),
        ]
        if data.hasFetched {
            cases.append(RealCase(name: "cities × AIS", fenceFiles: ["data/fetched/cities.csv"], trace: trace))
        }
        return cases
    }

    func real(_ data: RealData) throws {
        for c in realCases(data) where selected("evaluate-real", c.name) {
            let (fences, dropped) = try data.fences(c.fenceFiles)
            let (fixes, devices) = try data.fixes(c.trace)
            report.section("evaluate-real · \(c.name): \(fences.count) fences (\(c.fenceFiles.joined(separator: " + "))), \(fixes.count) fixes of \(devices) devices (\(c.trace))")
            if dropped > 0 { report.note("\(dropped) invalid fences dropped") }
            let compiled = try CompiledFences(fences)
            let index = compiled.index

            // The join alone (what the peers measure): every fix against the index, pairs counted.
            var buf: [Int32] = []
            var pairs = 0
            for f in fixes {
                index.containing(lat: f.lat, lon: f.lon, into: &buf)
                pairs += buf.count
            }
            let join = timeQueries(count: fixes.count, repeats: max(repeats, 3), warmup: fixes.count) { i in
                index.containing(lat: fixes[i].lat, lon: fixes[i].lon, into: &buf)
                return buf.count
            }
            var recount = 0
            for f in fixes { index.containing(lat: f.lat, lon: f.lon, into: &buf); recount += buf.count }
            precondition(recount == pairs, "join answer changed")
            report.add(BenchResult(suite: "evaluate-real", workload: c.name, engine: "ours join", metric: "fixes/s", value: join.perSecond,
                                   higherIsBetter: true, p50: join.p50, p90: join.p90, p99: join.p99, fences: fences.count, fixes: fixes.count,
                                   note: "containing() per fix, 1 thread, no state machine (the peers' workload); CPU time; wall " + Report.number(join.wallPerSecond) + "/s",
                                   wallValue: join.wallPerSecond, discarded: join.discarded))
            report.add(BenchResult(suite: "evaluate-real", workload: c.name, engine: "pairs", metric: "count", value: Double(pairs),
                                   higherIsBetter: true, fences: fences.count, fixes: fixes.count,
                                   note: "(fix, fence) pairs with the fix inside (answer check for the peers)"))
            var batches: [[Fix]] = []
            var k = 0
            while k < fixes.count {
                batches.append(Array(fixes[k..<min(fixes.count, k + RandomWalk.batchSize)]))
                k += RandomWalk.batchSize
            }
            // A bundled trace takes a millisecond or two: many repeats, so that the medians hold
            // still on a noisy machine.
            let runs = fixes.count < 100_000 && !options.quick ? 31 : max(repeats, 5)
            inMemory(c.name, compiled, batches, suite: "evaluate-real", fences: fences.count, repeats: runs)
            if let path = data.path(c.trace) {
                let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                try fromFile(c.name, compiled, path: path, bytes: bytes, suite: "evaluate-real", fences: fences.count,
                             repeats: runs, expectedFixes: fixes.count, engineSuffix: " file")
                // The same log gzip-compressed (inflated on the reading thread, parsed by all).
                let gz = NSTemporaryDirectory() + "geofence-bench-\(getpid())-trace.csv.gz"
                defer { try? FileManager.default.removeItem(atPath: gz) }
                var files = [(label: "file", path: path)]
                if gzip(path, to: gz) {
                    let gzBytes = (try? FileManager.default.attributesOfItem(atPath: gz)[.size] as? Int) ?? 0
                    try fromFile(c.name, compiled, path: gz, bytes: gzBytes, suite: "evaluate-real", fences: fences.count,
                                 repeats: runs, expectedFixes: fixes.count, engineSuffix: " gzip file")
                    files.append((label: "gzip", path: gz))
                }
                // The blocks above run one after the other: on a machine whose speed drifts, their
                // ratios drift too. The same runs in turn give the ratios to judge by, over at
                // least 15 rounds (with 5, one slow in-memory block moved a ratio by 17 points).
                try interleaved(c.name, compiled, batches, files: files, suite: "evaluate-real",
                                repeats: options.quick ? runs : max(runs, 15))
            }
        }
    }
}

/// Compresses `path` to `out` with the system gzip (false when it is missing or fails).
func gzip(_ path: String, to out: String) -> Bool {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/gzip")
    p.arguments = ["-c", path]
    guard FileManager.default.createFile(atPath: out, contents: nil), let h = FileHandle(forWritingAtPath: out) else { return false }
    defer { try? h.close() }
    p.standardOutput = h
    do { try p.run() } catch { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}
