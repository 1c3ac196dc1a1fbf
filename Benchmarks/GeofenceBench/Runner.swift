import Foundation
import GeofenceTestSupport
import GeofenceKit

/// Runs the selected suites and writes the outputs.
struct Runner {
    let options: BenchOptions

    static let suites: [(name: String, what: String)] = [
        ("index-build", "build time of our index and of GEOS's STRtree, 1k–1M circles, synthetic and real"),
        ("index-memory", "bytes per fence: our index (footprint), our table, RSS growth; GEOS RSS growth"),
        ("index-point", "point query (containing): ours vs brute force vs GEOS STRtree + exact test"),
        ("index-nearest20", "nearest-20 by boundary distance: ours vs brute force vs GEOS window expansion"),
        ("index-polygons", "point query over polygons: real outlines (counties, countries) and seeded sets of county outlines 1k–1M (uniform, clustered); ours vs brute force vs GEOS STRtree + prepared covers"),
        ("evaluate-memory", "end to end from in-memory fixes: EvaluationRun.process, 1 and 2 threads, synthetic 1k–1M circles, 10k–100k polygons"),
        ("evaluate-file", "end to end from a CSV file: LogReader → EvaluationRun, 1 and 2 threads"),
        ("evaluate-fixes", "scaling in the fix count at 100k fences (1M → 10M fixes)"),
        ("evaluate-real", "real fences × real AIS traces: airports + ports + counties, cities; join alone and end to end"),
        ("evaluate-scattered", "fixes uniform on the sphere (consecutive fixes far apart) × small circles 10k–1M and polygons 10k–100k: join, in memory, whole CLI run from the files"),
        ("evaluate-dense", "a device inside k = 10, 1k, 100k fences at once: cost per fix grows like k, not k²; vs a brute force of exact distances"),
        ("plan", "rotation planning cost: Planner.plan (guaranteed, centre, trigger) at 100k and 1M circles, p50/p99"),
        ("fences", "fence files: load time and peak RSS per format (GeoJSON, CSV, compiled) at 10k–1M circles (10M with --fences-10m), 10k–100k polygons, airports-like 64k"),
        ("subset", "tile bundles (1 and 2 threads, coverage checked) and bbox/radius/nearest selectors vs brute force; bundle write"),
    ]

    func run() -> Int32 {
        if options.list {
            for s in Runner.suites { print(s.name.padding(toLength: 18, withPad: " ", startingAt: 0) + s.what) }
            return 0
        }
        if let n = options.checkParse { return ParseCheck.run(count: n, seed: options.seed) }
        if let saved = options.renderPath {
            guard let report = Report.load(saved) else {
                FileHandle.standardError.write(Data("geofence-bench: cannot read \(saved) (a --json output)\n".utf8))
                return 66
            }
            Targets.judge(report)
            report.printSummary()
            if let path = options.chartPath {
                do { try Chart.svg(report, peersPath: options.peersPath).write(toFile: path, atomically: true, encoding: .utf8) } catch {
                    FileHandle.standardError.write(Data("geofence-bench: cannot write \(path): \(error)\n".utf8))
                    return 74
                }
                print("wrote \(path)")
            }
            return 0
        }
        let start = Clock.now()
        let machine = MachineFacts.collect()
        let report = Report()
        print("geofence-bench \(options.quick ? "--quick (answers checked; timings not meaningful)" : "(full)")")
        print("machine: \(machine.summary)")
        if !options.filters.isEmpty { print("filters: \(options.filters.joined(separator: ", "))") }
        let data = RealData.locate(options.root)
        if let data { print("data: \(data.root)/data\(data.hasFetched ? " (+ fetched)" : " (data/fetched missing: run scripts/fetch-data for the large real sets)")") }
        do {
            try IndexSuites(options: options, report: report, data: data).run()
            if let data { try PolygonSuite(options: options, report: report, data: data).run() }
            try EvaluateSuites(options: options, report: report, data: data).run()
            try ScatteredSuite(options: options, report: report, data: data).run()
            try DenseSuite(options: options, report: report).run()
            try PlanSuite(options: options, report: report).run()
            try SubsetSuite(options: options, report: report, data: data).run()
            try FenceFileSuite(options: options, report: report).run()
        } catch {
            FileHandle.standardError.write(Data("geofence-bench: \(error)\n".utf8))
            return 70
        }
        Targets.judge(report)
        report.printSummary()
        let seconds = Double(Clock.now() - start) / 1e9
        print(String(format: "\ntotal %.1f s, peak RSS %.0f MB", seconds, Double(ProcessMemory.read().peak) / 1e6))
        if let path = options.jsonPath {
            let text = JSONWriter.string(report.json(machine: machine, options: options, seconds: seconds)) + "\n"
            do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
                FileHandle.standardError.write(Data("geofence-bench: cannot write \(path): \(error)\n".utf8))
                return 74
            }
            print("wrote \(path)")
        }
        if let path = options.chartPath {
            do { try Chart.svg(report, peersPath: options.peersPath).write(toFile: path, atomically: true, encoding: .utf8) } catch {
                FileHandle.standardError.write(Data("geofence-bench: cannot write \(path): \(error)\n".utf8))
                return 74
            }
            print("wrote \(path)")
        }
        if let path = options.checkPath {
            return Baseline.check(report, against: path, tolerance: options.tolerance)
        }
        return 0
    }
}
