import GeofenceBase
import Geodesy

/// A longitude/latitude box in degrees. It crosses the antimeridian when
/// `west > east` (then it is `[west, 180] ∪ [-180, east]`); `west = -180,
/// east = 180` is the full longitude range.
public struct GeoBox: Hashable, Sendable {
    /// Western edge, degrees in [-180, 180]; greater than `east` when the box crosses the
    /// antimeridian.
    public var west: Double
    /// Southern edge, degrees in [-90, 90], at most `north`.
    public var south: Double
    /// Eastern edge, degrees in [-180, 180].
    public var east: Double
    /// Northern edge, degrees in [-90, 90].
    public var north: Double

    /// A box from its edges in degrees; not checked here (box queries check the ranges).
    @inlinable
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west; self.south = south; self.east = east; self.north = north
    }

    /// The whole world.
    public static let world = GeoBox(west: -180, south: -90, east: 180, north: 90)

    /// Whether the box crosses the antimeridian (`west > east`).
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
