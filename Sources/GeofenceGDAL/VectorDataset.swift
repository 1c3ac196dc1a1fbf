import CGDAL

/// An OGR vector data source opened read-only (`GDALOpenEx` with `GDAL_OF_VECTOR`): a file,
/// a directory of shapefiles, a `/vsizip/` path, a database connection string; any source a
/// GDAL vector driver recognises. Owns its handle (closed in `deinit`); its layers keep it alive.
///
/// Not thread-safe: use one dataset per thread.
public final class VectorDataset {
    /// The GDAL dataset handle, closed with `GDALClose` in `deinit`.
    let handle: GDALDatasetH
    /// The name it was opened with.
    public let name: String
    /// The short name of the driver that opened it (`GPKG`, `ESRI Shapefile`, `LIBKML`, ...).
    public let driver: String

    /// Opens `name` read-only as a vector source.
    /// - Throws: ``GDALError`` with GDAL's message when no vector driver recognises it or the
    ///   driver fails to open it (e.g. "`x.gpkg' not recognized as a supported file format.").
    /// - Complexity: what the driver needs to open the source (usually its header).
    public init(opening name: String) throws(GDALError) {
        try GDALLibrary.load()
        self.name = name
        let opened: GDALDatasetH? = GDALCalls.quiet { () -> GDALDatasetH? in
            let flags = UInt32(GDAL_OF_VECTOR | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR)
            // returns NULL on failure, with the reason as the last CPL error
            return gdal.GDALOpenEx(name, flags, nil, nil, nil)
        }
        guard let opened else { throw GDALCalls.lastError("not recognised as a vector data source") }
        handle = opened
        // returns the driver owned by GDAL (never freed), or NULL
        if let d = gdal.GDALGetDatasetDriver(opened), let s = gdal.GDALGetDriverShortName(d) {
            driver = String(cString: s)
        } else {
            driver = "unknown"
        }
    }

    deinit {
        // returns nothing; the layers hold a reference to self, so none outlives the handle
        gdal.GDALClose(handle)
    }

    /// Every layer, in the source's order (tables without geometry included: see
    /// ``VectorLayer/hasGeometry``).
    /// - Complexity: O(layers).
    public var layers: [VectorLayer] {
        // returns the count (0 when there are none)
        let n = gdal.GDALDatasetGetLayerCount(handle)
        var out: [VectorLayer] = []
        for i in 0..<n {
            // returns a layer owned by the dataset, or NULL for an index out of range
            if let h = gdal.GDALDatasetGetLayer(handle, i) { out.append(VectorLayer(handle: h, dataset: self)) }
        }
        return out
    }
}
