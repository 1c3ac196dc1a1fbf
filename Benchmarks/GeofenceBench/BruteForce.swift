import GeofenceKit
import GeofenceTestSupport
import Glibc

/// The exact answer by scanning every fence: the baseline every index answer
/// is checked against, and timed as "brute".
///
/// It is the brute force a careful engineer would write, not a strawman: flat
/// arrays, a latitude-band reject (|Δlat| beyond the fence's reach in degrees
/// costs one compare), then the haversine distance with the `Geodesy.Sphere`
/// error bound, and Karney's exact WGS84 geodesic (PROJ `geod_inverse`,
/// centre first, the same call the index makes) only when the bound cannot
/// decide. Answers are therefore exact and bit-identical to the index's.
struct BruteForce {
    let lat: [Double]
    let lon: [Double]
    let radius: [Double]
    let cosLat: [Double]
    /// Latitude reach in degrees: no point farther than this in latitude is within the radius.
    let reach: [Double]
    let ids: [String]

    static let d2r = Double.pi / 180
    static let sphereR = Sphere.meanRadius

    init(_ circles: [CircleRecord]) {
        lat = circles.map(\.lat); lon = circles.map(\.lon); radius = circles.map(\.radius)
        cosLat = circles.map { cos($0.lat * BruteForce.d2r) }
        reach = circles.map { BruteForce.capAngle(metres: $0.radius) / BruteForce.d2r }
        ids = circles.map(\.id)
    }

    var count: Int { lat.count }

    /// A central angle (radians) at least the spherical angle of any pair within `metres` (geodesic).
    @inline(__always)
    static func capAngle(metres: Double) -> Double {
        (metres + Sphere.absoluteError) / (1 - Sphere.relativeError) / sphereR * (1 + 1e-9)
    }

    @inline(__always)
    static func angle(_ lat1: Double, _ lon1: Double, _ c1: Double, _ lat2: Double, _ lon2: Double, _ c2: Double) -> Double {
        let sp = sin((lat2 - lat1) * (d2r * 0.5))
        let sl = sin((lon2 - lon1) * (d2r * 0.5))
        let h = sp * sp + c1 * c2 * (sl * sl)
        return 2 * asin(min(1, h.squareRoot()))
    }

    /// Geodesic-distance bounds from a spherical angle (Sphere's documented bound, with rounding slack).
    @inline(__always)
    static func bounds(angle: Double) -> (lower: Double, upper: Double) {
        let d = angle * sphereR
        let slack = Sphere.relativeError * d + Sphere.absoluteError
        return (max(0, (d - slack) * (1 - 1e-9)), (d + slack) * (1 + 1e-9))
    }

    @inline(__always)
    func exactDistance(_ i: Int, _ p: Point) -> Double {
        Geodesic.wgs84.distance(lat1: lat[i], lon1: lon[i], lat2: p.lat, lon2: p.lon)
    }

    /// Whether fence `i` contains the point (geodesic distance <= radius).
    @inline(__always)
    func contains(_ i: Int, _ p: Point, cosP: Double) -> Bool {
        let b = BruteForce.bounds(angle: BruteForce.angle(lat[i], lon[i], cosLat[i], p.lat, p.lon, cosP))
        if b.upper <= radius[i] { return true }
        if b.lower > radius[i] { return false }
        return exactDistance(i, p) <= radius[i]
    }

    /// Every fence containing the point, in slot order.
    func containing(_ p: Point, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        let cosP = cos(p.lat * BruteForce.d2r)
        lat.withUnsafeBufferPointer { la in
            reach.withUnsafeBufferPointer { re in
                for i in 0..<la.count where abs(la[i] - p.lat) <= re[i] {
                    if contains(i, p, cosP: cosP) { out.append(Int32(i)) }
                }
            }
        }
    }

    /// The `n` fences nearest to the point by `max(0, d - r)` (exact metres), ties by
    /// identifier bytewise: the ordering `FenceIndex.nearest` promises. Only `slots`
    /// are considered when given (the GEOS baseline passes its candidates).
    func nearest(_ n: Int, _ p: Point, among slots: [Int32]? = nil, into out: inout [Neighbor]) {
        out.removeAll(keepingCapacity: true)
        let cosP = cos(p.lat * BruteForce.d2r)
        // Pass 1: the n smallest upper bounds give a threshold every answer's lower bound is under.
        var best = [Double](repeating: .infinity, count: n)
        var lower = [Double]()
        let m = slots?.count ?? count
        lower.reserveCapacity(m)
        for k in 0..<m {
            let i = slots.map { Int($0[k]) } ?? k
            let b = BruteForce.bounds(angle: BruteForce.angle(lat[i], lon[i], cosLat[i], p.lat, p.lon, cosP))
            lower.append(max(0, b.lower - radius[i]))
            let u = max(0, b.upper - radius[i])
            if u < best[n - 1] {
                var j = n - 1
                while j > 0 && best[j - 1] > u { best[j] = best[j - 1]; j -= 1 }
                best[j] = u
            }
        }
        let threshold = best[n - 1]
        // Pass 2: exact distances of the fences that can still be among the n.
        var cand: [Neighbor] = []
        for k in 0..<m where lower[k] <= threshold {
            let i = slots.map { Int($0[k]) } ?? k
            cand.append(Neighbor(slot: Int32(i), distance: max(0, exactDistance(i, p) - radius[i])))
        }
        cand.sort { a, b in
            a.distance != b.distance ? a.distance < b.distance
                : ids[Int(a.slot)].utf8.lexicographicallyPrecedes(ids[Int(b.slot)].utf8)
        }
        out.append(contentsOf: cand.prefix(n))
    }
}

/// Answer fingerprints checked inside the timed loops.
enum Fingerprint {
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Order-independent fingerprint of a set of slots.
    @inline(__always)
    static func set(_ slots: [Int32]) -> UInt64 {
        var h = UInt64(slots.count) << 48
        for s in slots { h &+= mix(UInt64(UInt32(bitPattern: s))) }
        return h
    }

    /// Order-dependent fingerprint of a nearest-N answer (slots only; distances are checked to 1 mm separately).
    @inline(__always)
    static func ordered(_ ns: [Neighbor]) -> UInt64 {
        var h: UInt64 = UInt64(ns.count)
        for n in ns { h = mix(h ^ UInt64(UInt32(bitPattern: n.slot))) }
        return h
    }
}
