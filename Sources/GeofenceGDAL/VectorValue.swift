/// A planar position as a vector source stores it: `x` easting or longitude, `y` northing
/// or latitude (GDAL's traditional GIS axis order).
public struct XY: Hashable, Sendable {
    /// Easting or longitude.
    public var x: Double
    /// Northing or latitude.
    public var y: Double
    /// A position.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// One attribute value of a feature.
public enum VectorValue: Hashable, Sendable {
    /// Not set, or SQL NULL.
    case null
    /// An integer field (32 or 64 bits).
    case integer(Int64)
    /// A floating-point field.
    case real(Double)
    /// A boolean field (an integer field of the boolean subtype).
    case boolean(Bool)
    /// A string field, and every other field type (dates, lists, binary) as GDAL writes it as text.
    case string(String)
}

/// The type of an attribute field, as we read and write it.
public enum VectorFieldType: String, Hashable, Sendable {
    /// 64-bit integers.
    case integer
    /// Doubles.
    case real
    /// Booleans.
    case boolean
    /// Text; also every type we do not map (read as its text).
    case string
}

/// An attribute field: its name and type.
public struct VectorFieldDefinition: Hashable, Sendable {
    /// The field name as the source spells it.
    public var name: String
    /// The type.
    public var type: VectorFieldType
    /// A field definition.
    public init(name: String, type: VectorFieldType) { self.name = name; self.type = type }
}

/// A feature's geometry, reduced to what fences are made of. Curved geometries are read as
/// their linear approximation; Z and M values are dropped.
public enum VectorGeometry: Hashable, Sendable {
    /// A point.
    case point(XY)
    /// A polygon: rings, the exterior first.
    case polygon([[XY]])
    /// A multipolygon: polygons of rings.
    case multiPolygon([[[XY]]])
    /// Any other geometry (or an empty point), by GDAL's type name (`LINESTRING`, `MULTIPOINT`...).
    case other(String)
}

/// One feature of a layer.
public struct VectorFeature: Sendable {
    /// The feature identifier (FID) the source gives, or nil when it has none.
    public var fid: Int64?
    /// The attribute values, in the order of ``VectorLayer/fields``.
    public var values: [VectorValue]
    /// The geometry, or nil when the feature has none.
    public var geometry: VectorGeometry?
    /// A feature.
    public init(fid: Int64?, values: [VectorValue], geometry: VectorGeometry?) {
        self.fid = fid; self.values = values; self.geometry = geometry
    }
}
