import Foundation
import GeofenceTestSupport
import GeofenceKit

/// An SVG chart of throughput vs fence count (log–log), written by hand (no
/// plotting dependency): point queries (ours, GEOS STRtree, brute force) and
/// evaluate (ours 1 and 2 threads), one panel each; peers' figures from
/// `Benchmarks/peers` appear as extra series when their JSON is given.
enum Chart {
    struct Series {
        var name: String
        var colour: String
        var dashed: Bool
        var points: [(x: Double, y: Double)]
    }

    struct Panel {
        var title: String
        var unit: String
        var series: [Series]
    }

    static func series(_ report: Report, suite: String, kind: String, engine: String, name: String, colour: String, dashed: Bool) -> Series? {
        let pts = report.results.filter { $0.suite == suite && $0.engine == engine && $0.workload.hasPrefix(kind) && $0.fences != nil }
            .map { (x: Double($0.fences!), y: $0.value) }.sorted { $0.x < $1.x }
        return pts.isEmpty ? nil : Series(name: name, colour: colour, dashed: dashed, points: pts)
    }

    static func panels(_ report: Report, peers: [Series]) -> [Panel] {
        var point: [Series] = []
        for (kind, dashed) in [("uniform", false), ("clustered", true)] {
            for (engine, colour) in [("ours", "#1f77b4"), ("geos", "#ff7f0e"), ("brute", "#7f7f7f")] {
                if let s = series(report, suite: "index-point", kind: kind, engine: engine, name: "\(engine) (\(kind))", colour: colour, dashed: dashed) {
                    point.append(s)
                }
            }
        }
        var eval: [Series] = []
        for (kind, colour) in [("scaled-cities", "#1f77b4"), ("uniform", "#2ca02c")] {
            if let s = series(report, suite: "evaluate-memory", kind: kind, engine: "ours 2 threads", name: "\(kind), in memory", colour: colour, dashed: false) {
                eval.append(s)
            }
            if let s = series(report, suite: "evaluate-file", kind: kind, engine: "ours 2 threads", name: "\(kind), from CSV", colour: colour, dashed: true) {
                eval.append(s)
            }
        }
        eval.append(contentsOf: peers)
        return [Panel(title: "Point query throughput vs fence count", unit: "queries/s", series: point),
                Panel(title: "Evaluate, 2 threads: fixes/s vs fence count (random-walk fixes)", unit: "fixes/s", series: eval)]
            .filter { !$0.series.isEmpty }
    }

    /// The real-data panel: join and evaluate throughput of ours and of the peers on the real
    /// AIS trace against real circle sets of growing size (airports + ports, cities).
    static func realPanel(_ report: Report, peersPath: String?) -> Panel? {
        var series: [Series] = []
        let circleSets = ["airports+ports × AIS", "cities × AIS"]
        let styles = [("ours join", "ours join, 1 thread", "#1f77b4", false),
                      ("ours 2 threads", "ours evaluate, 2 threads, in memory", "#2ca02c", false),
                      ("ours 2 threads file", "ours evaluate, 2 threads, from CSV", "#2ca02c", true),
                      ("shapely STRtree", "shapely STRtree join, 1 thread", "#d62728", false),
                      ("postgis", "PostGIS ST_DWithin join", "#9467bd", false)]
        if let peersPath, let data = FileManager.default.contents(atPath: peersPath),
           let json = try? JSONParser.parse([UInt8](data)), let rows = json["rows"]?.arrayValue {
            // Every series from the peers' run, so the lines are from one run (wall clock).
            for (engine, name, colour, dashed) in styles {
                let pts: [(x: Double, y: Double)] = rows.compactMap { r in
                    guard r["engine"]?.stringValue == engine, let w = r["workload"]?.stringValue, circleSets.contains(w),
                          let f = r["fences"]?.doubleValue, let v = r["fixes_per_second"]?.doubleValue else { return nil }
                    return (f, v)
                }.sorted { $0.x < $1.x }
                if !pts.isEmpty { series.append(Series(name: name, colour: colour, dashed: dashed, points: pts)) }
            }
        } else {
            for (engine, name, colour, dashed) in styles.prefix(3) {
                let pts = report.results.filter { $0.suite == "evaluate-real" && $0.engine == engine && circleSets.contains($0.workload) && $0.fences != nil }
                    .map { (x: Double($0.fences!), y: $0.wallValue ?? $0.value) }.sorted { $0.x < $1.x }
                if !pts.isEmpty { series.append(Series(name: name, colour: colour, dashed: dashed, points: pts)) }
            }
        }
        return series.isEmpty ? nil : Panel(title: "Real AIS trace (236k fixes) vs real circle sets: airports+ports, cities", unit: "fixes/s (wall)", series: series)
    }

