import Foundation
import GeofenceTestSupport
import GeofenceKit

/// Fence files (`fences`): load time and peak memory per format (GeoJSON, CSV, compiled
/// `.gfc`) for seeded circle sets (10k–1M; 10M with `--fences-10m`) and polygon sets
/// (10k, 100k), plus an airports-shaped GeoJSON (64k circles with airport-like properties,
/// ~13 MB).
///
/// - **load**: in process, `FenceSet.load` without properties (what querying and evaluating
///   read: parse and checks, no index) for text files, `CompiledFenceFile.open` (checks
///   included) for compiled ones; best of 3 (2 at 1M, 1 at 10M).
/// - **open + index**: `Geofencer(contentsOf:)`, the fences ready for queries; **resident**:
///   the RSS it holds then (VmRSS after `malloc_trim`, minus the same before), per fence: what
///   a fence costs while querying and evaluating, the load's scratch memory released.
/// - **nearest (process)**: `geofence nearest --fences F --at 0,0` run as a child process:
///   wall time from start to exit (median of 5; 1 at 10M), and its peak RSS (GNU time's `%M`); bytes/fence is that peak
///   minus the peak of the same command on a one-fence file, divided by the fence count.
///   The answers of the three formats must be identical (checked).
///
/// The files are written to a temporary directory (or `--fence-files DIR`, kept, for the
/// peers' run to read the same GeoJSON) and removed afterwards.
struct FenceFileSuite {
    let options: BenchOptions
    let report: Report

    var circleSizes: [Int] {
        if options.quick { return [10_000] }
        return [10_000, 100_000, 1_000_000] + (options.tenMillionFences ? [10_000_000] : [])
    }
    var polygonSizes: [Int] { options.quick ? [10_000] : [10_000, 100_000] }

    func selected(_ workload: String) -> Bool {
        options.filters.isEmpty || options.filters.contains { "fences \(workload)".lowercased().contains($0) }
    }

