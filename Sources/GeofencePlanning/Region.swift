import GeofenceIndex

/// A circular region handed to the operating system (what `CLCircularRegion` can hold).
public struct Region: Hashable, Sendable {
    /// What a region stands for, and so what its OS event means to the app.
    public enum Kind: Hashable, Sendable {
        /// A fence monitored directly (a polygon as its enclosing circle).
        case fence(Int32)
        /// The refresh region around the device: leaving it triggers a re-plan.
        case refresh
        /// One circle covering several unmonitored fences near the device: entering it triggers a re-plan.
        case cluster([Int32])
    }
    /// What the region stands for (a fence, the refresh region, a cluster).
    public var kind: Kind
    /// Centre latitude, degrees.
    public var lat: Double
    /// Centre longitude, degrees.
    public var lon: Double
    /// Metres.
    public var radius: Double

    /// A region of `kind` centred at (`lat`, `lon`) in degrees, `radius` in metres.
    public init(kind: Kind, lat: Double, lon: Double, radius: Double) {
        self.kind = kind; self.lat = lat; self.lon = lon; self.radius = radius
    }
}

/// The circle the OS monitors for each fence slot (the circle itself, or a polygon's
/// enclosing circle computed by the caller).
public struct OSCircle: Hashable, Sendable {
    /// Centre latitude, degrees.
    public var lat: Double
    /// Centre longitude, degrees.
    public var lon: Double
    /// Radius in metres, not raised to the OS minimum radius (the OS monitors `max(r, minR)`,
    /// docs/rotation.md#what-the-os-monitors); the planner compares it with `maxRadius` as it is.
    public var radius: Double
    /// An OS circle centred at (`lat`, `lon`) in degrees with `radius` metres.
    public init(lat: Double, lon: Double, radius: Double) { self.lat = lat; self.lon = lon; self.radius = radius }
}
