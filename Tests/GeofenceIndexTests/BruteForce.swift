import GeofenceIndex
import Foundation
import Geodesy
import XCTest
import GeofenceTestSupport

/// The reference: every live fence tested exactly, circles with
/// `Geodesic.wgs84` (centre first, as the index), polygons with GEOS.
/// Slots mirror the index's.
final class BruteForce {
    let geos = GEOSReference()
    private(set) var fences: [Fence?] = []
    private var geoms: [Int: GEOSReference.Geometry] = [:]

    /// Polygon distances closer than this to a threshold are not compared (the
    /// index and GEOS compute the same definition with different rounding).
    static let tolerance = 1e-3

    init() {}

    init(_ fences: [Fence]) {
        for f in fences { set(f, slot: Int32(self.fences.count)) }
    }

    func set(_ f: Fence, slot: Int32) {
        while fences.count <= Int(slot) { fences.append(nil) }
        fences[Int(slot)] = f
        if case .polygon(let p) = f.record { geoms[Int(slot)] = geos.geometry(p.shape) } else { geoms[Int(slot)] = nil }
    }

    func remove(slot: Int32) {
        fences[Int(slot)] = nil
        geoms[Int(slot)] = nil
    }

    var liveSlots: [Int32] { fences.indices.filter { fences[$0] != nil }.map { Int32($0) } }

    /// One fence seen from one point.
    struct Eval {
        var isPolygon: Bool
        /// Circle: exact centre distance; polygon: boundary distance (lazy).
        var d: Double
        var radius: Double
        var covered: Bool
    }

    /// Per-point evaluations of every live fence (polygon distances computed on demand).
    final class PointView {
        let bf: BruteForce
        let lat: Double, lon: Double
        var evals: [Int32: Eval] = [:]
        init(_ bf: BruteForce, lat: Double, lon: Double) {
            self.bf = bf; self.lat = lat; self.lon = lon
            for s in bf.liveSlots {
                switch bf.fences[Int(s)]!.record {
                case .circle(let c):
                    let d = Geodesic.wgs84.distance(lat1: c.lat, lon1: c.lon, lat2: lat, lon2: lon)
                    evals[s] = Eval(isPolygon: false, d: d, radius: c.radius, covered: d <= c.radius)
                case .polygon:
                    evals[s] = Eval(isPolygon: true, d: .nan, radius: 0, covered: bf.geos.covers(bf.geoms[Int(s)]!, lat: lat, lon: lon))
                }
            }
        }
        func polygonDistance(_ s: Int32) -> Double {
            if evals[s]!.d.isNaN, case .polygon(let p) = bf.fences[Int(s)]!.record {
                evals[s]!.d = bf.geos.boundaryDistance(p.shape, lat: lat, lon: lon)
            }
            return evals[s]!.d
        }

        /// Distance to the fence, 0 inside.
        func distance(_ s: Int32) -> Double {
            let e = evals[s]!
            if !e.isPolygon { return max(0, e.d - e.radius) }
            return e.covered ? 0 : polygonDistance(s)
        }

        func containing() -> [Int32] { evals.filter { $0.value.covered }.keys.sorted() }

        /// States per docs/evaluation.md, `nil` where a polygon distance is too close to a threshold to compare.
        func classify(accuracy a: Double, margin m: Double) -> [Int32: FenceState?] {
            var out: [Int32: FenceState?] = [:]
            for (s, e) in evals {
                let state: FenceState
                var ambiguous = false
                if !e.isPolygon {
                    let d = e.d, r = e.radius
                    if d + a <= r { state = .inside } else if d - a > r + m { state = .outside }
                    else if d - a > r { state = .outsideWithinMargin } else { state = .uncertain }
                } else {
                    if e.covered && a == 0 { state = .inside }
                    else if !e.covered && a + m == 0 { state = .outside }
                    else {
                        let b = polygonDistance(s)
                        ambiguous = abs(b - a) < BruteForce.tolerance || abs(b - a - m) < BruteForce.tolerance
                        if e.covered { state = b >= a ? .inside : .uncertain }
                        else if b - a > m { state = .outside }
                        else if b - a > 0 { state = .outsideWithinMargin }
                        else { state = .uncertain }
                    }
                }
                if ambiguous { out[s] = .some(nil) } else if state != .outside { out[s] = state }
            }
            return out
        }

