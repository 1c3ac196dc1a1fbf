import Geodesy
import GeofenceBase

/// A longitude/latitude pair in degrees (GeoJSON order: x = lon, y = lat).
public struct Coordinate: Hashable, Sendable {
    public var lon: Double
    public var lat: Double
    public init(lon: Double, lat: Double) { self.lon = lon; self.lat = lat }
}

/// The shape of a fence (docs/fences.md).
public enum FenceShape: Hashable, Sendable {
    /// Centre in degrees and radius in metres; inside means WGS84 geodesic distance ≤ radius.
    case circle(lat: Double, lon: Double, radius: Double)
    /// Polygons → rings (first exterior, then holes) → coordinates, closed (first == last).
    /// One polygon for a GeoJSON Polygon, one or more for a MultiPolygon.
    case polygon([[[Coordinate]]])

    public var isCircle: Bool { if case .circle = self { return true }; return false }
}

/// Per-fence monitoring options (docs/fences.md), read from feature properties or CSV columns.
public struct FenceOptions: Hashable, Sendable {
    public var notifyOnEntry = true
    public var notifyOnExit = true
    /// Seconds inside before a `dwell` event; nil for none.
    public var dwell: Double? = nil
    /// false: one-shot per device.
    public var repeats = true
    public var note: String? = nil
    public init() {}

    /// The property names that set options.
    public static let propertyNames: Set<String> = ["notifyOnEntry", "notifyOnExit", "dwell", "repeats", "note"]
}

/// A geofence: identifier, shape, options and the source properties (kept for write-back).
public struct Fence: Hashable, Sendable {
    public var id: String
    public var shape: FenceShape
    public var options: FenceOptions
    /// All properties as read (a JSON object), including option properties, in source order.
    public var properties: [(String, JSONValue)]
    public var source: SourceLocation

    /// A fence with the given parts; `source` defaults to no file (a fence made in code).
    public init(id: String, shape: FenceShape, options: FenceOptions = FenceOptions(),
                properties: [(String, JSONValue)] = [], source: SourceLocation = SourceLocation(file: "")) {
        self.id = id; self.shape = shape; self.options = options; self.properties = properties; self.source = source
    }

    /// A circle fence made in code: centre in degrees, radius in metres, default options.
    public static func circle(id: String, lat: Double, lon: Double, radius: Double) -> Fence {
        Fence(id: id, shape: .circle(lat: lat, lon: lon, radius: radius))
    }

    /// A polygon fence made in code: parts → rings (exterior first, then holes) → closed
    /// lon/lat positions, as GeoJSON nests them; default options.
    public static func polygon(id: String, polygons: [[[Coordinate]]]) -> Fence {
        Fence(id: id, shape: .polygon(polygons))
    }

    public static func == (a: Fence, b: Fence) -> Bool {
        a.id == b.id && a.shape == b.shape && a.options == b.options && a.source == b.source
            && JSONValue.object(a.properties) == JSONValue.object(b.properties)
    }
    public func hash(into h: inout Hasher) { h.combine(id); h.combine(shape) }
}
