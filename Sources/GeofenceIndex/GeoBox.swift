import GeofenceBase
import Geodesy

/// A longitude/latitude box in degrees. It crosses the antimeridian when
/// `west > east` (then it is `[west, 180] ∪ [-180, east]`); `west = -180,
/// east = 180` is the full longitude range.
public struct GeoBox: Hashable, Sendable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    @inlinable
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west; self.south = south; self.east = east; self.north = north
    }

    /// The whole world.
    public static let world = GeoBox(west: -180, south: -90, east: 180, north: 90)

    @inlinable
    public var crossesAntimeridian: Bool { west > east }

    /// Whether a point lies in the box (closed).
    /// - Complexity: O(1).
    @inlinable
    public func contains(lat: Double, lon: Double) -> Bool {
        guard lat >= south && lat <= north else { return false }
        return crossesAntimeridian ? (lon >= west || lon <= east) : (lon >= west && lon <= east)
    }
}
