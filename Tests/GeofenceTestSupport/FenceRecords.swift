import GeofenceKit

/// A circle as generators and brute-force references use it: plain numbers,
/// converted to a library `Fence` where the library is called.
public struct CircleRecord: Hashable, Sendable {
    public var id: String
    /// Centre latitude and longitude, degrees.
    public var lat: Double
    public var lon: Double
    /// Radius, metres.
    public var radius: Double

    public init(id: String, lat: Double, lon: Double, radius: Double) {
        self.id = id; self.lat = lat; self.lon = lon; self.radius = radius
    }
}

/// A polygon as generators and brute-force references use it: the index's flat layout.
public struct PolygonRecord: Hashable, Sendable {
    public var id: String
    public var shape: PolygonShape

    public init(id: String, shape: PolygonShape) { self.id = id; self.shape = shape }

    /// GeoJSON-like nesting: parts → rings (exterior first) → closed positions.
    public init(id: String, polygons: [[[Coordinate]]]) { self.init(id: id, shape: PolygonShape(polygons: polygons)) }
}

extension Fence {
    /// The library fence of a circle record (default options).
    public static func circle(_ c: CircleRecord) -> Fence { .circle(id: c.id, lat: c.lat, lon: c.lon, radius: c.radius) }
    /// The library fence of a polygon record (default options).
    public static func polygon(_ p: PolygonRecord) -> Fence { .polygon(id: p.id, polygons: p.shape.polygons) }
}

extension FenceIndex {
    /// An index over circles then polygons (slots in that order).
    public init(circles: [CircleRecord], polygons: [PolygonRecord] = []) throws(FenceIndexError) {
        try self.init(circles.map(Fence.circle) + polygons.map(Fence.polygon))
    }
}

/// A fence seen as a record, for tests that switch on the shape.
public enum FenceRecord: Hashable, Sendable {
    case circle(CircleRecord)
    case polygon(PolygonRecord)
}

extension Fence {
    /// This fence as a circle or polygon record.
    public var record: FenceRecord {
        switch shape {
        case .circle(let lat, let lon, let r): return .circle(CircleRecord(id: id, lat: lat, lon: lon, radius: r))
        case .polygon(let p): return .polygon(PolygonRecord(id: id, polygons: p))
        }
    }
}
