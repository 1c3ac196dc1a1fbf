import CGEOS

extension Geometry {
    /// Well-Known Text, trimmed ("POINT (1 2)").
    /// - Parameter precision: digits after the decimal point; `nil` writes the shortest
    ///   text that reads back to the same doubles.
    /// - Throws: `GEOSError.library` with GEOS's message when writing fails.
    /// - Complexity: O(n) in the number of coordinates.
    public func wkt(precision: Int? = nil) throws -> String {
        let writer = try context.wktWriterHandle()
        // Returns nothing. The writer is shared by the context, so set the precision on every call
        // (-1: full precision).
        geos.GEOSWKTWriter_setRoundingPrecision_r(context.handle, writer, Int32(clamping: precision ?? -1))
        context.clearMessages()
        // returns NULL on exception; the string must be freed with GEOSFree_r
        guard let text = geos.GEOSWKTWriter_write_r(context.handle, writer, handle) else {
            throw context.takeError("GEOSWKTWriter_write_r")
        }
        return context.takeString(text)
    }

    /// Well-Known Binary (2D, little-endian on this platform).
    /// - Throws: `GEOSError.library` with GEOS's message when writing fails.
    /// - Complexity: O(n) in the number of coordinates.
    public func wkb() throws -> [UInt8] {
        let writer = try context.wkbWriterHandle()
        var size = 0
        context.clearMessages()
        // returns NULL on exception; the buffer must be freed with GEOSFree_r
        guard let bytes = geos.GEOSWKBWriter_write_r(context.handle, writer, handle, &size) else {
            throw context.takeError("GEOSWKBWriter_write_r")
        }
        defer { geos.GEOSFree_r(context.handle, bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// A compact GeoJSON geometry object, by GEOS's `GEOSGeoJSONWriter`.
    /// - Throws: `GEOSError.library` with GEOS's message when writing fails.
    /// - Complexity: O(n) in the number of coordinates.
    public func geoJSON() throws -> String {
        let writer = try context.geoJSONWriterHandle()
        context.clearMessages()
        // returns NULL on exception; the string must be freed with GEOSFree_r. Indent -1: one line.
        guard let text = geos.GEOSGeoJSONWriter_writeGeometry_r(context.handle, writer, handle, -1) else {
            throw context.takeError("GEOSGeoJSONWriter_writeGeometry_r")
        }
        return context.takeString(text)
    }
}
