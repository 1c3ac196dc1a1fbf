import Foundation
import GeofenceTestSupport
import GeofenceKit

/// `evaluate-scattered`: the scattered fixes of `Scattered` (uniform on the sphere, a device's
/// consecutive fixes far apart) against small circles (the uniform world set, 10k–1M) and
/// small polygons (county outlines 200 m–5 km, uniform, 10k and 100k).
///
/// Rows per fence set: the join alone (`containing` per fix, 1 thread, CPU time), the pair
/// count, evaluation in memory (1 and 2 threads), and the **whole CLI run from the files**
/// (`geofence evaluate` as a child process: fence load and compile, CSV read, evaluation,
/// events written to /dev/null; wall clock, 1 and 2 threads). The files and a manifest for the
/// peers (`peers/peers.py --scattered DIR`) go to `--scattered-dir` when it is given.
struct ScatteredSuite {
    let options: BenchOptions
    let report: Report
    let data: RealData?

    var fixCount: Int { options.quick ? 100_000 : 1_000_000 }
    var circleSizes: [Int] { options.quick ? [10_000] : [10_000, 100_000, 1_000_000] }
    var polygonSizes: [Int] { options.quick ? [10_000] : [10_000, 100_000] }
    var repeats: Int { options.quick ? 1 : 3 }