    func run() throws {
        let dir = options.fenceFilesDir ?? (NSTemporaryDirectory() + "geofence-bench-fences-\(getpid())")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { if options.fenceFilesDir == nil { try? FileManager.default.removeItem(atPath: dir) } }
        guard let cli = FenceFileSuite.cliPath() else {
            report.note("fences: the geofence binary is not next to geofence-bench; build it (swift build -c release --product geofence) for the process figures")
            return
        }
        // Baseline: the command on a one-fence file.
        let one = dir + "/one.csv"
        try "id,lat,lon,radius\nx,0,0,1\n".write(toFile: one, atomically: true, encoding: .utf8)
        let base = try FenceFileSuite.child(cli, ["nearest", "--fences", one, "--at", "0,0"])
        var workloads: [(String, Int, Bool)] = [("airports-like 64k", 64_000, true)]
        for n in circleSizes { workloads.append(("circles \(Synthetic.sizeName(n))", n, true)) }
        for n in polygonSizes { workloads.append(("polygons \(Synthetic.sizeName(n))", n, false)) }
        for (name, n, circles) in workloads where selected(name) {
            report.section("fences \(name)")
            let stem = dir + "/" + name.replacingOccurrences(of: " ", with: "-")
            var paths: [(String, String)] = []
            let geojson = stem + ".geojson"
            if !FileManager.default.fileExists(atPath: geojson) {
                try FenceFileSuite.write(name: name, count: n, circles: circles, seed: options.seed, geojson: geojson,
                                         csv: circles && name.hasPrefix("circles") ? stem + ".csv" : nil)
            }
            paths.append(("GeoJSON", geojson))
            if FileManager.default.fileExists(atPath: stem + ".csv") { paths.append(("CSV", stem + ".csv")) }
            let gfc = stem + ".gfc"
            if !FileManager.default.fileExists(atPath: gfc) {
                let c = try FenceFileSuite.child(cli, ["compile", "--fences", geojson, "-o", gfc])
                precondition(c.status == 0, "compile failed")
            }
            paths.append(("compiled", gfc))
            var answers: [String] = []
            for (format, path) in paths {
                let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                let runs = n >= 10_000_000 ? 1 : n >= 1_000_000 ? 2 : 3
                var best = Double.infinity, bestIndex = Double.infinity
                var resident = 0
                for _ in 0..<runs {
                    ProcessMemory.trim()
                    let t0 = Clock.now()
                    let count: Int
                    if format == "compiled" {
                        count = try CompiledFenceFile.open(path: path).index.count
                    } else {
                        count = try FenceSet.load(paths: [path], crs: nil, checkPolygons: false, keepProperties: false).fences.count
                    }
                    let t1 = Clock.now()
                    precondition(count == n, "\(path): \(count) fences, expected \(n)")
                    best = min(best, Double(t1 - t0) / 1e6)
                    ProcessMemory.trim()
                    let before = ProcessMemory.read().rss
                    let t2 = Clock.now()
                    let g = try Geofencer(contentsOf: [path])
                    bestIndex = min(bestIndex, Double(Clock.now() - t2) / 1e6)
                    ProcessMemory.trim()
                    resident = ProcessMemory.read().rss - before
                    precondition(g.compiled.index.count == n)
                }
                let note = "\(format), \(String(format: "%.1f", Double(bytes) / 1e6)) MB file"
                report.add(BenchResult(suite: "fences", workload: name, engine: "\(format) load", metric: "ms", value: best,
                                       higherIsBetter: false, fences: n, note: note + "; parse and checks, one thread"))
                report.add(BenchResult(suite: "fences", workload: name, engine: "\(format) open+index", metric: "ms", value: bestIndex,
                                       higherIsBetter: false, fences: n, note: "Geofencer(contentsOf:), ready for queries"))
                report.add(BenchResult(suite: "fences", workload: name, engine: "\(format) resident", metric: "bytes/fence",
                                       value: Double(resident) / Double(n), higherIsBetter: false, fences: n,
                                       note: "RSS held by the opened fences, ready for queries (in process, after malloc_trim)"))
                // The process figures: the median wall time of 5 runs (1 at 10M), the peak RSS of the median run.
                var children: [ChildRun] = []
                for _ in 0..<(n >= 10_000_000 ? 1 : 5) {
                    let run = try FenceFileSuite.child(cli, ["nearest", "--fences", path, "--at", "0,0"])
                    precondition(run.status == 0, "nearest failed on \(path)")
                    children.append(run)
                }
                let c = children.sorted { $0.seconds < $1.seconds }[children.count / 2]
                answers.append(c.stdout)
                report.add(BenchResult(suite: "fences", workload: name, engine: "\(format) nearest", metric: "ms", value: c.seconds * 1000,
                                       higherIsBetter: false, fences: n, note: "geofence nearest, process start to exit, median of \(children.count)"))
                report.add(BenchResult(suite: "fences", workload: name, engine: "\(format) peak RSS", metric: "MB", value: Double(c.peakRSS) / 1e6,
                                       higherIsBetter: false, fences: n, note: "geofence nearest, whole process"))
                report.add(BenchResult(suite: "fences", workload: name, engine: "\(format) memory", metric: "bytes/fence",
                                       value: Double(c.peakRSS - base.peakRSS) / Double(n), higherIsBetter: false, fences: n,
                                       note: "peak RSS minus a one-fence run, per fence"))
            }
            precondition(Set(answers).count == 1, "\(name): the formats answer differently")
        }
    }

    // MARK: Files