        /// Fences within `distance`; the second set holds polygons too close to call.
        func within(_ distance: Double) -> (Set<Int32>, Set<Int32>) {
            var yes = Set<Int32>(), unsure = Set<Int32>()
            for (s, e) in evals {
                if !e.isPolygon {
                    if max(0, e.d - e.radius) <= distance { yes.insert(s) }
                } else if e.covered {
                    yes.insert(s)
                } else {
                    let b = polygonDistance(s)
                    if abs(b - distance) < BruteForce.tolerance { unsure.insert(s) } else if b <= distance { yes.insert(s) }
                }
            }
            return (yes, unsure)
        }

        /// All fences by (distance, identifier bytes).
        func ranked(maxDistance: Double) -> [(slot: Int32, distance: Double)] {
            let ids = bf.fences
            return evals.keys.map { ($0, distance($0)) }.filter { $0.1 <= maxDistance }.sorted { a, b in
                if a.1 != b.1 { return a.1 < b.1 }
                return ids[Int(a.0)]!.id.utf8.lexicographicallyPrecedes(ids[Int(b.0)]!.id.utf8)
            }
        }
    }

    func view(lat: Double, lon: Double) -> PointView { PointView(self, lat: lat, lon: lon) }

    /// Whether the fence meets the box; nil when a circle is within 1 mm of touching.
    func intersects(_ s: Int32, _ box: GeoBox) -> Bool? {
        switch fences[Int(s)]!.record {
        case .circle(let c):
            let d = BruteForce.boxDistance(lat: c.lat, lon: c.lon, box, cutoff: c.radius * 1.01 + 1)
            if abs(d - c.radius) < BruteForce.tolerance { return nil }
            return d <= c.radius
        case .polygon:
            let g = geoms[Int(s)]!
            if box.west > box.east {
                return geos.intersects(g, west: box.west, south: box.south, east: 180, north: box.north)
                    || geos.intersects(g, west: -180, south: box.south, east: box.east, north: box.north)
            }
            return geos.intersects(g, west: box.west, south: box.south, east: box.east, north: box.north)
        }
    }

    /// Geodesic distance from a point to a lon/lat box, independently of the
    /// index: 0 inside; the meridian arc when the longitude is in range;
    /// otherwise a golden-section search along both bounding meridians
    /// (and the corners).
    /// Beyond `cutoff` the answer is only a lower bound (still beyond it).
    static func boxDistance(lat: Double, lon: Double, _ box: GeoBox, cutoff: Double = .infinity) -> Double {
        let g = Geodesic.wgs84
        let inLon = box.west <= box.east ? (lon >= box.west && lon <= box.east) : (lon >= box.west || lon <= box.east)
        if inLon {
            if lat >= box.south && lat <= box.north { return 0 }
            return g.distance(lat1: lat, lon1: lon, lat2: min(max(lat, box.south), box.north), lon2: lon)
        }
        var best = Double.infinity
        for m in [box.west, box.east] {
            func f(_ phi: Double) -> Double { g.distance(lat1: lat, lon1: lon, lat2: phi, lon2: m) }
            // Closed-form great-circle distance to the meridian segment (foot of the
            // perpendicular, clamped), as a cheap lower bound: skip the search when far.
            let rad = Double.pi / 180
            let dl = (m - lon) * rad
            var foot = cos(dl) > 0 ? atan(tan(lat * rad) / cos(dl)) / rad : (lat >= 0 ? 90.0 : -90.0)
            foot = min(max(foot, box.south), box.north)
            let sphere = min(Sphere.distance(lat1: lat, lon1: lon, lat2: foot, lon2: m),
                             Sphere.distance(lat1: lat, lon1: lon, lat2: box.south, lon2: m),
                             Sphere.distance(lat1: lat, lon1: lon, lat2: box.north, lon2: m))
            if sphere * 0.98 - 1 > best { continue }
            if sphere * 0.98 - 1 > cutoff { best = min(best, sphere * 0.98 - 1); continue }
            best = min(best, goldenSectionMinimum(box.south, box.north, iterations: 90, f))
        }
        return best
    }
}

