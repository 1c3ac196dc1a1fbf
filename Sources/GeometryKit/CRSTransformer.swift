import CPROJ

/// Transforms coordinates between two CRSs with PROJ (`proj_create_crs_to_crs`),
/// normalized for visualization so that axis order is always x = longitude / easting,
/// y = latitude / northing, whatever the CRS definitions say.
///
/// Keeps a strong reference to its `PROJContext` (PROJ objects must not outlive their
/// context). One thread, like the context.
public final class CRSTransformer {
    /// The context every call goes through.
    public let context: PROJContext
    /// The source and target CRS as given, e.g. "EPSG:2154" and "EPSG:4326".
    public let source: String
    /// The target CRS as given; "EPSG:4326" (WGS84, longitude first once normalized) by default.
    public let target: String
    /// The owned, normalized operation, released with `proj_destroy` in `deinit`.
    let handle: OpaquePointer

    /// - Parameters:
    ///   - source: anything `proj_create` accepts: "EPSG:2154", a PROJ string, WKT, PROJJSON.
    ///   - target: the output CRS, WGS84 longitude/latitude by default.
    /// - Throws: `PROJError.library` with PROJ's own message for an unknown CRS or when no
    ///   operation exists (e.g. "proj_create: crs not found").
    public init(from source: String, to target: String = "EPSG:4326", context: PROJContext) throws {
        self.context = context
        self.source = source
        self.target = target
        context.clearMessages()
        // returns NULL when a CRS is unknown or no operation between them exists
        guard let raw = proj.proj_create_crs_to_crs(context.handle, source, target, nil) else {
            throw context.takeError("proj_create_crs_to_crs", errno: proj.proj_context_errno(context.handle))
        }
        // returns NULL on failure; on success a new object, `raw` stays ours either way
        let normalized = proj.proj_normalize_for_visualization(context.handle, raw)
        // Returns NULL. `raw` is no longer needed: `normalized` does not reference it.
        _ = proj.proj_destroy(raw)
        guard let normalized else {
            throw context.takeError("proj_normalize_for_visualization", errno: proj.proj_context_errno(context.handle))
        }
        self.handle = normalized
    }

    deinit {
        // Returns NULL. The context is still alive: it is a stored property of self.
        _ = proj.proj_destroy(handle)
    }

    /// Transforms one point.
    /// - Throws: `PROJError.library` with PROJ's message when the point cannot be
    ///   transformed (e.g. "webmerc: Invalid latitude; Invalid coordinate"),
    ///   `GeometryInputError.nonFiniteCoordinate` for NaN or infinite input.
    /// - Complexity: O(1).
    public func transform(x: Double, y: Double) throws -> (x: Double, y: Double) {
        // PROJ passes NaN through without an error; say what is wrong instead.
        guard x.isFinite, y.isFinite else { throw GeometryInputError.nonFiniteCoordinate(x: x, y: y) }
        context.clearMessages()
        // returns the previous errno of this object; cannot fail
        _ = proj.proj_errno_reset(handle)
        // Returns the transformed coordinate, HUGE_VAL in every component on failure (with
        // proj_errno set). t = HUGE_VAL means "no time", as proj_trans_generic assumes.
        let out = proj.proj_trans(handle, PJ_FWD, proj.proj_coord(x, y, 0, .infinity))
        // returns 0 when the last call on this object succeeded
        let errno = proj.proj_errno(handle)
        guard errno == 0, out.xy.x.isFinite, out.xy.y.isFinite else {
            throw context.takeError("proj_trans", errno: errno)
        }
        return (out.xy.x, out.xy.y)
    }

    /// Transforms points in place with one `proj_trans_generic` call. All or nothing: when
    /// any point fails, `points` is left unchanged and the error names the first failing index
    /// ("point 1: webmerc: Invalid latitude; Invalid coordinate").
    /// - Throws: `GeometryInputError.nonFiniteCoordinate` for a NaN or infinite coordinate
    ///   (before PROJ is called), `PROJError.library` ("point i: ...") when PROJ fails on a point.
    /// - Complexity: O(n).
    public func transform(_ points: inout [(x: Double, y: Double)]) throws {
        guard !points.isEmpty else { return }
        if let bad = points.first(where: { !$0.x.isFinite || !$0.y.isFinite }) {
            throw GeometryInputError.nonFiniteCoordinate(x: bad.x, y: bad.y)
        }
        var work = points
        let count = work.count
        let stride = MemoryLayout<(x: Double, y: Double)>.stride
        context.clearMessages()
        // returns the previous errno of this object; cannot fail
        _ = proj.proj_errno_reset(handle)
        let processed = work.withUnsafeMutableBufferPointer { pairs in
            // (x: Double, y: Double) has the layout of two Doubles: x at offset 0, y at offset 8.
            pairs.withMemoryRebound(to: Double.self) { doubles -> Int in
                let base = doubles.baseAddress!
                // Returns the number of points processed; a point that fails becomes HUGE_VAL and
                // sets proj_errno. z and t are absent (PROJ uses 0 and HUGE_VAL).
                return proj.proj_trans_generic(handle, PJ_FWD,
                                          base, stride, count,
                                          base + 1, stride, count,
                                          nil, 0, 0,
                                          nil, 0, 0)
            }
        }
        // returns 0 when every point succeeded
        let errno = proj.proj_errno(handle)
        let firstBad = work.firstIndex { !$0.x.isFinite || !$0.y.isFinite }
        guard processed == count, errno == 0, firstBad == nil else {
            let index = firstBad ?? min(processed, count - 1)
            let error = context.takeError("proj_trans_generic", errno: errno)
            throw PROJError.library("point \(index): \(error.message)")
        }
        points = work
    }
}

/// Not Sendable: one per thread (GEOS and PROJ handles are not thread-safe).
@available(*, unavailable)
extension CRSTransformer: Sendable {}
