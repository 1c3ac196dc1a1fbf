import GeofenceBase
import Geodesy
import Foundation

/// A circle fence as the hot path reads it (24 bytes). Polygon records hold
/// `radius = -1` and their polygon number in `lat`; holes (records of no fence) `-2`.
struct CompiledCircle: Sendable {
    var lat: Double
    var lon: Double
    var radius: Double

    init(lat: Double, lon: Double, radius: Double) {
        self.lat = lat; self.lon = lon; self.radius = radius
    }

    /// cos(lat), for the haversine filter: computed on each use by the one expression every
    /// caller shares, so it is the same number a stored copy would be (answers bit-identical)
    /// and costs no memory.
    @inline(__always)
    var cosLat: Double { cos(lat * (Double.pi / 180)) }

    /// The polygon number of a polygon record, -1 for a circle or a hole.
    @inline(__always)
    var polygon: Int { radius == -1 ? Int(lat) : -1 }

    /// The record of polygon number `p`.
    static func polygon(_ p: Int32) -> CompiledCircle { CompiledCircle(lat: Double(p), lon: 0, radius: -1) }
    static let hole = CompiledCircle(lat: 0, lon: 0, radius: -2)
}
