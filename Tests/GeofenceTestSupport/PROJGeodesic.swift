import CPROJ

/// PROJ's geodesic routines (`geod_inverse`, `geod_direct`) on WGS84: Karney's algorithms
/// in C, independent of our Swift `Geodesic`, as the reference of circle tests. The two
/// agree to ~10 nm (GeodesyTests check it).
public struct PROJGeodesic {
    private var g = geod_geodesic()

    /// WGS84 (a = 6378137 m, f = 1/298.257223563).
    public init() {
        geod_init(&g, 6_378_137, 1 / 298.257223563)
    }

    /// The geodesic distance in metres between two positions (degrees).
    public func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        var g = g
        var s12 = 0.0
        geod_inverse(&g, lat1, lon1, lat2, lon2, &s12, nil, nil)
        return s12
    }

    /// The position `distance` metres from (lat, lon) along `azimuth` (degrees from north),
    /// longitude in [-180, 180].
    public func direct(lat: Double, lon: Double, azimuth: Double, distance: Double) -> (lat: Double, lon: Double) {
        var g = g
        var lat2 = 0.0, lon2 = 0.0
        geod_direct(&g, lat, lon, azimuth, distance, &lat2, &lon2, nil)
        return (lat2, lon2)
    }
}
