import GeofenceBase
import Geodesy

/// A polygon or multipolygon in flat storage, as GeoJSON describes it: rings of
/// lon/lat positions, edges straight in lon/lat (planar in degrees). The first
/// ring of every part is its shell, the others are holes.
///
/// Rings are stored closed (the first position repeated at the end).
/// Topological validity (GEOS `isValid`) is the caller's business; the index
/// checks only counts and coordinate ranges. Rings that cross the antimeridian
/// must come split (RFC 7946 §3.1.9).
public struct PolygonShape: Hashable, Sendable {
    /// `lon, lat` pairs of all rings, one after another.
    public private(set) var coordinates: [Double]
    /// Vertex index (pair index into `coordinates`) where each ring starts,
    /// followed by the total vertex count, so ring `r` is `ringStarts[r]..<ringStarts[r + 1]`.
    public private(set) var ringStarts: [Int]
    /// Ring index where each part starts, followed by the ring count,
    /// so part `p` is rings `partStarts[p]..<partStarts[p + 1]`.
    public private(set) var partStarts: [Int]

    /// An empty shape; append parts with `appendPart(_:)`.
    public init() {
        coordinates = []; ringStarts = [0]; partStarts = [0]
    }

    /// A (multi)polygon from GeoJSON-like nesting: parts, rings, positions.
    /// Open rings are closed.
    /// - Complexity: O(n) in the position count.
    public init(polygons: [[[Coordinate]]]) {
        self.init()
        for part in polygons { appendPart(part) }
    }

    /// A single polygon: shell, then holes.
    /// - Complexity: O(n) in the position count.
    public init(rings: [[Coordinate]]) {
        self.init(polygons: [rings])
    }

    /// Flat storage as described by the properties; rings must be closed.
    /// Returns nil when the offsets are inconsistent.
    /// - Complexity: O(rings + parts).
    public init?(coordinates: [Double], ringStarts: [Int], partStarts: [Int]) {
        guard coordinates.count % 2 == 0, ringStarts.first == 0, partStarts.first == 0,
              ringStarts.last == coordinates.count / 2, partStarts.last == ringStarts.count - 1,
              zip(ringStarts, ringStarts.dropFirst()).allSatisfy({ $0 < $1 }),
              zip(partStarts, partStarts.dropFirst()).allSatisfy({ $0 < $1 })
        else { return nil }
        self.coordinates = coordinates; self.ringStarts = ringStarts; self.partStarts = partStarts
    }

    /// Appends one polygon part (shell first, then holes), closing open rings.
    /// - Complexity: O(n) in the part's position count, amortized.
    public mutating func appendPart(_ rings: [[Coordinate]]) {
        for ring in rings {
            for p in ring { coordinates.append(p.lon); coordinates.append(p.lat) }
            if let f = ring.first, let l = ring.last, f != l || ring.count == 1 {
                coordinates.append(f.lon); coordinates.append(f.lat)
            }
            ringStarts.append(coordinates.count / 2)
        }
        partStarts.append(ringStarts.count - 1)
    }

    /// Number of polygon parts (1 for a GeoJSON Polygon).
    public var partCount: Int { partStarts.count - 1 }
    /// Number of rings over all parts, shells and holes.
    public var ringCount: Int { ringStarts.count - 1 }
    /// Number of stored positions over all rings, the closing repeats included.
    public var vertexCount: Int { coordinates.count / 2 }

    /// The rings of part `p` as nested positions (closed).
    /// - Precondition: `p` in `0..<partCount`.
    /// - Complexity: O(n) in the part's vertex count.
    public func rings(ofPart p: Int) -> [[Coordinate]] {
        (partStarts[p]..<partStarts[p + 1]).map { r in
            (ringStarts[r]..<ringStarts[r + 1]).map { v in Coordinate(lon: coordinates[2 * v], lat: coordinates[2 * v + 1]) }
        }
    }

    /// All parts as nested positions (closed rings).
    /// - Complexity: O(n) in `vertexCount`.
    public var polygons: [[[Coordinate]]] { (0..<partCount).map { rings(ofPart: $0) } }
}
