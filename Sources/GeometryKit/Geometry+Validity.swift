import CGEOS

extension Geometry {
    /// Whether the geometry is valid in the OGC sense (rings closed, simple, not self-intersecting,
    /// holes inside shells, ...).
    /// - Throws: `GEOSError.library` with GEOS's message when the check itself fails.
    /// - Complexity: O(n log n) in the number of coordinates.
    public func isValid() throws -> Bool {
        context.clearMessages()
        // returns 2 on exception, 1 on true, 0 on false
        let r = geos.GEOSisValid_r(context.handle, handle)
        guard r != 2 else { throw context.takeError("GEOSisValid_r") }
        return r == 1
    }

    /// `nil` when valid, else GEOS's reason with its location, e.g. `"Self-intersection[1 1]"`.
    /// - Throws: `GEOSError.library` with GEOS's message when the check itself fails.
    /// - Complexity: O(n log n) in the number of coordinates.
    public func validityReason() throws -> String? {
        context.clearMessages()
        // returns NULL on exception, else "Valid Geometry" or the reason; freed with GEOSFree_r
        guard let text = geos.GEOSisValidReason_r(context.handle, handle) else {
            throw context.takeError("GEOSisValidReason_r")
        }
        let reason = context.takeString(text)
        return reason == "Valid Geometry" ? nil : reason
    }

    /// A valid geometry covering the same points, by `GEOSMakeValid_r` (the "linework"
    /// method: a self-intersecting bowtie becomes a MultiPolygon of two triangles).
    /// - Throws: `GEOSError.library` with GEOS's message when the check itself fails.
    /// - Complexity: O(n log n) in the number of coordinates.
    public func makeValid() throws -> Geometry {
        context.clearMessages()
        // returns NULL on exception
        guard let repaired = geos.GEOSMakeValid_r(context.handle, handle) else { throw context.takeError("GEOSMakeValid_r") }
        return Geometry(owning: repaired, context: context)
    }
}