    /// Writes the seeded fences as GeoJSON (and CSV for the circle sets), streaming.
    static func write(name: String, count n: Int, circles: Bool, seed: UInt64, geojson: String, csv: String?) throws {
        var rng = SeededGenerator(benchmarkSeed: seed ^ 0xFE4C_E000 ^ UInt64(n))
        let airports = name.hasPrefix("airports")
        let g = try ChunkWriter(geojson), c = try csv.map { try ChunkWriter($0) }
        g.add("{\"type\":\"FeatureCollection\",\"features\":[\n")
        c?.add(airports ? "id,lat,lon,radius,name,iata,country,city,elevation,tz\n" : "id,lat,lon,radius,name\n")
        func f6(_ v: Double) -> String { String(format: "%.6f", v) }
        for k in 0..<n {
            let p = Synthetic.uniformOnSphere(&rng)
            let lat = max(-85, min(85, p.lat)), lon = max(-179, min(179, p.lon))
            let sep = k + 1 < n ? ",\n" : "\n"
            if circles {
                let r = (rng.logUniform(100, 5_000) * 10).rounded() / 10
                if airports {
                    let code = String(format: "%c%c%c", 65 + rng.int(26), 65 + rng.int(26), 65 + rng.int(26))
                    g.add("{\"type\":\"Feature\",\"id\":\"A\(k)\",\"properties\":{\"radius\":\(r),\"name\":\"Airport \(k)\",\"iata\":\"\(code)\",\"country\":\"C\(rng.int(250))\",\"city\":\"City \(rng.int(20_000))\",\"elevation\":\(rng.int(4_000)),\"tz\":\"Zone/City_\(rng.int(400))\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(f6(lon)),\(f6(lat))]}}" + sep)
                } else {
                    g.add("{\"type\":\"Feature\",\"id\":\"c\(k)\",\"properties\":{\"radius\":\(r),\"name\":\"site \(k)\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(f6(lon)),\(f6(lat))]}}" + sep)
                    c?.add("c\(k),\(f6(lat)),\(f6(lon)),\(r),site \(k)\n")
                }
            } else {
                // A convex 8–24-gon of 0.2–3 km radius.
                let m = 8 + rng.int(17), rad = rng.uniform(200, 3_000) / Synthetic.metresPerDegree
                let s = max(0.2, cos(lat * Double.pi / 180))
                var ring: [String] = []
                for j in 0..<m {
                    let a = 2 * Double.pi * Double(j) / Double(m)
                    ring.append("[\(f6(lon + rad * cos(a) / s)),\(f6(lat + rad * sin(a)))]")
                }
                ring.append(ring[0])
                g.add("{\"type\":\"Feature\",\"id\":\"p\(k)\",\"properties\":{\"name\":\"zone \(k)\"},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[\(ring.joined(separator: ","))]]}}" + sep)
            }
        }
        g.add("]}\n")
        try g.close(); try c?.close()
    }

    /// Appends text to a file through a 1 MB buffer.
    final class ChunkWriter {
        let handle: FileHandle
        var buffer: [UInt8] = []
        init(_ path: String) throws {
            guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
                throw CocoaError(.fileWriteUnknown)
            }
            handle = h
            buffer.reserveCapacity(1 << 20)
        }
        func add(_ s: String) {
            buffer.append(contentsOf: s.utf8)
            if buffer.count >= 1 << 20 { handle.write(Data(buffer)); buffer.removeAll(keepingCapacity: true) }
        }
        func close() throws { handle.write(Data(buffer)); buffer = []; try handle.close() }
    }

    // MARK: Child processes

    /// The `geofence` binary next to this one.
    static func cliPath() -> String? {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let p = me.deletingLastPathComponent().appendingPathComponent("geofence").path
        return FileManager.default.isExecutableFile(atPath: p) ? p : nil
    }

    struct ChildRun {
        var status: Int32
        var seconds: Double
        var peakRSS: Int
        var stdout: String
    }

    /// Runs a command under GNU time (`/usr/bin/time -f %M`: the peak RSS of the command
    /// alone; a child spawned from this process would count this process's pages until its
    /// exec), returns its exit status, wall time, peak RSS and output.
    static func child(_ path: String, _ args: [String]) throws -> ChildRun {
        let out = NSTemporaryDirectory() + "geofence-bench-child-\(getpid()).out"
        let rss = NSTemporaryDirectory() + "geofence-bench-child-\(getpid()).rss"
        defer { unlink(out); unlink(rss) }
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { throw CocoaError(.executableNotLoadable) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([time, "-f", "%M", "-o", rss, path] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let t0 = Clock.now()
        guard posix_spawn(&pid, time, &actions, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(Clock.now() - t0) / 1e9
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let kb = ((try? String(contentsOfFile: rss, encoding: .utf8)) ?? "").split(separator: "\n").last.flatMap { Int($0) } ?? 0
        return ChildRun(status: exit, seconds: seconds, peakRSS: kb * 1024, stdout: text)
    }
}
