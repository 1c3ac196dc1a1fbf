import CGEOS

/// libgeos_c, opened on first use (Sources/CGEOS, docs/architecture.md): a process that builds
/// no geometry (evaluating a compiled file or circle fences) never loads it. Every geometry
/// starts from a ``GEOSContext``, whose `init` calls ``load()``; the calls after it go
/// through ``geos``.
public enum GEOSLibrary {
    /// The function table, or why the library could not be opened (computed once per process).
    nonisolated(unsafe) static let table: Result<UnsafePointer<CGEOSAPI>, GEOSError> = {
        var failure: UnsafePointer<CChar>? = nil
        // returns the table, or NULL and a static message in `failure`
        if let t = cgeos_load(&failure) { return .success(t) }
        return .failure(.library(failure.map { String(cString: $0) } ?? "cannot load the GEOS library"))
    }()

    /// Opens the library once.
    /// - Throws: `GEOSError.library` when libgeos_c is missing or lacks a function we call (the
    ///   message names it; install GEOS's C library, e.g. Debian's `libgeos-c1v5`).
    public static func load() throws(GEOSError) {
        if case .failure(let e) = table { throw e }
    }
}

/// GEOS's functions, under their C names (`geos.GEOS_init_r()`).
/// - Precondition: ``GEOSLibrary/load()`` succeeded (``GEOSContext/init()`` calls it first).
let geos: CGEOSAPI = {
    guard case .success(let t) = GEOSLibrary.table else { preconditionFailure("GEOS used before GEOSLibrary.load() succeeded") }
    return t.pointee
}()
