import CGDAL

/// libgdal, opened on first use (Sources/CGDAL, docs/architecture.md#gdal-geos-and-proj-opened-on-first-use): commands that read
/// no GDAL format never load it or its dependencies, so they start in a few milliseconds. Every
/// entry point of this module (opening a dataset, reading a CRS, creating a writer) calls
/// ``load()`` first; the calls after it go through ``gdal``.
public enum GDALLibrary {
    /// The function table, or why the library could not be opened (computed once per process).
    nonisolated(unsafe) static let table: Result<UnsafePointer<CGDALAPI>, GDALError> = {
        var failure: UnsafePointer<CChar>? = nil
        // returns the table, or NULL and a static message in `failure`
        if let t = cgdal_load(&failure) { return .success(t) }
        return .failure(GDALError(failure.map { String(cString: $0) } ?? "cannot load the GDAL library"))
    }()

    /// Opens the library once.
    /// - Throws: ``GDALError`` when libgdal is missing or lacks a function we call (the
    ///   message names it; install libgdal, e.g. Debian's `libgdal32`).
    public static func load() throws(GDALError) {
        if case .failure(let e) = table { throw e }
    }
}

/// GDAL's functions, under their C names (`gdal.GDALOpenEx(...)`).
/// - Precondition: ``GDALLibrary/load()`` succeeded (every entry point calls it first).
let gdal: CGDALAPI = {
    guard case .success(let t) = GDALLibrary.table else { preconditionFailure("GDAL used before GDALLibrary.load() succeeded") }
    return t.pointee
}()
