import CGEOS

extension Geometry {
    /// The polygons of a Polygon, MultiPolygon, or GeometryCollection of those (nested
    /// collections allowed), as polygons → rings (shell first, then holes) → (x, y).
    /// Rings come back closed, as GEOS stores them; empty polygons are skipped.
    /// Any other type throws `GeometryInputError.notPolygonal`.
    /// - Throws: `GeometryInputError.notPolygonal` naming the first other type met,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(n) in the number of coordinates.
    public func polygons() throws -> [[[(x: Double, y: Double)]]] {
        var result: [[[(x: Double, y: Double)]]] = []
        try appendPolygons(of: handle, to: &result)
        return result
    }

    /// `g` is borrowed: this geometry itself or a part of it, valid while `self` lives.
    private func appendPolygons(of g: OpaquePointer, to result: inout [[[(x: Double, y: Double)]]]) throws {
        let ctx = context.handle
        context.clearMessages()
        // returns -1 on exception
        let type = geos.GEOSGeomTypeId_r(ctx, g)
        guard type != -1 else { throw context.takeError("GEOSGeomTypeId_r") }

        switch type {
        case Int32(GEOS_POLYGON.rawValue):
            // returns 2 on exception, 1 on true, 0 on false
            let empty = geos.GEOSisEmpty_r(ctx, g)
            guard empty != 2 else { throw context.takeError("GEOSisEmpty_r") }
            if empty == 1 { return }
            // returns NULL on exception; the ring is borrowed from the polygon
            guard let shell = geos.GEOSGetExteriorRing_r(ctx, g) else { throw context.takeError("GEOSGetExteriorRing_r") }
            // returns -1 on exception
            let holeCount = geos.GEOSGetNumInteriorRings_r(ctx, g)
            guard holeCount != -1 else { throw context.takeError("GEOSGetNumInteriorRings_r") }
            var rings: [[(x: Double, y: Double)]] = []
            rings.reserveCapacity(Int(holeCount) + 1)
            rings.append(try coordinates(ofRing: shell))
            for i in 0..<holeCount {
                // returns NULL on exception; the ring is borrowed from the polygon
                guard let hole = geos.GEOSGetInteriorRingN_r(ctx, g, i) else { throw context.takeError("GEOSGetInteriorRingN_r") }
                rings.append(try coordinates(ofRing: hole))
            }
            result.append(rings)

        case Int32(GEOS_MULTIPOLYGON.rawValue), Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
            // returns -1 on exception
            let count = geos.GEOSGetNumGeometries_r(ctx, g)
            guard count != -1 else { throw context.takeError("GEOSGetNumGeometries_r") }
            for i in 0..<count {
                // returns NULL on exception; the part is borrowed from the collection
                guard let part = geos.GEOSGetGeometryN_r(ctx, g, i) else { throw context.takeError("GEOSGetGeometryN_r") }
                try appendPolygons(of: part, to: &result)
            }

        default:
            // returns NULL on exception; freed with GEOSFree_r
            guard let name = geos.GEOSGeomType_r(ctx, g) else { throw context.takeError("GEOSGeomType_r") }
            throw GeometryInputError.notPolygonal(typeName: context.takeString(name))
        }
    }

    /// Copies the coordinates of a borrowed LinearRing.
    private func coordinates(ofRing ring: OpaquePointer) throws -> [(x: Double, y: Double)] {
        let ctx = context.handle
        context.clearMessages()
        // returns NULL on exception; the sequence is borrowed from the ring
        guard let sequence = geos.GEOSGeom_getCoordSeq_r(ctx, ring) else { throw context.takeError("GEOSGeom_getCoordSeq_r") }
        var size: UInt32 = 0
        // returns 0 on exception, 1 on success
        guard geos.GEOSCoordSeq_getSize_r(ctx, sequence, &size) == 1 else { throw context.takeError("GEOSCoordSeq_getSize_r") }
        var coordinates = [(x: Double, y: Double)](repeating: (0, 0), count: Int(size))
        if size == 0 { return coordinates }
        let copied = coordinates.withUnsafeMutableBufferPointer { pairs in
            pairs.withMemoryRebound(to: Double.self) { doubles in
                // returns 0 on exception, 1 on success; writes XYXY... (no Z, no M)
                geos.GEOSCoordSeq_copyToBuffer_r(ctx, sequence, doubles.baseAddress, 0, 0)
            }
        }
        guard copied == 1 else { throw context.takeError("GEOSCoordSeq_copyToBuffer_r") }
        return coordinates
    }
}
