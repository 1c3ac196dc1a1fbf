import CGEOS

/// A GEOS context handle (`GEOSContextHandle_t`) with its message buffer and cached
/// readers and writers.
///
/// One per thread: GEOS contexts are not thread-safe, so this class is deliberately
/// not `Sendable`. Every `Geometry` made here keeps its context alive.
///
/// GEOS reports failures through the handlers installed in `init`; they append to
/// `errorMessages` / `noticeMessages`. Since the context is long-lived, every
/// operation calls `clearMessages()` before its C call, so an error always carries
/// the messages of that call only.
public final class GEOSContext {
    /// The owned context handle, released with `GEOS_finish_r` in `deinit`.
    let handle: GEOSContextHandle_t

    /// Messages GEOS sent to the error handler since the last `clearMessages()`.
    private(set) var errorMessages: [String] = []
    /// Messages GEOS sent to the notice handler since the last `clearMessages()`.
    private(set) var noticeMessages: [String] = []

    // Readers and writers, created on first use, owned here, destroyed in deinit.
    private var wktReader: OpaquePointer?
    private var wktWriter: OpaquePointer?
    private var wkbReader: OpaquePointer?
    private var wkbWriter: OpaquePointer?
    private var geoJSONReader: OpaquePointer?
    private var geoJSONWriter: OpaquePointer?

    /// A new GEOS context with its error and notice handlers installed; opens libgeos_c on
    /// the first call in the process (``GEOSLibrary``).
    /// - Throws: `GEOSError.library` when libgeos_c cannot be loaded (the message names it) or
    ///   GEOS cannot allocate a context.
    public init() throws {
        try GEOSLibrary.load()
        // returns NULL when the context cannot be allocated
        guard let handle = geos.GEOS_init_r() else {
            throw GEOSError.library("GEOS_init_r could not create a context")
        }
        self.handle = handle
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Returns the previous handler; cannot fail. GEOS formats the message itself before
        // calling a `_r` message handler, so `message` is final text, not a printf format.
        // The context is unretained: it outlives every call GEOS makes on its handle.
        _ = geos.GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            Unmanaged<GEOSContext>.fromOpaque(userData).takeUnretainedValue()
                .errorMessages.append(String(cString: message))
        }, me)
        // Returns the previous handler; cannot fail.
        _ = geos.GEOSContext_setNoticeMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            Unmanaged<GEOSContext>.fromOpaque(userData).takeUnretainedValue()
                .noticeMessages.append(String(cString: message))
        }, me)
    }

    deinit {
        // The *_destroy_r functions return nothing and accept only what their create made.
        if let wktReader { geos.GEOSWKTReader_destroy_r(handle, wktReader) }
        if let wktWriter { geos.GEOSWKTWriter_destroy_r(handle, wktWriter) }
        if let wkbReader { geos.GEOSWKBReader_destroy_r(handle, wkbReader) }
        if let wkbWriter { geos.GEOSWKBWriter_destroy_r(handle, wkbWriter) }
        if let geoJSONReader { geos.GEOSGeoJSONReader_destroy_r(handle, geoJSONReader) }
        if let geoJSONWriter { geos.GEOSGeoJSONWriter_destroy_r(handle, geoJSONWriter) }
        // Returns nothing. No geometry of this context is alive: each one holds the context.
        geos.GEOS_finish_r(handle)
    }

    // MARK: - Messages

    /// Forgets the messages of previous calls; called before every GEOS call.
    @inline(__always)
    func clearMessages() {
        if !errorMessages.isEmpty { errorMessages.removeAll(keepingCapacity: true) }
        if !noticeMessages.isEmpty { noticeMessages.removeAll(keepingCapacity: true) }
    }

    /// The error for a failed call: GEOS's error messages (or, failing those, its notices),
    /// taken out of the buffer. `function` names the C call only when GEOS said nothing.
    func takeError(_ function: StaticString) -> GEOSError {
        // Some GEOS messages end in a newline ("... must contain 0 or >1 elements\n"): drop it.
        let messages = (errorMessages.isEmpty ? noticeMessages : errorMessages).map { message in
            String(message.reversed().drop(while: { $0.isNewline }).reversed())
        }
        clearMessages()
        if messages.isEmpty {
            return .library("\(function) failed without a message")
        }
        return .library(messages.joined(separator: "; "))
    }

    // MARK: - Cached readers and writers

    func wktReaderHandle() throws -> OpaquePointer {
        if let wktReader { return wktReader }
        // returns NULL on exception
        guard let reader = geos.GEOSWKTReader_create_r(handle) else { throw takeError("GEOSWKTReader_create_r") }
        wktReader = reader
        return reader
    }

    func wktWriterHandle() throws -> OpaquePointer {
        if let wktWriter { return wktWriter }
        // returns NULL on exception
        guard let writer = geos.GEOSWKTWriter_create_r(handle) else { throw takeError("GEOSWKTWriter_create_r") }
        // Returns nothing. Trim: "1 2", not "1.0000000000000000 2.0000000000000000".
        geos.GEOSWKTWriter_setTrim_r(handle, writer, 1)
        wktWriter = writer
        return writer
    }

    func wkbReaderHandle() throws -> OpaquePointer {
        if let wkbReader { return wkbReader }
        // returns NULL on exception
        guard let reader = geos.GEOSWKBReader_create_r(handle) else { throw takeError("GEOSWKBReader_create_r") }
        wkbReader = reader
        return reader
    }

    func wkbWriterHandle() throws -> OpaquePointer {
        if let wkbWriter { return wkbWriter }
        // returns NULL on exception
        guard let writer = geos.GEOSWKBWriter_create_r(handle) else { throw takeError("GEOSWKBWriter_create_r") }
        wkbWriter = writer
        return writer
    }

    func geoJSONReaderHandle() throws -> OpaquePointer {
        if let geoJSONReader { return geoJSONReader }
        // returns NULL on exception
        guard let reader = geos.GEOSGeoJSONReader_create_r(handle) else { throw takeError("GEOSGeoJSONReader_create_r") }
        geoJSONReader = reader
        return reader
    }

    func geoJSONWriterHandle() throws -> OpaquePointer {
        if let geoJSONWriter { return geoJSONWriter }
        // returns NULL on exception
        guard let writer = geos.GEOSGeoJSONWriter_create_r(handle) else { throw takeError("GEOSGeoJSONWriter_create_r") }
        geoJSONWriter = writer
        return writer
    }

    // MARK: - Strings from GEOS

    /// Copies a string GEOS allocated and frees it with `GEOSFree_r` (not Swift's or libc's free).
    func takeString(_ pointer: UnsafeMutablePointer<CChar>) -> String {
        defer { geos.GEOSFree_r(handle, pointer) }
        return String(cString: pointer)
    }
}

/// Not Sendable: one per thread (GEOS and PROJ handles are not thread-safe).
@available(*, unavailable)
extension GEOSContext: Sendable {}
