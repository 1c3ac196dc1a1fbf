import CGEOS

extension GEOSContext {
    // MARK: - Readers

    /// Parses Well-Known Text.
    /// - Throws: `GEOSError.library` with GEOS's parser message for invalid WKT,
    ///   `GeometryInputError.embeddedNUL` when the text contains a NUL.
    /// - Complexity: O(n) in the length of the text.
    public func geometry(wkt: String) throws -> Geometry {
        guard !wkt.utf8.contains(0) else { throw GeometryInputError.embeddedNUL }
        let reader = try wktReaderHandle()
        clearMessages()
        // returns NULL on exception (parse error)
        guard let g = geos.GEOSWKTReader_read_r(handle, reader, wkt) else { throw takeError("GEOSWKTReader_read_r") }
        return Geometry(owning: g, context: self)
    }

    /// Parses Well-Known Binary (ISO or extended, either byte order).
    /// - Throws: `GEOSError.library` with GEOS's message for truncated or malformed WKB.
    /// - Complexity: O(n) in the number of bytes.
    public func geometry(wkb: [UInt8]) throws -> Geometry {
        let reader = try wkbReaderHandle()
        clearMessages()
        let g = wkb.withUnsafeBufferPointer { bytes in
            // returns NULL on exception (truncated or malformed input)
            geos.GEOSWKBReader_read_r(handle, reader, bytes.baseAddress, bytes.count)
        }
        guard let g else { throw takeError("GEOSWKBReader_read_r") }
        return Geometry(owning: g, context: self)
    }

    /// Parses a GeoJSON geometry (a Feature gives its geometry, a FeatureCollection a
    /// GeometryCollection) with GEOS's `GEOSGeoJSONReader`.
    /// - Throws: `GEOSError.library` with GEOS's message for malformed JSON or GeoJSON,
    ///   `GeometryInputError.embeddedNUL` when the text contains a NUL.
    /// - Complexity: O(n) in the length of the text.
    public func geometry(geoJSON: String) throws -> Geometry {
        guard !geoJSON.utf8.contains(0) else { throw GeometryInputError.embeddedNUL }
        let reader = try geoJSONReaderHandle()
        clearMessages()
        // returns NULL on exception (malformed JSON or GeoJSON)
        guard let g = geos.GEOSGeoJSONReader_readGeometry_r(handle, reader, geoJSON) else {
            throw takeError("GEOSGeoJSONReader_readGeometry_r")
        }
        return Geometry(owning: g, context: self)
    }

    // MARK: - Builders

    /// A point at (`x`, `y`) = (lon, lat).
    /// - Throws: `GEOSError.library` with GEOS's message when GEOS cannot make the point.
    /// - Complexity: O(1).
    public func point(x: Double, y: Double) throws -> Geometry {
        clearMessages()
        // returns NULL on exception
        guard let g = geos.GEOSGeom_createPointFromXY_r(handle, x, y) else { throw takeError("GEOSGeom_createPointFromXY_r") }
        return Geometry(owning: g, context: self)
    }

    /// A polygon from rings of (x, y) = (lon, lat); the first ring is the shell, the rest
    /// are holes. Rings need not form a valid polygon (see `Geometry.isValid()`), but each
    /// must be closed with 0 or at least 4 points, else GEOS's message is thrown, e.g.
    /// `"IllegalArgumentException: Points of LinearRing do not form a closed linestring"`, or,
    /// for a closed ring of 3 points, `"Too few points in geometry component[0 0]"`.
    /// No rings gives an empty polygon.
    /// - Throws: `GEOSError.library` with GEOS's message for an unclosed ring or one of 1 to
    ///   3 points, `GeometryInputError.tooLarge` past `UInt32.max` rings or points.
    /// - Complexity: O(n) in the number of coordinates.
    public func polygon(rings: [[(x: Double, y: Double)]]) throws -> Geometry {
        clearMessages()
        return Geometry(owning: try makePolygonHandle(rings: rings), context: self)
    }

