import GeofenceIndex

/// A circular region handed to the operating system (what `CLCircularRegion` can hold).
public struct Region: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// A fence monitored directly (a polygon as its enclosing circle).
        case fence(Int32)
        /// The refresh region around the device: leaving it triggers a re-plan.
        case refresh
        /// One circle covering several unmonitored fences near the device: entering it triggers a re-plan.
        case cluster([Int32])
    }
    public var kind: Kind
    public var lat: Double
    public var lon: Double
    /// Metres.
    public var radius: Double

    public init(kind: Kind, lat: Double, lon: Double, radius: Double) {
        self.kind = kind; self.lat = lat; self.lon = lon; self.radius = radius
    }
}

/// The circle the OS monitors for each fence slot (the circle itself, or a polygon's
/// enclosing circle computed by the caller).
public struct OSCircle: Hashable, Sendable {
    public var lat: Double
    public var lon: Double
    public var radius: Double
    public init(lat: Double, lon: Double, radius: Double) { self.lat = lat; self.lon = lon; self.radius = radius }
}
