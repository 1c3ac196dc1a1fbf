import GeofenceBase
import GeofenceIndex
import GeofenceFences
import GeofenceEvaluation
import Foundation
import Geodesy

/// A lon/lat rectangle of a tile (the tile itself or one cell of its split)
/// with the values the bundle bounds reuse.
///
/// `radius` bounds the geodesic distance from the centre (mid-latitude,
/// mid-longitude) to any point of the rectangle. It is the distance to a
/// corner: along a parallel the distance from the centre grows with the
/// longitude difference (up to 180°), so the farthest point lies on the east
/// or west edge; along those meridians (less than 90° of longitude from the
/// centre) the distance falls to its minimum at the foot of the perpendicular
/// and rises on both sides, so it is largest at an end — a corner. The index
/// relies on the same two facts for its box distances
/// (`FenceIndex.geodesicDistance(lat:lon:to:)`), and `SubsetTileTests.testCellRadiusBoundsEveryPoint`
/// samples edges densely to check them. The east and west corners are mirror
/// images, so two geodesics suffice.
struct BundleCell: Sendable {
    var west: Double, south: Double, east: Double, north: Double
    /// Centre.
    var lat: Double, lon: Double, cosLat: Double
    /// Upper bound of the geodesic distance from the centre to any point of the cell (metres).
    var radius: Double
    /// Minimum of cos φ over the cell.
    var cosMin: Double
    /// Local-plane scales (metres per degree): largest kx, largest and smallest ky over the cell.
    var kxMax: Double, kyMax: Double, kyMin: Double
    /// Smallest N cos φ and smallest M over the cell (metres per radian).
    var parallelMin: Double, meridionalMin: Double
    /// Identifies the cell's latitude range within a build (zoom, tile row, cell row) for caches; 0 unset.
    var rowKey = 0

    init(west: Double, south: Double, east: Double, north: Double, radius knownRadius: Double? = nil) {
        self.west = west; self.south = south; self.east = east; self.north = north
        lat = (south + north) * 0.5
        lon = (west + east) * 0.5
        cosLat = cos(lat * SphericalBounds.d2r)
        if let knownRadius {
            radius = knownRadius
        } else {
            radius = BundleCell.radius(halfWidth: (east - west) * 0.5, south: south, north: north)
        }
        cosMin = SphericalBounds.cosMin(south, north)
        let r = SphericalBounds.absRange(south, north)
        // N cos φ falls and M rises with |φ|.
        let inner = EllipsoidBounds.radii(lat: r.min), outer = EllipsoidBounds.radii(lat: r.max)
        kxMax = inner.parallel * SphericalBounds.d2r
        kyMax = outer.meridional * SphericalBounds.d2r
        kyMin = inner.meridional * SphericalBounds.d2r
        parallelMin = outer.parallel
        meridionalMin = inner.meridional
    }

    /// The corner distance bound for a rectangle `halfWidth` degrees either side
    /// of its centre meridian and spanning `[south, north]`; independent of the
    /// longitude, so cells of one row share it. More than any geodesic when
    /// the half-width reaches 90° (the corner argument needs less).
    static func radius(halfWidth: Double, south: Double, north: Double) -> Double {
        guard halfWidth < 90 else { return GeoBounds.maxDistance }
        let g = Geodesic.wgs84
        let c = (south + north) * 0.5
        let d = max(g.distance(lat1: c, lon1: 0, lat2: north, lon2: halfWidth),
                    g.distance(lat1: c, lon1: 0, lat2: south, lon2: halfWidth))
        return d * (1 + 1e-12) + 1e-6
    }

    /// Lower bound (metres) of the geodesic distance from any point of the cell to the point.
    @inline(__always)
    func lowerDistance(lat pLat: Double, lon pLon: Double, cosLat pCos: Double) -> Double {
        SphericalBounds.geodesicLowerBound(angle: SphericalBounds.angleLowerBound(west, south, east, north, cosMin: cosMin,
                                                                                  pLon, pLat, pLon, pLat, cosMin2: pCos))
    }

    /// Lower bound (metres) of the geodesic distance from any point of the cell to any point of the box.
    @inline(__always)
    func lowerDistance(west w: Double, south s: Double, east e: Double, north n: Double, cosMin c: Double) -> Double {
        SphericalBounds.geodesicLowerBound(angle: SphericalBounds.angleLowerBound(west, south, east, north, cosMin: cosMin,
                                                                                  w, s, e, n, cosMin2: c))
    }

    /// Upper bound (metres) of the geodesic distance from the centre to the point.
    @inline(__always)
    func upperCentreDistance(lat pLat: Double, lon pLon: Double, cosLat pCos: Double) -> Double {
        SphericalBounds.geodesicUpperBound(angle: SphericalBounds.centralAngle(lat1: lat, lon1: lon, cos1: cosLat,
                                                                               lat2: pLat, lon2: pLon, cos2: pCos))
    }
}