/// Asserts that the index answers like the brute force at one point.
func assertAgrees(_ index: FenceIndex, _ bf: BruteForce, lat: Double, lon: Double,
                  accuracy: Double, margin: Double, within: Double, k: Int, maxDistance: Double = .infinity,
                  _ label: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
    let v = bf.view(lat: lat, lon: lon)
    let where_ = "\(label()) at \(lat),\(lon)"

    // containing
    let refContaining = v.containing()
    let got = index.containing(lat: lat, lon: lon)
    if got != refContaining {
        XCTFail("containing \(where_): index \(got.map(index.identifier(of:))) reference \(refContaining.map(index.identifier(of:)))", file: file, line: line)
    }

    // classify, with and without accuracy and margin
    for (a, m) in [(0.0, 0.0), (accuracy, 0.0), (accuracy, margin)] {
        let ref = v.classify(accuracy: a, margin: m)
        let mine = Dictionary(uniqueKeysWithValues: index.classify(lat: lat, lon: lon, accuracy: a, exitMargin: m).map { ($0.slot, $0.state) })
        for s in Set(ref.keys).union(mine.keys) {
            if let r = ref[s], r == nil { continue }  // ambiguous polygon
            let expected: FenceState = ref[s].map { $0! } ?? .outside
            let actual = mine[s] ?? .outside
            if expected != actual {
                XCTFail("classify a=\(a) M=\(m) \(where_): \(index.identifier(of: s)) index \(actual) reference \(expected)", file: file, line: line)
            }
        }
    }

    // within a distance
    let (yes, unsure) = v.within(within)
    let mineWithin = Set(index.within(within, ofLat: lat, lon: lon))
    if mineWithin.subtracting(unsure) != yes.subtracting(unsure) {
        let extra = mineWithin.subtracting(unsure).subtracting(yes).map(index.identifier(of:))
        let missing = yes.subtracting(unsure).subtracting(mineWithin).map(index.identifier(of:))
        XCTFail("within \(within) \(where_): extra \(extra) missing \(missing)", file: file, line: line)
    }

    // nearest
    let ranked = v.ranked(maxDistance: maxDistance)
    let mineNearest = index.nearest(k, lat: lat, lon: lon, maxDistance: maxDistance)
    let refNearest = Array(ranked.prefix(k))
    assertSameRanking(index, mineNearest, refNearest, next: ranked.count > k ? ranked[k].distance : nil,
                      "nearest \(k) \(where_)", file: file, line: line)
}

/// Same slots in the same order and distances to 1 mm; fences whose
/// reference distances lie within 1 mm of each other may swap.
func assertSameRanking(_ index: FenceIndex, _ got: [Neighbor], _ ref: [(slot: Int32, distance: Double)], next: Double?,
                       _ label: String, file: StaticString = #filePath, line: UInt = #line) {
    guard got.count == ref.count else {
        XCTFail("\(label): \(got.count) answers, reference \(ref.count)", file: file, line: line)
        return
    }
    let tol = BruteForce.tolerance
    for i in 0..<got.count {
        if abs(got[i].distance - ref[i].distance) > tol {
            XCTFail("\(label): #\(i) distance \(got[i].distance) reference \(ref[i].distance) (\(index.identifier(of: got[i].slot)) vs \(index.identifier(of: ref[i].slot)))", file: file, line: line)
            return
        }
        if got[i].slot != ref[i].slot {
            let nearTie = (i > 0 && abs(ref[i].distance - ref[i - 1].distance) < tol)
                || (i + 1 < ref.count && abs(ref[i + 1].distance - ref[i].distance) < tol)
                || (i + 1 == ref.count && next.map { abs($0 - ref[i].distance) < tol } == true)
            let polygonInvolved = index.isPolygon(got[i].slot) || index.isPolygon(ref[i].slot)
            if !(nearTie && polygonInvolved) {
                XCTFail("\(label): #\(i) \(index.identifier(of: got[i].slot)) reference \(index.identifier(of: ref[i].slot)) at \(ref[i].distance)", file: file, line: line)
                return
            }
        }
    }
}
