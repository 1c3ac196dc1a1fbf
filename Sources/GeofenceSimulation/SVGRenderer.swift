import GeofenceBase
import GeofenceLogs
import GeofenceEvaluation
import Foundation
import GeofenceIndex
import Geodesy
import GeofencePlanning

/// Draws one device's replay as SVG, readable without a map background: the trace, the
/// fences near it, the regions registered at each re-plan (refresh circles dashed), and the
/// ground-truth events as caught, late or missed, plus reported events that match nothing.
public struct SVGRenderer {
    /// Width of the image in SVG pixels; default 1000. The map uses all but 20 px each side.
    public var width = 1000.0
    /// Height of the image in SVG pixels; default 800. The map uses all but a 50 px title band
    /// and a 30 px band for the scale bar and legend.
    public var height = 800.0
    /// An event reported more than this many seconds after ground truth is drawn as late.
    public var lateAfter = 60.0
    /// At most this many fence labels (default 40).
    public var maximumLabels = 40

    /// A renderer with the defaults: 1000 × 800 px, late after 60 s.
    public init() {}

    /// The SVG document of one device's replay (docs/rotation.md#render).
    ///
    /// The view is framed on the trace and its fences (`RenderFrame`): the trace's extent,
    /// grown to hold whole every fence the trace meets (a ground-truth event) or whose OS
    /// circle reaches the trace's extent, unless that fence is much larger than the trace;
    /// plus a margin, in a local equirectangular projection, centred in the map with the
    /// aspect preserved. Fences are drawn when their OS circle reaches the view, and labelled
    /// with their identifiers (the framed ones, those the trace meets first, up to
    /// ``maximumLabels``); the trace's first and last fixes are marked with their times.
    /// `plans` are the `(time, regions)` entries of
    /// ``Simulator/run(strategy:clusters:device:fixes:truth:detected:plans:)``. Each
    /// ground-truth event (dwell events ignored) is matched, in the order given, to the first
    /// unmatched reported event of the same fence and type within `matchWindow` seconds
    /// (default 900), and drawn at the first fix at or after its time as caught, late
    /// (reported more than ``lateAfter`` seconds after it) or missed; unmatched reported
    /// events are drawn too. `title` is escaped. No fixes: an empty `<svg/>` element.
    /// - Precondition: `circles` has one entry per fence of `fences`, and every event's
    ///   `fence` is an index into `fences` (both trap otherwise).
    /// - Complexity: O(fences + 72 × regions of all plans + fixes × events + truth × detected).
    public func render(fences: [Fence], circles: [OSCircle], fixes: [Fix], truth: [ReportedEvent], detected: [ReportedEvent],
                       plans: [(time: Double, regions: [Region])], title: String, matchWindow: Double = 900) -> String {
        guard !fixes.isEmpty else { return "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n" }
        let frame = RenderFrame(fences: fences, circles: circles, fixes: fixes, met: Set(truth.map(\.fence)))
        let minLat = frame.box.minLat, maxLat = frame.box.maxLat, minLon = frame.box.minLon, maxLon = frame.box.maxLon
        let lat0 = (minLat + maxLat) / 2
        let kx = cos(lat0 * .pi / 180)
        let mapWidth = width - 40, mapHeight = height - 80
        let sx = mapWidth / ((maxLon - minLon) * kx), sy = mapHeight / (maxLat - minLat)
        let s = min(sx, sy)
        // Centred: the axis with room to spare gets equal space on both sides.
        let ox = 20 + (mapWidth - (maxLon - minLon) * kx * s) / 2, oy = 50 + (mapHeight - (maxLat - minLat) * s) / 2
        func px(_ lat: Double, _ lon: Double) -> (Double, Double) {
            (ox + (lon - minLon) * kx * s, oy + (maxLat - lat) * s)
        }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func path(_ pts: [(Double, Double)], close: Bool) -> String {
            guard let p0 = pts.first else { return "" }
            var d = "M\(f(p0.0)),\(f(p0.1))"
            for p in pts.dropFirst() { d += " L\(f(p.0)),\(f(p.1))" }
            return close ? d + " Z" : d
        }
        func circlePath(_ c: OSCircle) -> String {
            path((0..<72).map { k -> (Double, Double) in
                let q = Geodesic.wgs84.direct(lat: c.lat, lon: c.lon, azimuth: Double(k) * 5, distance: c.radius)
                return px(q.lat, q.lon)
            }, close: true)
        }
        func visible(_ c: OSCircle) -> Bool {
            let dLat = c.radius / 111_000, dLon = c.radius / (111_000 * max(0.01, cos(c.lat * .pi / 180)))
            return c.lat + dLat >= minLat && c.lat - dLat <= maxLat && c.lon + dLon >= minLon && c.lon - dLon <= maxLon
        }
        func esc(_ t: String) -> String {
            t.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }

        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"#fbfbf8\"/>\n"
        svg += "<text x=\"20\" y=\"22\" font-size=\"15\">\(esc(title))</text>\n"
        svg += "<clipPath id=\"map\"><rect x=\"20\" y=\"50\" width=\"\(f(width - 40))\" height=\"\(f(height - 80))\"/></clipPath>\n<g clip-path=\"url(#map)\">\n"
        // Fences.
        for (k, fence) in fences.enumerated() {
            switch fence.shape {
            case .circle:
                guard visible(circles[k]) else { continue }
                svg += "<path d=\"\(circlePath(circles[k]))\" fill=\"#8fb3d9\" fill-opacity=\"0.25\" stroke=\"#4a77a8\" stroke-width=\"1\"><title>\(esc(fence.id))</title></path>\n"
            case .polygon(let polys):
                guard visible(circles[k]) else { continue }
                var d = ""
                for rings in polys { for ring in rings { d += path(ring.map { px($0.lat, $0.lon) }, close: true) + " " } }
                svg += "<path d=\"\(d)\" fill=\"#b8d9a9\" fill-opacity=\"0.25\" fill-rule=\"evenodd\" stroke=\"#5c8a4a\" stroke-width=\"0.8\"><title>\(esc(fence.id))</title></path>\n"
            }
        }
        // Registered regions at each plan: refresh circles dashed, monitored fences as thin outlines.
        for (n, plan) in plans.enumerated() {
            for r in plan.regions {
                let c = OSCircle(lat: r.lat, lon: r.lon, radius: r.radius)
                switch r.kind {
                case .refresh:
                    svg += "<path d=\"\(circlePath(c))\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"1\" stroke-dasharray=\"5,4\" stroke-opacity=\"0.7\"><title>refresh region, plan \(n + 1) at \(EventWriter.iso8601(plan.time))</title></path>\n"
                    let p = px(r.lat, r.lon)
                    svg += "<circle cx=\"\(f(p.0))\" cy=\"\(f(p.1))\" r=\"3\" fill=\"#c0392b\"/>\n"
                case .cluster:
                    svg += "<path d=\"\(circlePath(c))\" fill=\"none\" stroke=\"#8e44ad\" stroke-width=\"1.2\" stroke-dasharray=\"2,2\"><title>cluster region, plan \(n + 1)</title></path>\n"
                case .fence:
                    if visible(c) { svg += "<path d=\"\(circlePath(c))\" fill=\"none\" stroke=\"#e67e22\" stroke-width=\"0.6\" stroke-opacity=\"0.5\"/>\n" }
                }
            }
        }
        // Trace, its ends marked.
        svg += "<path d=\"\(path(fixes.map { px($0.lat, $0.lon) }, close: false))\" fill=\"none\" stroke=\"#222\" stroke-width=\"1.4\"/>\n"
        for (fix, name) in [(fixes[0], "start"), (fixes[fixes.count - 1], "end")] {
            let p = px(fix.lat, fix.lon)
            svg += "<circle cx=\"\(f(p.0))\" cy=\"\(f(p.1))\" r=\"4\" fill=\"\(name == "start" ? "#fff" : "#222")\" stroke=\"#222\" stroke-width=\"1.5\"/>"
            svg += "<text class=\"trace-end\" x=\"\(f(p.0 + 7))\" y=\"\(f(p.1 + (name == "start" ? -6 : 14)))\" font-size=\"11\" stroke=\"#fbfbf8\" stroke-width=\"3\" paint-order=\"stroke\">\(name) \(EventWriter.iso8601(fix.time))</text>\n"
        }
        // Events: match ground truth to reported events as the simulator does.
        var unmatched = detected
        func position(at t: Double) -> (Double, Double) {
            let i = fixes.firstIndex { $0.time >= t } ?? (fixes.count - 1)
            return px(fixes[i].lat, fixes[i].lon)
        }
        for e in truth where e.type != .dwell {
            let p = position(at: e.time)
            let label = "\(e.type.name) \(fences[Int(e.fence)].id) at \(EventWriter.iso8601(e.time))"
            if let j = unmatched.firstIndex(where: { $0.fence == e.fence && $0.type == e.type && abs($0.time - e.time) <= matchWindow }) {
                let late = unmatched[j].time - e.time > lateAfter
                let m = unmatched.remove(at: j)
                let colour = late ? "#e67e22" : "#27ae60"
                svg += "<circle cx=\"\(f(p.0))\" cy=\"\(f(p.1))\" r=\"5\" fill=\"\(colour)\" stroke=\"#fff\"><title>\(late ? "late" : "caught"): \(esc(label)), reported \(Int(m.time - e.time)) s later</title></circle>\n"
            } else {
                svg += "<path d=\"M\(f(p.0 - 5)),\(f(p.1 - 5)) L\(f(p.0 + 5)),\(f(p.1 + 5)) M\(f(p.0 - 5)),\(f(p.1 + 5)) L\(f(p.0 + 5)),\(f(p.1 - 5))\" stroke=\"#c0392b\" stroke-width=\"2.5\"><title>missed: \(esc(label))</title></path>\n"
            }
        }
        for e in unmatched {
            let p = position(at: e.time)
            svg += "<rect x=\"\(f(p.0 - 4))\" y=\"\(f(p.1 - 4))\" width=\"8\" height=\"8\" fill=\"#8e44ad\"><title>reported, no ground truth: \(e.type.name) \(esc(fences[Int(e.fence)].id))</title></rect>\n"
        }
        // Fence labels: the framed fences, those the trace meets first.
        for k in frame.labelled.prefix(maximumLabels) {
            let p = px(circles[k].lat, circles[k].lon)
            svg += "<text class=\"fence-label\" x=\"\(f(p.0))\" y=\"\(f(p.1))\" font-size=\"10\" fill=\"#234\" text-anchor=\"middle\" stroke=\"#fbfbf8\" stroke-width=\"3\" paint-order=\"stroke\">\(esc(fences[k].id))</text>\n"
        }
        svg += "</g>\n"
        // Scale bar: a round length near a fifth of the width (s pixels per degree of latitude).
        let metresPerPixel = 111_320 / s
        let target = metresPerPixel * (width / 5)
        let pow10 = pow(10, floor(log10(target)))
        let nice = [1.0, 2, 5].map { $0 * pow10 }.last { $0 <= target } ?? pow10
        let barPx = nice / metresPerPixel
        let y = height - 14
        svg += "<path d=\"M20,\(f(y)) L\(f(20 + barPx)),\(f(y)) M20,\(f(y - 5)) L20,\(f(y)) M\(f(20 + barPx)),\(f(y - 5)) L\(f(20 + barPx)),\(f(y))\" stroke=\"#222\" stroke-width=\"2\"/>\n"
        svg += "<text x=\"\(f(26 + barPx))\" y=\"\(f(y))\">\(nice >= 1000 ? "\(Int(nice / 1000)) km" : "\(Int(nice)) m")</text>\n"
        // Legend.
        let legend: [(String, String)] = [("#27ae60", "caught"), ("#e67e22", "late (> \(Int(lateAfter)) s)"), ("#c0392b", "missed (×) / refresh region (dashed)"), ("#8e44ad", "reported without ground truth / cluster")]
        var lx = 20 + barPx + 90
        for (c, t) in legend {
            svg += "<circle cx=\"\(f(lx))\" cy=\"\(f(y - 4))\" r=\"5\" fill=\"\(c)\"/><text x=\"\(f(lx + 9))\" y=\"\(f(y))\">\(esc(t))</text>\n"
            lx += Double(t.count) * 6.2 + 26
        }
        svg += "</svg>\n"
        return svg
    }
}
