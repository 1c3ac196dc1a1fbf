import GeofenceBase
import GeofenceFences
import GeofenceEvaluation
import Foundation
import GeofenceIndex

/// A Web Mercator XYZ tile (the OpenStreetMap "slippy map" scheme): at zoom
/// `z` the world between latitudes ±`Tile.maxLatitude` is cut into 2^z × 2^z
/// tiles, `x` growing east from -180°, `y` growing south from the top.
public struct Tile: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Zoom level, in [0, ``maxZoom``].
    public var z: Int
    /// Column, in [0, 2^z): 0 starts at longitude -180°, growing east.
    public var x: Int
    /// Row, in [0, 2^z): 0 starts at latitude +``maxLatitude``, growing south.
    public var y: Int

    /// The Web Mercator latitude limit, atan(sinh π) in degrees (85.0511287798°).
    public static let maxLatitude = atan(sinh(Double.pi)) * 180 / Double.pi
    /// Zoom levels accepted (2^24 tiles a side at most).
    public static let maxZoom = 24

    /// The tile `z/x/y`.
    /// - Precondition: `0 ≤ z ≤ maxZoom`, `0 ≤ x < 2^z` and `0 ≤ y < 2^z`.
    public init(z: Int, x: Int, y: Int) {
        precondition(z >= 0 && z <= Tile.maxZoom && x >= 0 && y >= 0 && x < 1 << z && y < 1 << z, "tile out of range")
        self.z = z; self.x = x; self.y = y
    }

    /// `z/x/y`, the tile's path without extension.
    public var description: String { "\(z)/\(x)/\(y)" }

    /// Orders by zoom, then column, then row (the manifest's tile order).
    public static func < (a: Tile, b: Tile) -> Bool {
        if a.z != b.z { return a.z < b.z }
        if a.x != b.x { return a.x < b.x }
        return a.y < b.y
    }

    /// Latitude (degrees) of the top edge of row `y` at zoom `z` (`y = 2^z` gives the bottom of the last row).
    public static func latitude(row y: Int, zoom z: Int) -> Double {
        let n = Double(1 << z)
        return atan(sinh(Double.pi * (1 - 2 * Double(y) / n))) * 180 / Double.pi
    }

    /// Longitude (degrees) of the west edge of column `x` at zoom `z` (`x = 2^z` gives 180).
    public static func longitude(column x: Int, zoom z: Int) -> Double {
        Double(x) / Double(1 << z) * 360 - 180
    }

    /// The tile's closed lon/lat box (never crossing the antimeridian: the
    /// last column ends at 180).
    public var box: GeoBox {
        GeoBox(west: Tile.longitude(column: x, zoom: z), south: Tile.latitude(row: y + 1, zoom: z),
               east: Tile.longitude(column: x + 1, zoom: z), north: Tile.latitude(row: y, zoom: z))
    }

    /// The column holding a longitude (180 falls in the last column).
    static func column(lon: Double, zoom z: Int) -> Int {
        let n = 1 << z
        let f = (lon + 180) / 360 * Double(n)
        return min(n - 1, max(0, Int(f.rounded(.down))))
    }

    /// The row holding a latitude within ±`maxLatitude`.
    static func row(lat: Double, zoom z: Int) -> Int {
        let n = 1 << z
        let phi = lat * Double.pi / 180
        let f = (1 - log(tan(phi) + 1 / cos(phi)) / Double.pi) / 2 * Double(n)
        var r = min(n - 1, max(0, Int(f.rounded(.down))))
        // Rounding near an edge: move to the row whose closed box holds the latitude.
        if lat > latitude(row: r, zoom: z), r > 0 { r -= 1 }
        if lat < latitude(row: r + 1, zoom: z), r < n - 1 { r += 1 }
        return r
    }

    /// The tile holding a point.
    /// - Throws: `GeofenceError.invalidArgument`: parameter `latitude` when the latitude is
    ///   outside ±`maxLatitude` (Web Mercator tiles do not reach the poles) or not finite,
    ///   `longitude` when the longitude is outside [-180, 180], `zoom` when the zoom is outside
    ///   [0, ``maxZoom``].
    public static func containing(lat: Double, lon: Double, zoom z: Int) throws(GeofenceError) -> Tile {
        try check(zoom: z)
        try check(latitude: lat, what: "latitude")
        guard lon >= -180 && lon <= 180 else { throw .argument("longitude", "\(lon) is out of range [-180, 180]") }
        return Tile(z: z, x: column(lon: lon, zoom: z), y: row(lat: lat, zoom: z))
    }

    /// The tiles meeting a closed lon/lat box (crossing the antimeridian when
    /// `west > east`), ordered by column then row.
    /// - Throws: `GeofenceError.invalidArgument`: parameter `south latitude` or `north latitude`
    ///   when that latitude is outside ±`maxLatitude` or not finite, `zoom` when the zoom is
    ///   outside [0, ``maxZoom``]. Longitudes are not checked (values outside [-180, 180] are
    ///   clamped to the first or last column).
    public static func covering(_ box: GeoBox, zoom z: Int) throws(GeofenceError) -> TileRange {
        try check(zoom: z)
        try check(latitude: box.south, what: "south latitude")
        try check(latitude: box.north, what: "north latitude")
        let n = 1 << z
        let x0 = column(lon: box.west, zoom: z), x1 = column(lon: box.east, zoom: z)
        let columns: [ClosedRange<Int>]
        if !box.crossesAntimeridian { columns = [x0...x1] }
        else if x1 >= x0 - 1 { columns = [0...(n - 1)] }  // the two pieces meet: every column
        else { columns = [0...x1, x0...(n - 1)] }
        return TileRange(zoom: z, columns: columns, rows: row(lat: box.north, zoom: z)...row(lat: box.south, zoom: z))
    }

    /// Every tile at a zoom.
    /// - Throws: `GeofenceError.invalidArgument` (parameter `zoom`) when the zoom is outside
    ///   [0, ``maxZoom``].
    public static func world(zoom z: Int) throws(GeofenceError) -> TileRange {
        try check(zoom: z)
        let n = 1 << z
        return TileRange(zoom: z, columns: [0...(n - 1)], rows: 0...(n - 1))
    }

    static func check(zoom z: Int) throws(GeofenceError) {
        guard z >= 0 && z <= maxZoom else { throw .argument("zoom", "\(z) is out of range [0, \(maxZoom)]") }
    }

    static func check(latitude lat: Double, what: String) throws(GeofenceError) {
        guard lat.isFinite, abs(lat) <= maxLatitude else {
            throw .argument(what, "\(JSONValue.format(lat)) is outside the Web Mercator tile range ±85.0511287798°")
        }
    }
}

