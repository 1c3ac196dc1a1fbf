import CPROJ

/// Geodesics on the WGS84 ellipsoid, computed by PROJ's implementation of
/// Karney's algorithms (`geod_inverse`, `geod_direct`), accurate to ~15 nm.
///
/// The underlying `geod_geodesic` is plain data, initialised once and only
/// read afterwards, so the shared instance is safe to use from any thread.
public struct Geodesic: @unchecked Sendable {
    /// WGS84 semi-major axis, metres.
    public static let wgs84A = 6_378_137.0
    /// WGS84 flattening.
    public static let wgs84F = 1.0 / 298.257223563

    /// The WGS84 ellipsoid.
    public static let wgs84 = Geodesic(a: wgs84A, f: wgs84F)

    @usableFromInline var g: geod_geodesic

    public init(a: Double, f: Double) {
        var g = geod_geodesic()
        geod_init(&g, a, f)
        self.g = g
    }

    /// The result of an inverse problem.
    public struct Inverse: Sendable, Hashable {
        /// Distance in metres.
        public var distance: Double
        /// Azimuth at the first point, degrees clockwise from north.
        public var azimuth1: Double
        /// Azimuth at the second point (forward direction), degrees.
        public var azimuth2: Double

        @inlinable
        public init(distance: Double, azimuth1: Double, azimuth2: Double) {
            self.distance = distance; self.azimuth1 = azimuth1; self.azimuth2 = azimuth2
        }
    }

    /// Shortest distance and azimuths between two points (degrees).
    /// - Complexity: O(1), about 1–2 µs.
    @inlinable
    public func inverse(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Inverse {
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
        withUnsafePointer(to: g) { gp in
            geod_inverse(gp, lat1, lon1, lat2, lon2, &s12, &azi1, &azi2)
        }
        return Inverse(distance: s12, azimuth1: azi1, azimuth2: azi2)
    }

    /// Shortest distance in metres between two points given in degrees.
    /// - Complexity: O(1), about 1–2 µs.
    @inlinable
    public func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        var s12 = 0.0
        withUnsafePointer(to: g) { gp in
            geod_inverse(gp, lat1, lon1, lat2, lon2, &s12, nil, nil)
        }
        return s12
    }

    /// The point reached from (`lat`, `lon`) after `distance` metres on the
    /// initial `azimuth` (degrees clockwise from north). Longitude is in [-180, 180].
    /// - Complexity: O(1).
    @inlinable
    public func direct(lat: Double, lon: Double, azimuth: Double, distance: Double) -> (lat: Double, lon: Double, azimuth: Double) {
        var lat2 = 0.0, lon2 = 0.0, azi2 = 0.0
        withUnsafePointer(to: g) { gp in
            geod_direct(gp, lat, lon, azimuth, distance, &lat2, &lon2, &azi2)
        }
        return (lat2, lon2, azi2)
    }
}
