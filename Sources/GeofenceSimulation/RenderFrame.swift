import Foundation
import GeofenceIndex
import GeofenceLogs
import GeofencePlanning

/// The part of the map `SVGRenderer` shows: the trace's extent grown to hold whole the
/// fences that belong to the picture, then a margin.
///
/// A fence belongs when the trace meets it (`met`: a ground-truth event) or its OS circle
/// reaches the trace's extent, unless it is more than `largeFactor` times the size of the
/// trace's extent (taken as at least 5 km) in latitude or longitude: a county around a
/// harbour trace would shrink the trace to a dot, so such a fence is drawn cut at the edge.
struct RenderFrame {
    /// Latitude and longitude bounds, degrees (the margin included).
    var box: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)
    /// The fences that shaped the frame, to label: those the trace meets, then the others, by slot.
    var labelled: [Int]

    /// A fence more than this many times the trace's extent does not grow the frame.
    static let largeFactor = 1.5

    init(fences: [Fence], circles: [OSCircle], fixes: [Fix], met: Set<Int32>) {
        var minLat = fixes.map(\.lat).min()!, maxLat = fixes.map(\.lat).max()!
        var minLon = fixes.map(\.lon).min()!, maxLon = fixes.map(\.lon).max()!
        let latSpan = max(maxLat - minLat, 5000 / 111_320)
        let lonSpan = max(maxLon - minLon, 5000 / (111_320 * max(0.01, cos((minLat + maxLat) / 2 * .pi / 180))))
        let trace = (minLat, maxLat, minLon, maxLon)
        var first: [Int] = [], others: [Int] = []
        for k in fences.indices {
            let b = RenderFrame.bounds(fences[k], circles[k])
            let reaches = b.maxLat >= trace.0 && b.minLat <= trace.1 && b.maxLon >= trace.2 && b.minLon <= trace.3
            let isMet = met.contains(Int32(k))
            guard isMet || reaches else { continue }
            guard b.maxLat - b.minLat <= RenderFrame.largeFactor * latSpan, b.maxLon - b.minLon <= RenderFrame.largeFactor * lonSpan else { continue }
            minLat = min(minLat, b.minLat); maxLat = max(maxLat, b.maxLat)
            minLon = min(minLon, b.minLon); maxLon = max(maxLon, b.maxLon)
            if isMet { first.append(k) } else { others.append(k) }
        }
        let padLat = max(0.005, (maxLat - minLat) * 0.08), padLon = max(0.005, (maxLon - minLon) * 0.08)
        box = (max(-90, minLat - padLat), min(90, maxLat + padLat), minLon - padLon, maxLon + padLon)
        labelled = first + others
    }

    /// A fence's extent: its polygon rings, or its OS circle's.
    static func bounds(_ fence: Fence, _ c: OSCircle) -> (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        if case .polygon(let polys) = fence.shape {
            var b = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
            for rings in polys { for ring in rings { for p in ring {
                b = (min(b.0, p.lat), max(b.1, p.lat), min(b.2, p.lon), max(b.3, p.lon))
            } } }
            if b.0 <= b.1 { return b }
        }
        let dLat = c.radius / 111_000, dLon = c.radius / (111_000 * max(0.01, cos(c.lat * .pi / 180)))
        return (c.lat - dLat, c.lat + dLat, c.lon - dLon, c.lon + dLon)
    }
}