    func selected(_ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "evaluate-scattered \(workload)".lowercased().contains($0) }
    }

    /// The `geofence` binary built beside this one (`swift build -c release --product geofence`).
    static var cli: String? {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let path = me.deletingLastPathComponent().appendingPathComponent("geofence").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    func run() throws {
        let names = circleSizes.map { "circles \(Synthetic.sizeName($0))" } + polygonSizes.map { "polygons \(Synthetic.sizeName($0))" }
        guard names.contains(where: selected) else { return }
        let keep = options.scatteredDir
        let dir = keep ?? NSTemporaryDirectory() + "geofence-bench-scattered-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { if keep == nil { try? FileManager.default.removeItem(atPath: dir) } }

        let batches = Scattered.batches(fixes: fixCount, seed: options.seed)
        let fixPath = dir + "/fixes.csv"
        let bytes = try RandomWalk.writeCSV(batches, to: fixPath)
        let evaluate = EvaluateSuites(options: options, report: report, data: data)
        var sets: [JSONValue] = []

        for n in circleSizes where selected("circles \(Synthetic.sizeName(n))") {
            let w = Synthetic.uniform(count: n, queries: 0, seed: options.seed)
            let path = dir + "/circles_\(Synthetic.sizeName(n)).csv"
            try Scattered.writeCircles(w.circles, to: path)
            let compiled = try CompiledFences(RandomWalk.engineFences(w.circles))
            evaluate.checkSample(compiled.index, w.circles, batches)
            let name = "circles \(Synthetic.sizeName(n)) × \(Synthetic.sizeName(fixCount)) scattered"
            report.section("evaluate-scattered · \(name): centres uniform on the sphere, radii 100 m–5 km log-uniform; fixes uniform on the sphere, \(Scattered.fixesPerDevice) per device")
            let pairs = try measure(name, compiled, batches, fences: n, fencePath: path, fixPath: fixPath, bytes: bytes, evaluate: evaluate)
            sets.append(.object([("name", .string(name)), ("kind", .string("circles")), ("fences", .string(path)),
                                 ("count", .number(Double(n))), ("pairs", .number(Double(pairs)))]))
        }
        var templates: OutlineTemplates? = nil
        for n in polygonSizes where selected("polygons \(Synthetic.sizeName(n))") {
            guard let data else { report.note("polygons skipped: data/ not found"); break }
            if templates == nil { templates = try OutlineTemplates.counties(data) }
            let w = Synthetic.polygons(kind: "uniform", count: n, queries: 0, templates: templates!, seed: options.seed)
            let path = dir + "/polygons_\(Synthetic.sizeName(n)).geojson"
            try Scattered.writePolygons(w.polygons, to: path)
            let compiled = try CompiledFences(w.polygons.map(Fence.polygon))
            evaluate.checkSample(compiled.index, PolygonBruteForce(w.polygons), batches)
            let name = "polygons \(Synthetic.sizeName(n)) × \(Synthetic.sizeName(fixCount)) scattered"
            report.section("evaluate-scattered · \(name): county outlines (\(templates!.summary)), 200 m–5 km across, uniform by area over lat −60…70; fixes uniform on the sphere")
            let pairs = try measure(name, compiled, batches, fences: n, fencePath: path, fixPath: fixPath, bytes: bytes, evaluate: evaluate)
            sets.append(.object([("name", .string(name)), ("kind", .string("polygons")), ("fences", .string(path)),
                                 ("count", .number(Double(n))), ("pairs", .number(Double(pairs)))]))
        }
        if keep != nil {
            let manifest = JSONValue.object([("fixes", .string(fixPath)), ("fix_count", .number(Double(fixCount))),
                                             ("seed", .number(Double(options.seed))), ("sets", .array(sets))])
            try (JSONWriter.string(manifest) + "\n").write(toFile: dir + "/manifest.json", atomically: true, encoding: .utf8)
            report.note("scattered workload files and manifest.json in \(dir)")
        }
    }

    /// The rows of one fence set; returns the pair count.
    func measure(_ name: String, _ compiled: CompiledFences, _ batches: [[Fix]], fences: Int, fencePath: String,
                 fixPath: String, bytes: Int, evaluate: EvaluateSuites) throws -> Int {
        let index = compiled.index
        let fixes = batches.flatMap { $0 }
        var buf: [Int32] = []
        var pairs = 0
        for f in fixes { index.containing(lat: f.lat, lon: f.lon, into: &buf); pairs += buf.count }
        let join = timeQueries(count: fixes.count, repeats: repeats, warmup: min(fixes.count, 200_000)) { i in
            index.containing(lat: fixes[i].lat, lon: fixes[i].lon, into: &buf)
            return buf.count
        }
        report.add(BenchResult(suite: "evaluate-scattered", workload: name, engine: "ours join", metric: "fixes/s", value: join.perSecond,
                               higherIsBetter: true, p50: join.p50, p90: join.p90, p99: join.p99, fences: fences, fixes: fixes.count,
                               note: "in memory: containing() per fix, 1 thread, no state machine; CPU time; wall " + Report.number(join.wallPerSecond) + "/s",
                               wallValue: join.wallPerSecond, discarded: join.discarded))
        report.add(BenchResult(suite: "evaluate-scattered", workload: name, engine: "pairs", metric: "count", value: Double(pairs),
                               higherIsBetter: true, fences: fences, fixes: fixes.count, note: "(fix, fence) pairs with the fix inside"))
        evaluate.inMemory(name, compiled, batches, suite: "evaluate-scattered", fences: fences, repeats: repeats)
        let events = EvaluationRun(compiled: compiled, settings: EvaluationSettings(), threads: 1)
        for b in batches { events.process(b) }
        try wholeRun(name, fences: fences, fencePath: fencePath, fixPath: fixPath, bytes: bytes, expectedEvents: events.events.count)
        return pairs
    }

    /// `geofence evaluate` from the files, whole process timed (warm-up, then the median of
    /// `repeats`), 1 and 2 threads; the summary's fix and event counts must equal the in-memory run's.
    func wholeRun(_ name: String, fences: Int, fencePath: String, fixPath: String, bytes: Int, expectedEvents: Int) throws {
        guard let cli = ScatteredSuite.cli else {
            report.note("whole CLI run skipped: no geofence binary beside geofence-bench (swift build -c release --product geofence)")
            return
        }
        let summary = NSTemporaryDirectory() + "geofence-bench-summary-\(getpid()).json"
        defer { try? FileManager.default.removeItem(atPath: summary) }
        // The same fences compiled once (`geofence compile`, timed apart): the run then opens them.
        let compiledPath = NSTemporaryDirectory() + "geofence-bench-scattered-\(getpid()).gfc"
        defer { try? FileManager.default.removeItem(atPath: compiledPath) }
        let compileSeconds = try ScatteredSuite.timed(cli, ["compile", "--fences", fencePath, "-o", compiledPath], what: fencePath)
        let threadCounts = Array(Set([1, max(2, ProcessInfo.processInfo.activeProcessorCount)])).sorted()
        for (compiled, threads) in [false, true].flatMap({ c in threadCounts.map { (c, $0) } }) {
            var times: [Double] = []
            var fenceSeconds: [Double] = []
            for r in 0...repeats {
                let t = try ScatteredSuite.timed(cli, ["evaluate", "--fences", compiled ? compiledPath : fencePath, "--log", fixPath,
                                                       "--threads", "\(threads)", "--quiet", "--summary", summary], what: fencePath)
                let s = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: summary))))
                let counts = s["events"]
                let events = ["enter", "exit", "dwell"].reduce(0) { $0 + Int(counts?[$1]?.doubleValue ?? -1) }
                precondition(Int(s["fixes"]?.doubleValue ?? -1) == fixCount, "the CLI read every fix")
                precondition(events == expectedEvents, "the CLI's events (\(events)) equal the in-memory run's (\(expectedEvents))")
                if r > 0 { times.append(t); fenceSeconds.append(s["fence_seconds"]?.doubleValue ?? 0) }
            }
            let secs = Stats.median(times)
            let engine = "ours \(threads) thread\(threads == 1 ? "" : "s") CLI" + (compiled ? " compiled" : "")
            let source = compiled ? String(format: "compiled fences (compiled once apart in %.2f s), open", compileSeconds) : "fence load"
            report.add(BenchResult(suite: "evaluate-scattered", workload: name, engine: engine,
                                   metric: "fixes/s", value: Double(fixCount) / secs, higherIsBetter: true, fences: fences, fixes: fixCount,
                                   note: String(format: "from file: whole `geofence evaluate` run (%@ %.2f s included, CSV %.0f MB, %d events), median of %d (%.3f s)",
                                                source, Stats.median(fenceSeconds), Double(bytes) / 1e6, expectedEvents, repeats, secs)))
        }
    }

    /// Runs `geofence ARGS` (stdout discarded) and returns its wall time in seconds, from
    /// `posix_spawn` to `wait4`. (Foundation's `Process.waitUntilExit` polls its run loop, which
    /// added up to ~0.1 s to a 0.15 s run.)
    /// - Throws: `BenchError.failed` when it exits non-zero or cannot be started.
    static func timed(_ cli: String, _ args: [String], what: String) throws -> Double {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([cli] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let t0 = Clock.now()
        guard posix_spawn(&pid, cli, &actions, nil, argv, environ) == 0 else {
            throw BenchError.failed("cannot start \(cli) on \(what)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let seconds = Double(Clock.now() - t0) / 1e9
        guard status == 0 else { throw BenchError.failed("geofence \(args[0]) exited with status \(status) on \(what)") }
        return seconds
    }
}
