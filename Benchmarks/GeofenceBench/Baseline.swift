import Foundation
import GeofenceTestSupport
import GeofenceKit

/// `--check BASELINE.json`: compares this run's figures with a previous `--json`
/// output, result by result (same suite, workload, engine and metric), and
/// fails when one is worse by more than the tolerance. Results missing from
/// either side are listed, not failed. Meant for full runs on the same machine.
enum Baseline {
    static func check(_ report: Report, against path: String, tolerance: Double) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path), let json = try? JSONParser.parse([UInt8](data)),
              let results = json["results"]?.arrayValue else {
            FileHandle.standardError.write(Data("geofence-bench: cannot read baseline \(path) (a --json output)\n".utf8))
            return 66
        }
        var base: [String: Double] = [:]
        for r in results {
            guard let s = r["suite"]?.stringValue, let w = r["workload"]?.stringValue, let e = r["engine"]?.stringValue,
                  let m = r["metric"]?.stringValue, let v = r["value"]?.doubleValue else { continue }
            base["\(s) | \(w) | \(e) | \(m)"] = v
        }
        var regressions: [String] = [], compared = 0
        for r in report.results where r.engine.hasPrefix("ours") {
            guard let b = base[r.key], b > 0, r.value > 0 else { continue }
            compared += 1
            // Higher is better: regression when value < b (1 - tol); lower is better: value > b (1 + tol).
            let worse = r.higherIsBetter ? r.value < b * (1 - tolerance) : r.value > b * (1 + tolerance)
            if worse {
                regressions.append(String(format: "%@: %@ now, %@ in baseline (%+.0f%%)", r.key, Report.number(r.value), Report.number(b),
                                          (r.value / b - 1) * 100))
            }
        }
        print("")
        print("== check against \(path): \(compared) figures compared, tolerance \(Int(tolerance * 100))%")
        for s in regressions { print("   REGRESSION " + s) }
        if compared == 0 { print("   nothing in common with the baseline (other mode or filters?)") }
        return regressions.isEmpty ? 0 : 1
    }
}
