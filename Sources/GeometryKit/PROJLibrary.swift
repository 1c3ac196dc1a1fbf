import CPROJ

/// libproj, opened on first use (Sources/CPROJ, docs/architecture.md): a process that
/// reprojects nothing never loads it or its dependencies (curl, TLS, sqlite, tiff). Every
/// transformation starts from a ``PROJContext``, whose `init` calls ``load()``; the calls
/// after it go through ``proj``.
public enum PROJLibrary {
    /// The function table, or why the library could not be opened (computed once per process).
    nonisolated(unsafe) static let table: Result<UnsafePointer<CPROJAPI>, PROJError> = {
        var failure: UnsafePointer<CChar>? = nil
        // returns the table, or NULL and a static message in `failure`
        if let t = cproj_load(&failure) { return .success(t) }
        return .failure(.library(failure.map { String(cString: $0) } ?? "cannot load the PROJ library"))
    }()

    /// Opens the library once.
    /// - Throws: `PROJError.library` when libproj is missing or lacks a function we call (the
    ///   message names it; install PROJ, e.g. Debian's `libproj25`).
    public static func load() throws(PROJError) {
        if case .failure(let e) = table { throw e }
    }
}

/// PROJ's functions, under their C names (`proj.proj_context_create()`).
/// - Precondition: ``PROJLibrary/load()`` succeeded (``PROJContext/init()`` calls it first).
let proj: CPROJAPI = {
    guard case .success(let t) = PROJLibrary.table else { preconditionFailure("PROJ used before PROJLibrary.load() succeeded") }
    return t.pointee
}()
