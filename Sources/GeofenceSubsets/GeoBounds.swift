import GeofenceIndex

/// The tile bundles' distance ceiling, and shorthands for the index's bounds
/// they use by these names (the expressions live in `SphericalBounds` and
/// `EllipsoidBounds`, once each).
enum GeoBounds {
    /// More than any WGS84 geodesic distance (half a meridian is 20,003,931.46 m).
    static let maxDistance = 20_004_000.0

    /// A lon/lat box holding every point within `metres` (geodesic) of the box
    /// `[west, east] × [south, north]` (`west <= east`); the whole longitude
    /// range when that neighbourhood reaches a pole or wraps.
    static func expanded(west: Double, south: Double, east: Double, north: Double, by metres: Double) -> GeoBox {
        SphericalBounds.capBox(west: west, south: south, east: east, north: north,
                               angle: SphericalBounds.capAngle(metres: metres))
    }

    /// N(φ) cos φ: metres per radian of longitude along the parallel (decreasing in |φ|).
    @inline(__always)
    static func parallelRadius(_ lat: Double) -> Double { EllipsoidBounds.radii(lat: lat).parallel }

    /// M(φ): the meridional radius of curvature, metres per radian of latitude (increasing in |φ|).
    @inline(__always)
    static func meridionalRadius(_ lat: Double) -> Double { EllipsoidBounds.radii(lat: lat).meridional }
}
