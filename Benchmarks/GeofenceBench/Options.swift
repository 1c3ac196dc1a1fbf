import GeofenceKit
import GeofenceTestSupport
import Foundation

/// Command line of `geofence-bench` (docs/cli.md).
struct BenchOptions {
    var quick = false
    var filters: [String] = []
    var jsonPath: String?
    var chartPath: String?
    var checkPath: String?
    /// Allowed slowdown before `--check` calls it a regression (0.25 = 25 % slower).
    var tolerance = 0.25
    var list = false
    /// Peers' JSON (Benchmarks/peers) added to the chart.
    var peersPath: String?
    /// Render the chart (and targets) from a saved --json output instead of running.
    var renderPath: String?
    /// Root of the repository (for data/); found from the working directory by default.
    var root: String?
    var seed: UInt64 = 20_260_905
    /// The `fences` suite also measures 10M circles (minutes, several GB of files).
    var tenMillionFences = false
    /// Where the `fences` suite writes its files and keeps them (default: a temporary directory, removed).
    var fenceFilesDir: String?
    /// `--check-parse N`: check the decimal parser against strtod on N random texts instead of benchmarking.
    var checkParse: Int?
    /// `--scattered-dir DIR`: keep the scattered workload's files (and a manifest for the peers) there.
    var scatteredDir: String?

    static let usage = """
    usage: geofence-bench [--quick] [--filter NAME]... [--json OUT] [--chart OUT.svg]
                          [--check BASELINE.json [--tolerance 0.25]] [--list] [--data-root DIR] [--seed N]
                          [--peers PEERS.json] [--render RESULTS.json] [--fences-10m] [--fence-files DIR]
                          [--scattered-dir DIR] [--check-parse N]

    Runs the benchmark suites of the fence index and the evaluator (release builds only).
      --quick            small sizes, checks answers, under 2 minutes (CI smoke test; never judge timings)
      --filter NAME      run only suites whose name contains NAME (repeatable; case-insensitive)
      --json OUT         write machine facts and every result as JSON
      --chart OUT.svg    write the throughput-vs-fence-count chart (SVG)
      --check BASE.json  compare throughputs with a previous --json output; exit 1 on a regression
                         beyond --tolerance (fraction, default 0.25)
      --peers FILE       add the peers' figures (Benchmarks/peers JSON) to the chart
      --render FILE      do not run: redraw the chart and the summary from a saved --json output
      --list             list the suites and exit
      --data-root DIR    repository root holding data/ (default: found from the current directory)
      --seed N           seed of every synthetic workload (default 20260905)
      --fences-10m       the fences suite also loads 10M circles (slow: several GB of files)
      --fence-files DIR  the fences suite writes its fence files to DIR and keeps them (reused when present)
      --scattered-dir D  keep the evaluate-scattered files (fixes, fences, manifest.json) in D for the peers
      --check-parse N    do not benchmark: the decimal parser bit for bit against strtod on the
                         adversarial set and N seeded random texts, then the CSV rows' C path on
                         the same and on the numbers nearest halfway points, at every level the
                         CPU has; exit 1 on a mismatch
    Exit codes: 0 ok, 1 regression (--check) or parse mismatch (--check-parse), 2 debug build, 64 usage.
    """

    static func parse(_ args: [String]) -> BenchOptions {
        var o = BenchOptions()
        var i = 0
        func value(_ name: String) -> String {
            i += 1
            guard i < args.count else { fail("option '\(name)' needs a value") }
            return args[i]
        }
        while i < args.count {
            let a = args[i]
            switch a {
            case "--quick": o.quick = true
            case "--filter": o.filters.append(value(a).lowercased())
            case "--json": o.jsonPath = value(a)
            case "--chart": o.chartPath = value(a)
            case "--check": o.checkPath = value(a)
            case "--tolerance":
                guard let t = Double(value(a)), t >= 0 else { fail("--tolerance needs a number >= 0") }
                o.tolerance = t
            case "--list": o.list = true
            case "--scattered-dir": o.scatteredDir = value(a)
            case "--check-parse":
                guard let n = Int(value(a)), n >= 0 else { fail("--check-parse needs a count >= 0") }
                o.checkParse = n
            case "--peers": o.peersPath = value(a)
            case "--render": o.renderPath = value(a)
            case "--data-root": o.root = value(a)
            case "--fences-10m": o.tenMillionFences = true
            case "--fence-files": o.fenceFilesDir = value(a)
            case "--seed":
                guard let s = UInt64(value(a)) else { fail("--seed needs an unsigned integer") }
                o.seed = s
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument '\(a)'")
            }
            i += 1
        }
        return o
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("geofence-bench: \(message)\n\(usage)\n".utf8))
        exit(64)
    }

    func selects(_ suite: String) -> Bool {
        filters.isEmpty || filters.contains { suite.lowercased().contains($0) }
    }
}
