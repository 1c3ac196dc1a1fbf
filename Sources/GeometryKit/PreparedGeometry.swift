import CGEOS

/// A GEOS prepared geometry: the same predicates as `Geometry`, with indexes built once
/// and reused across calls. Keeps its `Geometry` alive (GEOS references, not copies, it).
/// One thread, like its context.
public final class PreparedGeometry {
    /// The prepared geometry.
    public let geometry: Geometry
    /// The owned handle, destroyed in `deinit`.
    let handle: OpaquePointer
    /// The envelope, for a cheap rejection before asking GEOS about a point; nil when empty.
    private let envelope: (minX: Double, minY: Double, maxX: Double, maxY: Double)?

    init(owning handle: OpaquePointer, of geometry: Geometry) {
        self.handle = handle
        self.geometry = geometry
        self.envelope = try? geometry.bounds()
    }

    deinit {
        // Returns nothing. The geometry (and its context) are still alive: stored properties of self.
        geos.GEOSPreparedGeom_destroy_r(geometry.context.handle, handle)
    }

    private var context: GEOSContext { geometry.context }

    // MARK: - Geometries

    /// Whether every point of `g` lies in the prepared geometry, boundary included.
    /// - Throws: `GeometryInputError.differentContexts` when `g` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(log n + m) typically, after the first call builds the index.
    public func covers(_ g: Geometry) throws -> Bool {
        try geometry.requireSameContext(g)
        context.clearMessages()
        // returns 2 on exception, 1 on true, 0 on false
        let r = geos.GEOSPreparedCovers_r(context.handle, handle, g.handle)
        guard r != 2 else { throw context.takeError("GEOSPreparedCovers_r") }
        return r == 1
    }

    /// Whether `g` lies in the prepared geometry and touches its interior (boundary points alone
    /// are not contained).
    /// - Throws: `GeometryInputError.differentContexts` when `g` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(log n + m) typically, after the first call builds the index.
    public func contains(_ g: Geometry) throws -> Bool {
        try geometry.requireSameContext(g)
        context.clearMessages()
        // returns 2 on exception, 1 on true, 0 on false
        let r = geos.GEOSPreparedContains_r(context.handle, handle, g.handle)
        guard r != 2 else { throw context.takeError("GEOSPreparedContains_r") }
        return r == 1
    }

    /// Whether the geometries share at least one point.
    /// - Throws: `GeometryInputError.differentContexts` when `g` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(log n + m) typically, after the first call builds the index.
    public func intersects(_ g: Geometry) throws -> Bool {
        try geometry.requireSameContext(g)
        context.clearMessages()
        // returns 2 on exception, 1 on true, 0 on false
        let r = geos.GEOSPreparedIntersects_r(context.handle, handle, g.handle)
        guard r != 2 else { throw context.takeError("GEOSPreparedIntersects_r") }
        return r == 1
    }

    /// Planar distance to `g` (0 when they intersect), using the prepared index.
    /// - Throws: `GeometryInputError.differentContexts` when `g` comes from another context,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(m log n) typically, after the first call builds the index.
    public func distance(to g: Geometry) throws -> Double {
        try geometry.requireSameContext(g)
        var value = 0.0
        context.clearMessages()
        // returns 0 on exception, 1 on success
        guard geos.GEOSPreparedDistance_r(context.handle, handle, g.handle, &value) == 1 else {
            throw context.takeError("GEOSPreparedDistance_r")
        }
        return value
    }

    // MARK: - Points

    /// Whether the point (`x`, `y`) lies in the prepared geometry, boundary included.
    ///
    /// GEOS 3.11 has no `GEOSPreparedContainsXY_r`, so a temporary point is made and
    /// destroyed per call. It is not cached and moved: GEOS offers no safe way to change a
    /// point's coordinates (writing through `GEOSGeom_getCoordSeq_r`'s const sequence would
    /// leave the point's cached envelope stale). Points outside the envelope are rejected
    /// in Swift without calling GEOS.
    /// - Throws: `GeometryInputError.nonFiniteCoordinate` for NaN or infinite input,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(log n) typically, after the first call builds the index.
    public func covers(x: Double, y: Double) throws -> Bool {
        guard try mayTouch(x: x, y: y) else { return false }
        return try withPoint(x: x, y: y) { try covers($0) }
    }

    /// Whether the point (`x`, `y`) lies in the interior of the prepared geometry (a point on
    /// the boundary is not contained). See `covers(x:y:)` for the temporary point.
    /// - Throws: `GeometryInputError.nonFiniteCoordinate` for NaN or infinite input,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(log n) typically, after the first call builds the index.
    public func contains(x: Double, y: Double) throws -> Bool {
        guard try mayTouch(x: x, y: y) else { return false }
        return try withPoint(x: x, y: y) { try contains($0) }
    }

    /// Planar distance from the point (`x`, `y`) to the prepared geometry (0 inside).
    /// - Throws: `GeometryInputError.nonFiniteCoordinate` for NaN or infinite input,
    ///   `GEOSError.library` with GEOS's message.
    /// - Complexity: O(log n) typically, after the first call builds the index.
    public func distance(x: Double, y: Double) throws -> Double {
        guard x.isFinite, y.isFinite else { throw GeometryInputError.nonFiniteCoordinate(x: x, y: y) }
        return try withPoint(x: x, y: y) { try distance(to: $0) }
    }

    /// False when the point is certainly outside (outside the envelope, or the geometry is empty).
    private func mayTouch(x: Double, y: Double) throws -> Bool {
        guard x.isFinite, y.isFinite else { throw GeometryInputError.nonFiniteCoordinate(x: x, y: y) }
        guard let e = envelope else { return false }
        return x >= e.minX && x <= e.maxX && y >= e.minY && y <= e.maxY
    }

    private func withPoint<R>(x: Double, y: Double, _ body: (Geometry) throws -> R) throws -> R {
        // The Geometry owns the point and destroys it when this scope ends.
        let point = try context.point(x: x, y: y)
        return try body(point)
    }
}

/// Not Sendable: one per thread (GEOS and PROJ handles are not thread-safe).
@available(*, unavailable)
extension PreparedGeometry: Sendable {}
