/// A circular fence: every point whose WGS84 geodesic distance from the centre
/// is at most `radius` metres (boundary inclusive), like `CLCircularRegion`.
public struct CircleFence: Hashable, Sendable {
    public var id: String
    /// Centre latitude, degrees in [-90, 90].
    public var lat: Double
    /// Centre longitude, degrees in [-180, 180].
    public var lon: Double
    /// Radius in metres, finite and > 0.
    public var radius: Double

    @inlinable
    public init(id: String, lat: Double, lon: Double, radius: Double) {
        self.id = id; self.lat = lat; self.lon = lon; self.radius = radius
    }
}
