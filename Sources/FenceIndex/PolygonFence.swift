/// A polygon or multipolygon fence: covered points (inside or on the boundary,
/// holes excluded) are inside.
public struct PolygonFence: Hashable, Sendable {
    public var id: String
    public var shape: PolygonShape

    @inlinable
    public init(id: String, shape: PolygonShape) {
        self.id = id; self.shape = shape
    }

    /// Convenience: GeoJSON-like nesting (parts, rings, positions).
    public init(id: String, polygons: [[[LonLat]]]) {
        self.init(id: id, shape: PolygonShape(polygons: polygons))
    }
}
