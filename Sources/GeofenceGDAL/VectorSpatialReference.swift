import CGDAL

/// A coordinate reference system as GDAL knows it (`OGRSpatialReferenceH`), with
/// traditional GIS axis order for the data (x = easting or longitude). Owns its handle.
///
/// Not thread-safe: one per thread.
public final class VectorSpatialReference {
    /// The owned handle, released with `OSRDestroySpatialReference` in `deinit`.
    let handle: OGRSpatialReferenceH

    init(owning handle: OGRSpatialReferenceH) { self.handle = handle }

    deinit {
        // returns nothing
        gdal.OSRDestroySpatialReference(handle)
    }

    /// WGS84 longitude/latitude (EPSG:4326, longitude first).
    public static func wgs84() -> VectorSpatialReference {
        // returns a new empty reference we own
        let h = GDALCalls.quiet { gdal.OSRNewSpatialReference(nil)! }
        // returns OGRERR_NONE; EPSG:4326 is always in PROJ's database
        _ = gdal.OSRImportFromEPSG(h, 4326)
        gdal.OSRSetAxisMappingStrategy(h, OAMS_TRADITIONAL_GIS_ORDER)
        return VectorSpatialReference(owning: h)
    }

    /// A CRS from anything `OSRSetFromUserInput` accepts: `EPSG:2154`, WKT, a PROJ string, PROJJSON.
    /// - Throws: ``GDALError`` for a definition GDAL cannot read.
    public init(userInput: String) throws(GDALError) {
        try GDALLibrary.load()
        let h = GDALCalls.quiet { gdal.OSRNewSpatialReference(nil)! }
        let err = GDALCalls.quiet {
            // returns OGRERR_NONE on success
            gdal.OSRSetFromUserInput(h, userInput)
        }
        guard err == OGRERR_NONE else {
            gdal.OSRDestroySpatialReference(h)
            throw GDALCalls.lastError("unknown CRS '\(userInput)'")
        }
        gdal.OSRSetAxisMappingStrategy(h, OAMS_TRADITIONAL_GIS_ORDER)
        handle = h
    }

    /// Whether both describe the same CRS (axis order of geographic CRSs ignored: coordinates
    /// are always read easting/longitude first).
    public func isSame(as other: VectorSpatialReference) -> Bool {
        GDALCalls.withStringList(["IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES", "CRITERION=EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS"]) { opts in
            // returns TRUE when the two are the same under the criterion
            GDALCalls.quiet { gdal.OSRIsSameEx(handle, other.handle, UnsafeRawPointer(opts)?.assumingMemoryBound(to: UnsafePointer<CChar>?.self)) != 0 }
        }
    }

    /// A short label: `EPSG:2154 (RGF93 v1 / Lambert-93)`, or the CRS name alone when it has no authority code.
    public var label: String {
        GDALCalls.quiet {
            // each returns a string owned by the reference, or NULL
            let name = gdal.OSRGetName(handle).map { String(cString: $0) } ?? "unnamed CRS"
            if let auth = gdal.OSRGetAuthorityName(handle, nil), let code = gdal.OSRGetAuthorityCode(handle, nil) {
                return "\(String(cString: auth)):\(String(cString: code)) (\(name))"
            }
            return name
        }
    }

    /// A transformation from this CRS to `target`.
    /// - Throws: ``GDALError`` when no transformation exists.
    public func transformation(to target: VectorSpatialReference) throws(GDALError) -> VectorTransformation {
        let h: OGRCoordinateTransformationH? = GDALCalls.quiet {
            // returns a new transformation we own, or NULL with the reason as the last CPL error
            gdal.OCTNewCoordinateTransformation(handle, target.handle)
        }
        guard let h else { throw GDALCalls.lastError("no transformation from \(label) to \(target.label)") }
        return VectorTransformation(owning: h, source: self, target: target)
    }
}

/// A coordinate transformation between two ``VectorSpatialReference``s (`OCTTransformEx`),
/// in the data axis order of each (traditional GIS order: x = easting or longitude).
public final class VectorTransformation {
    /// The owned handle, released with `OCTDestroyCoordinateTransformation` in `deinit`.
    let handle: OGRCoordinateTransformationH
    /// The source CRS (kept alive with the transformation).
    public let source: VectorSpatialReference
    /// The target CRS.
    public let target: VectorSpatialReference

    init(owning handle: OGRCoordinateTransformationH, source: VectorSpatialReference, target: VectorSpatialReference) {
        self.handle = handle; self.source = source; self.target = target
    }

    deinit {
        // returns nothing
        gdal.OCTDestroyCoordinateTransformation(handle)
    }

    /// Transforms `points` in place. All or nothing: when a point fails, `points` is left as it
    /// was and the error names the first failing index and the position.
    /// - Throws: ``GDALError`` (`point 3 (x, y): ...`) when a point cannot be transformed.
    /// - Complexity: O(n).
    public func transform(_ points: inout [XY]) throws(GDALError) {
        guard !points.isEmpty else { return }
        var xs = points.map(\.x), ys = points.map(\.y)
        var ok = [Int32](repeating: 0, count: points.count)
        let n = Int32(points.count)
        _ = GDALCalls.quiet {
            // returns FALSE when some point failed; ok[i] says which
            gdal.OCTTransformEx(handle, n, &xs, &ys, nil, &ok)
        }
        if let bad = ok.firstIndex(where: { $0 == 0 }) ?? xs.indices.first(where: { !xs[$0].isFinite || !ys[$0].isFinite }) {
            let p = points[bad]
            throw GDALError("point \(bad) (\(p.x), \(p.y)) cannot be transformed from \(source.label) to \(target.label)")
        }
        for i in points.indices { points[i] = XY(x: xs[i], y: ys[i]) }
    }
}