/// A block of tiles at one zoom: column ranges (two when crossing the antimeridian) × a row range.
public struct TileRange: Sendable, Hashable {
    /// The zoom level of every tile of the range.
    public var zoom: Int
    /// Column ranges, disjoint; two when the range crosses the antimeridian (`0...x1` and
    /// `x0...(2^z − 1)`).
    public var columns: [ClosedRange<Int>]
    /// The row range.
    public var rows: ClosedRange<Int>

    /// A range from its parts, as given: not checked against the zoom (a tile outside
    /// [0, 2^zoom) traps when it is made, e.g. by ``TileBundleWriter``), and the column ranges
    /// should not overlap.
    public init(zoom: Int, columns: [ClosedRange<Int>], rows: ClosedRange<Int>) {
        self.zoom = zoom; self.columns = columns; self.rows = rows
    }

    /// One tile.
    public init(_ tile: Tile) {
        self.init(zoom: tile.z, columns: [tile.x...tile.x], rows: tile.y...tile.y)
    }

    /// The number of tiles: columns × rows.
    /// - Complexity: O(column ranges), at most 2 for ranges made by ``Tile``.
    public var count: Int { columns.reduce(0) { $0 + $1.count } * rows.count }

    /// Columns in increasing order.
    /// - Complexity: O(c log c) for c columns.
    public var columnList: [Int] { columns.flatMap { Array($0) }.sorted() }
}
