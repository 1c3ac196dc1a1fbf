import CGEOS

/// A GEOS geometry with one owner: this object. `deinit` destroys the handle.
///
/// Keeps its `GEOSContext` alive and, like it, belongs to one thread (not `Sendable`).
/// Coordinates are (x, y) = (lon, lat) for geographic data; all measures here are
/// planar, in coordinate units.
public final class Geometry {
    /// The context that made this geometry; every call on it goes through this context.
    public let context: GEOSContext
    /// The owned handle, destroyed in `deinit`.
    let handle: OpaquePointer

    /// Takes ownership of `handle`, which must have been made by `context`.
    init(owning handle: OpaquePointer, context: GEOSContext) {
        self.handle = handle
        self.context = context
    }

    deinit {
        // Returns nothing. The context is still alive: it is a stored property of self.
        geos.GEOSGeom_destroy_r(context.handle, handle)
    }

    /// Throws unless `other` comes from the same context (contexts are per thread).
    @inline(__always)
    func requireSameContext(_ other: Geometry) throws {
        guard other.context === context else { throw GeometryInputError.differentContexts }
    }

    // MARK: - Type

    /// GEOS's type name: "Point", "Polygon", "MultiPolygon", "GeometryCollection", ...
    /// - Throws: `GEOSError.library` with GEOS's message.
    /// - Complexity: O(1).
    public var typeName: String {
        get throws {
            context.clearMessages()
            // returns NULL on exception; the string must be freed with GEOSFree_r
            guard let name = geos.GEOSGeomType_r(context.handle, handle) else { throw context.takeError("GEOSGeomType_r") }
            return context.takeString(name)
        }
    }

    /// GEOS's numeric type (`GEOS_POINT`, `GEOS_POLYGON`, ...).
    /// - Complexity: O(1).
    var typeID: Int32 {
        get throws {
            context.clearMessages()
            // returns -1 on exception
            let id = geos.GEOSGeomTypeId_r(context.handle, handle)
            guard id != -1 else { throw context.takeError("GEOSGeomTypeId_r") }
            return id
        }
    }

    /// Whether the geometry has no points.
    /// - Throws: `GEOSError.library` with GEOS's message.
    /// - Complexity: O(1) for simple types, O(parts) for collections.
    public var isEmpty: Bool {
        get throws {
            context.clearMessages()
            // returns 2 on exception, 1 on true, 0 on false
            let r = geos.GEOSisEmpty_r(context.handle, handle)
            guard r != 2 else { throw context.takeError("GEOSisEmpty_r") }
            return r == 1
        }
    }

    /// A deep copy, owned by the new object.
    /// - Throws: `GEOSError.library` with GEOS's message when the copy fails.
    /// - Complexity: O(n) in the number of coordinates.
    public func clone() throws -> Geometry {
        Geometry(owning: try cloneHandle(), context: context)
    }

    /// A deep copy as a raw owned handle: the caller must destroy it or hand it over to GEOS.
    func cloneHandle() throws -> OpaquePointer {
        context.clearMessages()
        // returns NULL on exception
        guard let copy = geos.GEOSGeom_clone_r(context.handle, handle) else { throw context.takeError("GEOSGeom_clone_r") }
        return copy
    }

    // MARK: - Measures