    static func svg(_ report: Report, peersPath: String? = nil, peers: [Series] = []) -> String {
        var ps = panels(report, peers: peers)
        if let p = realPanel(report, peersPath: peersPath) { ps.append(p) }
        let w = 860.0, ph = 360.0
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(ph * Double(max(1, ps.count))))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        for (k, p) in ps.enumerated() { out += panel(p, y0: ph * Double(k), width: w, height: ph) }
        return out + "</svg>\n"
    }

    static func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    static func panel(_ p: Panel, y0: Double, width: Double, height: Double) -> String {
        let left = 80.0, right = 300.0, top = 36.0, bottom = 46.0
        let all = p.series.flatMap(\.points)
        let xs = all.map(\.x), ys = all.map(\.y).filter { $0 > 0 }
        let x0 = floor(log10(xs.min()!)), x1 = max(x0 + 1, ceil(log10(xs.max()!)))
        let yl = floor(log10(ys.min()!)), yh = max(yl + 1, ceil(log10(ys.max()!)))
        let pw = width - left - right, phh = height - top - bottom
        func px(_ x: Double) -> Double { left + (log10(x) - x0) / (x1 - x0) * pw }
        func py(_ y: Double) -> Double { y0 + top + (1 - (log10(max(y, 1e-9)) - yl) / (yh - yl)) * phh }
        var s = "<text x=\"\(left)\" y=\"\(y0 + 20)\" font-size=\"14\" font-weight=\"bold\">\(esc(p.title))</text>\n"
        s += "<rect x=\"\(left)\" y=\"\(y0 + top)\" width=\"\(pw)\" height=\"\(phh)\" fill=\"none\" stroke=\"#444\"/>\n"
        for e in stride(from: x0, through: x1, by: 1) {
            let x = px(pow(10, e))
            s += "<line x1=\"\(x)\" y1=\"\(y0 + top)\" x2=\"\(x)\" y2=\"\(y0 + top + phh)\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(x)\" y=\"\(y0 + top + phh + 16)\" text-anchor=\"middle\">\(label(pow(10, e)))</text>\n"
        }
        for e in stride(from: yl, through: yh, by: 1) {
            let y = py(pow(10, e))
            s += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(left + pw)\" y2=\"\(y)\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">\(label(pow(10, e)))</text>\n"
        }
        s += "<text x=\"\(left + pw / 2)\" y=\"\(y0 + height - 8)\" text-anchor=\"middle\">fences (log)</text>\n"
        s += "<text transform=\"translate(16,\(y0 + top + phh / 2)) rotate(-90)\" text-anchor=\"middle\">\(esc(p.unit)) (log)</text>\n"
        for (i, se) in p.series.enumerated() {
            let d = se.points.map { "\(px($0.x)),\(py($0.y))" }.joined(separator: " ")
            let dash = se.dashed ? " stroke-dasharray=\"6,4\"" : ""
            s += "<polyline points=\"\(d)\" fill=\"none\" stroke=\"\(se.colour)\" stroke-width=\"2\"\(dash)/>\n"
            for pt in se.points { s += "<circle cx=\"\(px(pt.x))\" cy=\"\(py(pt.y))\" r=\"3\" fill=\"\(se.colour)\"/>\n" }
            let ly = y0 + top + 14 + Double(i) * 18
            s += "<line x1=\"\(left + pw + 12)\" y1=\"\(ly - 4)\" x2=\"\(left + pw + 36)\" y2=\"\(ly - 4)\" stroke=\"\(se.colour)\" stroke-width=\"2\"\(dash)/>\n"
            s += "<text x=\"\(left + pw + 40)\" y=\"\(ly)\">\(esc(se.name))</text>\n"
        }
        return s
    }

    static func label(_ v: Double) -> String {
        if v >= 1e9 { return "\(Int(v / 1e9))G" }
        if v >= 1e6 { return "\(Int(v / 1e6))M" }
        if v >= 1e3 { return "\(Int(v / 1e3))k" }
        return "\(Int(v))"
    }
}
