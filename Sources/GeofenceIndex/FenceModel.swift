import Geodesy
import GeofenceBase

/// A longitude/latitude pair in degrees (GeoJSON order: x = lon, y = lat).
public struct Coordinate: Hashable, Sendable {
    /// Longitude in degrees, [-180, 180] for an indexed fence.
    public var lon: Double
    /// Latitude in degrees, [-90, 90].
    public var lat: Double
    /// A position from longitude and latitude in degrees (not range-checked here; `FenceIndex`
    /// checks the fences it indexes).
    public init(lon: Double, lat: Double) { self.lon = lon; self.lat = lat }
}

/// The shape of a fence (docs/fences.md).
public enum FenceShape: Hashable, Sendable {
    /// Centre in degrees and radius in metres; inside means WGS84 geodesic distance ≤ radius.
    case circle(lat: Double, lon: Double, radius: Double)
    /// Polygons → rings (first exterior, then holes) → coordinates, closed (first == last).
    /// One polygon for a GeoJSON Polygon, one or more for a MultiPolygon.
    case polygon([[[Coordinate]]])

    /// Whether the shape is a circle (false for a polygon or multipolygon).
    public var isCircle: Bool { if case .circle = self { return true }; return false }
}

/// Per-fence monitoring options (docs/fences.md), read from feature properties or CSV columns.
public struct FenceOptions: Hashable, Sendable {
    /// Whether `enter` events are emitted; false suppresses them while the state is still
    /// tracked (docs/evaluation.md#options-filter-emission-not-state). Default true.
    public var notifyOnEntry = true
    /// Whether `exit` events are emitted; false suppresses them while the state is still
    /// tracked. Default true.
    public var notifyOnExit = true
    /// Seconds inside before a `dwell` event; nil for none.
    public var dwell: Double? = nil
    /// false: one-shot per device.
    public var repeats = true
    /// Free text copied into every event of the fence; nil for none.
    public var note: String? = nil
    /// The defaults: notify on entry and exit, no dwell, repeating, no note.
    public init() {}

    /// The property names that set options.
    public static let propertyNames: Set<String> = ["notifyOnEntry", "notifyOnExit", "dwell", "repeats", "note"]
}

/// A geofence: identifier, shape, options and the source properties (kept for write-back).
public struct Fence: Hashable, Sendable {
    /// The identifier: non-empty and unique in a fence set, compared and sorted bytewise
    /// as UTF-8 (docs/fences.md#identifier).
    public var id: String
    /// The geometry: a circle (centre in degrees, radius in metres) or lon/lat polygons.
    public var shape: FenceShape
    /// The event options: notify flags, dwell, repeats, note.
    public var options: FenceOptions
    /// All properties as read (a JSON object), including option properties, in source order.
    public var properties: [(String, JSONValue)]
    /// Where the fence was read: the file and its 1-based line (CSV) or 0-based feature
    /// index (GeoJSON); an empty file name for a fence made in code.
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

    /// Equal when identifier, shape, options, source and properties (in order, numbers by
    /// literal text) are all equal.
    /// - Complexity: O(n) in the vertex and property count.
    public static func == (a: Fence, b: Fence) -> Bool {
        a.id == b.id && a.shape == b.shape && a.options == b.options && a.source == b.source
            && JSONValue.object(a.properties) == JSONValue.object(b.properties)
    }
    /// Hashes the identifier and the shape (part of what `==` compares).
    /// - Complexity: O(n) in the vertex count.
    public func hash(into h: inout Hasher) { h.combine(id); h.combine(shape) }
}
