import Foundation
import Geodesy

/// A query position with the values every fence test reuses.
struct QueryPoint {
    let lat: Double
    let lon: Double
    let cosLat: Double
    /// Local plane scales for polygon distances (computed on first use).
    private var scales: (kx: Double, ky: Double)?

    init(lat: Double, lon: Double) {
        precondition(lat >= -90 && lat <= 90, "latitude out of range")
        precondition(lon.isFinite, "longitude not finite")
        self.lat = lat
        self.lon = FenceIndex.normalizedLongitude(lon)
        cosLat = cos(lat * (Double.pi / 180))
    }

    mutating func planeScales() -> (kx: Double, ky: Double) {
        if let scales { return scales }
        let s = PolygonTable.planeScales(lat: lat)
        scales = s
        return s
    }
}

extension CompiledCircle {
    /// Bounds of the geodesic distance from the centre to the point.
    @inline(__always)
    func distanceBounds(_ p: QueryPoint) -> (lower: Double, upper: Double) {
        SphericalBounds.geodesicBounds(angle: SphericalBounds.centralAngle(
            lat1: lat, lon1: lon, cos1: cosLat, lat2: p.lat, lon2: p.lon, cos2: p.cosLat))
    }

    /// The exact geodesic distance from the centre to the point (centre first:
    /// the one function every comparison uses, so answers are reproducible).
    @inline(__always)
    func exactDistance(_ p: QueryPoint) -> Double {
        Geodesic.wgs84.distance(lat1: lat, lon1: lon, lat2: p.lat, lon2: p.lon)
    }

    /// `d <= radius + extra` for the exact distance `d`, deciding from the
    /// bounds when they are clear.
    @inline(__always)
    func isWithin(_ p: QueryPoint, extra: Double) -> Bool {
        let b = distanceBounds(p)
        if b.upper - radius <= extra { return true }
        if b.lower - radius > extra { return false }
        return exactDistance(p) - radius <= extra
    }

    /// DESIGN §3 state (see `FenceState`).
    @inline(__always)
    func state(_ p: QueryPoint, accuracy a: Double, margin m: Double) -> FenceState {
        let b = distanceBounds(p)
        if b.upper + a <= radius { return .inside }
        if b.lower - a > radius + m { return .outside }
        if b.lower + a > radius && b.upper - a <= radius { return .uncertain }
        let d = exactDistance(p)
        if d + a <= radius { return .inside }
        if d - a > radius + m { return .outside }
        if d - a > radius { return .outsideWithinMargin }
        return .uncertain
    }
}
