import GeofenceBase
import Geodesy
import Foundation

/// A circle fence as the hot path reads it (32 bytes, one cache-line half).
/// Polygon records hold `radius = -1`, holes (records of no fence) `-2`.
struct CompiledCircle: Sendable {
    var lat: Double
    var lon: Double
    var radius: Double
    /// cos(lat), for the haversine filter.
    var cosLat: Double

    init(lat: Double, lon: Double, radius: Double) {
        self.lat = lat; self.lon = lon; self.radius = radius
        cosLat = cos(lat * (Double.pi / 180))
    }

    static let placeholder = CompiledCircle(lat: 0, lon: 0, radius: -1)
    static let hole = CompiledCircle(lat: 0, lon: 0, radius: -2)
}