    /// A multipolygon: polygons → rings → (x, y) coordinates, as in `polygon(rings:)`.
    /// - Throws: as `polygon(rings:)` for any part (nothing is left allocated then), or
    ///   `GeometryInputError.tooLarge` past `UInt32.max` parts.
    /// - Complexity: O(n) in the number of coordinates.
    public func multiPolygon(_ polygons: [[[(x: Double, y: Double)]]]) throws -> Geometry {
        guard polygons.count <= Int(UInt32.max) else { throw GeometryInputError.tooLarge(count: polygons.count) }
        clearMessages()
        var parts: [OpaquePointer?] = []
        parts.reserveCapacity(polygons.count)
        do {
            for rings in polygons { parts.append(try makePolygonHandle(rings: rings)) }
        } catch {
            // None of these polygons was handed over to GEOS: they are still ours to destroy.
            for part in parts { geos.GEOSGeom_destroy_r(handle, part) }
            throw error
        }
        // GEOSGeom_createCollection_r takes ownership of every element, also when it fails:
        // it moves them into unique_ptrs before building, so GEOS frees them on an exception.
        // The array itself stays ours. Returns NULL on exception.
        let collection = parts.withUnsafeMutableBufferPointer { buffer in
            geos.GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOLYGON.rawValue), buffer.baseAddress, UInt32(buffer.count))
        }
        guard let collection else { throw takeError("GEOSGeom_createCollection_r") }
        return Geometry(owning: collection, context: self)
    }

    // MARK: - Owned handles (internal)

    /// A new, owned polygon handle built from rings; on failure nothing is left allocated.
    func makePolygonHandle(rings: [[(x: Double, y: Double)]]) throws -> OpaquePointer {
        guard let shellCoordinates = rings.first else {
            // returns NULL on exception
            guard let empty = geos.GEOSGeom_createEmptyPolygon_r(handle) else { throw takeError("GEOSGeom_createEmptyPolygon_r") }
            return empty
        }
        guard rings.count <= Int(UInt32.max) else { throw GeometryInputError.tooLarge(count: rings.count) }
        let shell = try makeLinearRingHandle(shellCoordinates)
        var holes: [OpaquePointer] = []
        holes.reserveCapacity(rings.count - 1)
        do {
            for ring in rings.dropFirst() { holes.append(try makeLinearRingHandle(ring)) }
        } catch {
            // The rings made so far were not handed over to anything: destroy them here.
            geos.GEOSGeom_destroy_r(handle, shell)
            for hole in holes { geos.GEOSGeom_destroy_r(handle, hole) }
            throw error
        }
        return try makePolygonHandle(consumingShell: shell, holes: holes)
    }

    /// Builds a polygon from owned ring handles. **Consumes** `shell` and every hole,
    /// whether it succeeds or throws: the caller must not touch them afterwards.
    func makePolygonHandle(consumingShell shell: OpaquePointer, holes: [OpaquePointer]) throws -> OpaquePointer {
        var holeArray: [OpaquePointer?] = holes
        // GEOSGeom_createPolygon_r takes ownership of the shell and the holes (not of the array),
        // and keeps that contract on failure: non-ring input is deleted before it throws, and
        // valid rings are moved into unique_ptrs first (GEOS ticket #1111). So on NULL there is
        // nothing left for us to free. Returns NULL on exception.
        let polygon = holeArray.withUnsafeMutableBufferPointer { buffer in
            geos.GEOSGeom_createPolygon_r(handle, shell, buffer.baseAddress, UInt32(buffer.count))
        }
        guard let polygon else { throw takeError("GEOSGeom_createPolygon_r") }
        return polygon
    }

    /// A new, owned linear ring handle; on failure nothing is left allocated.
    func makeLinearRingHandle(_ coordinates: [(x: Double, y: Double)]) throws -> OpaquePointer {
        guard coordinates.count <= Int(UInt32.max) else { throw GeometryInputError.tooLarge(count: coordinates.count) }
        let sequence: OpaquePointer? = coordinates.withUnsafeBufferPointer { pairs in
            // (x: Double, y: Double) has the layout of two Doubles (stride 16), so the array is an
            // XYXY... buffer of 2n Doubles.
            pairs.withMemoryRebound(to: Double.self) { doubles in
                if let base = doubles.baseAddress {
                    // returns NULL on exception; copies the buffer
                    return geos.GEOSCoordSeq_copyFromBuffer_r(handle, base, UInt32(pairs.count), 0, 0)
                } else {
                    // returns NULL on exception
                    return geos.GEOSCoordSeq_create_r(handle, 0, 2)
                }
            }
        }
        guard let sequence else { throw takeError("GEOSCoordSeq_copyFromBuffer_r") }
        // GEOSGeom_createLinearRing_r takes ownership of the sequence, also when it fails: GEOS
        // wraps it in a unique_ptr before the ring validates it (closed, 0 or >= 4 points), so an
        // unclosed ring's sequence is freed by GEOS. Returns NULL on exception.
        guard let ring = geos.GEOSGeom_createLinearRing_r(handle, sequence) else {
            throw takeError("GEOSGeom_createLinearRing_r")
        }
        // GEOS 3.11 rejects 1 or 2 points at construction but accepts a closed ring of 3
        // (A, B, A), leaving it to validation. A ring needs 4: reject it here with GEOS's own
        // validation message ("Too few points in geometry component[x y]").
        if (1..<4).contains(coordinates.count) {
            // returns NULL on exception, else the reason; freed with GEOSFree_r
            let reason = geos.GEOSisValidReason_r(handle, ring)
            // Returns nothing. The ring was not handed over to anything: it is ours to destroy.
            geos.GEOSGeom_destroy_r(handle, ring)
            guard let reason else { throw takeError("GEOSisValidReason_r") }
            throw GEOSError.library(takeString(reason))
        }
        return ring
    }
}