    /// The envelope. Throws `GeometryInputError.emptyGeometry` for an empty geometry.
    /// - Throws: `GeometryInputError.emptyGeometry` for an empty geometry, `GEOSError.library` with
    ///   GEOS's message.
    /// - Complexity: O(1) (GEOS caches the envelope).
    public func bounds() throws -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        guard try !isEmpty else { throw GeometryInputError.emptyGeometry(operation: "bounds") }
        var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
        context.clearMessages()
        // returns 0 on exception (or for an empty geometry, excluded above), 1 on success
        guard geos.GEOSGeom_getExtent_r(context.handle, handle, &minX, &minY, &maxX, &maxY) == 1 else {
            throw context.takeError("GEOSGeom_getExtent_r")
        }
        return (minX, minY, maxX, maxY)
    }

    /// Planar area in squared coordinate units.
    /// - Throws: `GEOSError.library` with GEOS's message.
    /// - Complexity: O(n) in the number of coordinates.
    public func area() throws -> Double {
        var value = 0.0
        context.clearMessages()
        // returns 0 on exception, 1 on success
        guard geos.GEOSArea_r(context.handle, handle, &value) == 1 else { throw context.takeError("GEOSArea_r") }
        return value
    }

    /// The smallest circle (planar) enclosing the geometry, by `GEOSMinimumBoundingCircle_r`.
    /// Throws `GeometryInputError.emptyGeometry` for an empty geometry.
    /// - Throws: `GeometryInputError.emptyGeometry` for an empty geometry, `GEOSError.library` with
    ///   GEOS's message.
    /// - Complexity: O(n) expected in the number of points of the convex hull.
    public func minimumBoundingCircle() throws -> (centerX: Double, centerY: Double, radius: Double) {
        guard try !isEmpty else { throw GeometryInputError.emptyGeometry(operation: "minimumBoundingCircle") }
        var radius = 0.0
        var center: OpaquePointer?
        context.clearMessages()
        // returns NULL on exception; on success both the returned circle polygon and *center
        // are new geometries we own
        guard let circle = geos.GEOSMinimumBoundingCircle_r(context.handle, handle, &radius, &center) else {
            throw context.takeError("GEOSMinimumBoundingCircle_r")
        }
        // Returns nothing; we only need the centre and radius.
        geos.GEOSGeom_destroy_r(context.handle, circle)
        guard let center else { throw GEOSError.library("GEOSMinimumBoundingCircle_r returned no centre") }
        let centerPoint = Geometry(owning: center, context: context)
        var x = 0.0, y = 0.0
        // returns 0 on exception (e.g. not a point), 1 on success
        guard geos.GEOSGeomGetX_r(context.handle, centerPoint.handle, &x) == 1 else { throw context.takeError("GEOSGeomGetX_r") }
        // returns 0 on exception, 1 on success
        guard geos.GEOSGeomGetY_r(context.handle, centerPoint.handle, &y) == 1 else { throw context.takeError("GEOSGeomGetY_r") }
        return (x, y, radius)
    }

    /// Planar distance to `other` (0 when they intersect).
    /// - Throws: `GeometryInputError.differentContexts` when `other` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(n·m) worst case for the two coordinate counts (GEOS indexes large inputs).
    public func distance(to other: Geometry) throws -> Double {
        try requireSameContext(other)
        var value = 0.0
        context.clearMessages()
        // returns 0 on exception, 1 on success
        guard geos.GEOSDistance_r(context.handle, handle, other.handle, &value) == 1 else {
            throw context.takeError("GEOSDistance_r")
        }
        return value
    }

    // MARK: - Predicates

    /// Whether every point of `other` lies in this geometry, boundary included.
    /// A point on the edge is covered (but not contained).
    /// - Throws: `GeometryInputError.differentContexts` when `other` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(n·m) worst case; use `prepared()` for repeated queries.
    public func covers(_ other: Geometry) throws -> Bool {
        try requireSameContext(other)
        context.clearMessages()
        // returns 2 on exception, 1 on true, 0 on false
        let r = geos.GEOSCovers_r(context.handle, handle, other.handle)
        guard r != 2 else { throw context.takeError("GEOSCovers_r") }
        return r == 1
    }

    /// Whether `other` lies in this geometry with at least one point in its interior
    /// (DE-9IM contains: a point on the boundary is not contained).
    /// - Throws: `GeometryInputError.differentContexts` when `other` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(n·m) worst case; use `prepared()` for repeated queries.
    public func contains(_ other: Geometry) throws -> Bool {
        try requireSameContext(other)
        context.clearMessages()
        // returns 2 on exception, 1 on true, 0 on false
        let r = geos.GEOSContains_r(context.handle, handle, other.handle)
        guard r != 2 else { throw context.takeError("GEOSContains_r") }
        return r == 1
    }

    /// Whether the geometries share at least one point.
    /// - Throws: `GeometryInputError.differentContexts` when `other` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(n·m) worst case.
    public func intersects(_ other: Geometry) throws -> Bool {
        try requireSameContext(other)
        context.clearMessages()
        // returns 2 on exception, 1 on true, 0 on false
        let r = geos.GEOSIntersects_r(context.handle, handle, other.handle)
        guard r != 2 else { throw context.takeError("GEOSIntersects_r") }
        return r == 1
    }

    /// A prepared (indexed) version for repeated predicates against this geometry.
    /// - Throws: `GEOSError.library` with GEOS's message.
    /// - Complexity: O(1) here; GEOS builds its indexes lazily on first use, O(n log n).
    public func prepared() throws -> PreparedGeometry {
        context.clearMessages()
        // returns NULL on exception; the prepared geometry references (does not copy) `handle`,
        // so PreparedGeometry keeps this Geometry alive
        guard let p = geos.GEOSPrepare_r(context.handle, handle) else { throw context.takeError("GEOSPrepare_r") }
        return PreparedGeometry(owning: p, of: self)
    }
}

/// Not Sendable: one per thread (GEOS and PROJ handles are not thread-safe).
@available(*, unavailable)
extension Geometry: Sendable {}
