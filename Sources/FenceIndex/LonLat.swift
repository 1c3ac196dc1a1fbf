/// A position as GeoJSON writes it: longitude first, degrees (WGS84).
public struct LonLat: Hashable, Sendable {
    public var lon: Double
    public var lat: Double

    @inlinable
    public init(lon: Double, lat: Double) {
        self.lon = lon; self.lat = lat
    }
}
