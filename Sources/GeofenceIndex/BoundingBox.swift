import GeofenceBase
import Geodesy

/// A lon/lat box in single precision, rounded outward from the double
/// precision box it stands for, as stored in the R-tree (`west <= east`
/// always; a box crossing the antimeridian is stored as two).
struct BoundingBox: Hashable, Sendable {
    var west: Float
    var south: Float
    var east: Float
    var north: Float

    /// A box that intersects nothing (padding slots of the packed tree).
    static let empty = BoundingBox(west: Float.infinity, south: Float.infinity, east: -Float.infinity, north: -Float.infinity)

    init(west: Float, south: Float, east: Float, north: Float) {
        self.west = west; self.south = south; self.east = east; self.north = north
    }

    /// The single-precision box containing the double-precision one.
    init(west: Double, south: Double, east: Double, north: Double) {
        self.west = BoundingBox.down(west); self.south = BoundingBox.down(south)
        self.east = BoundingBox.up(east); self.north = BoundingBox.up(north)
    }

    @inline(__always)
    static func down(_ x: Double) -> Float {
        var f = Float(x)
        if Double(f) > x { f = f.nextDown }
        return f
    }

    @inline(__always)
    static func up(_ x: Double) -> Float {
        var f = Float(x)
        if Double(f) < x { f = f.nextUp }
        return f
    }

    /// Splits a (possibly antimeridian-crossing) box into one or two
    /// non-crossing single-precision boxes.
    static func pieces(of box: GeoBox) -> (BoundingBox, BoundingBox?) {
        if box.crossesAntimeridian {
            return (BoundingBox(west: box.west, south: box.south, east: 180, north: box.north),
                    BoundingBox(west: -180, south: box.south, east: box.east, north: box.north))
        }
        return (BoundingBox(west: box.west, south: box.south, east: box.east, north: box.north), nil)
    }

    @inline(__always)
    func union(_ o: BoundingBox) -> BoundingBox {
        BoundingBox(west: min(west, o.west), south: min(south, o.south), east: max(east, o.east), north: max(north, o.north))
    }

    @inline(__always)
    func contains(_ o: BoundingBox) -> Bool {
        o.west >= west && o.south >= south && o.east <= east && o.north <= north
    }

    var isEmpty: Bool { !(west <= east && south <= north) }
}

/// A query window in single precision (rounded outward), possibly crossing the
/// antimeridian (`west > east`), tested against stored boxes.
struct QueryWindow: Sendable {
    var west: Float
    var south: Float
    var east: Float
    var north: Float
    var crosses: Bool

    @inline(__always)
    init(_ box: GeoBox) {
        west = BoundingBox.down(box.west); south = BoundingBox.down(box.south)
        east = BoundingBox.up(box.east); north = BoundingBox.up(box.north)
        crosses = box.west > box.east
    }

    @inline(__always)
    func intersects(west bw: Float, south bs: Float, east be: Float, north bn: Float) -> Bool {
        guard bs <= north && bn >= south else { return false }
        return crosses ? (be >= west || bw <= east) : (be >= west && bw <= east)
    }

    @inline(__always)
    func intersects(_ b: BoundingBox) -> Bool {
        intersects(west: b.west, south: b.south, east: b.east, north: b.north)
    }
}

/// A leaf of the index: a box and an encoded fence reference (see `EntryValue`).
struct IndexEntry: Sendable {
    var box: BoundingBox
    var value: UInt32
}

/// Encoding of the 32-bit value stored with each R-tree entry:
/// bit 0 secondary (second box of a fence split at the antimeridian; the
/// payload is then an index into the split table), bit 1 polygon, bit 2 the
/// fence has two boxes, bits 3... the slot (or split index).
enum EntryValue {
    static let secondary: UInt32 = 1
    static let polygon: UInt32 = 2
    static let twin: UInt32 = 4
    static let payloadShift: UInt32 = 3
    static let maxPayload = Int(UInt32.max >> payloadShift) - 1
    /// Padding slot in the packed tree.
    static let none = UInt32.max

    @inline(__always)
    static func make(payload: Int32, polygon isPolygon: Bool, secondary isSecondary: Bool, twin isTwin: Bool) -> UInt32 {
        UInt32(payload) << payloadShift | (isPolygon ? polygon : 0) | (isSecondary ? secondary : 0) | (isTwin ? twin : 0)
    }
}
