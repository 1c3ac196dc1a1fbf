import CGDAL

/// A failure of GDAL itself: a source it cannot open or read, a driver that refuses to write.
/// The message is GDAL's own (`CPLGetLastErrorMsg`), cleaned of control characters and cut
/// to a readable length, so a damaged file never puts raw bytes in front of the user.
public struct GDALError: Error, Sendable, CustomStringConvertible {
    /// What failed, in GDAL's words (or ours when GDAL gave no message).
    public var message: String

    /// An error with this message, cleaned as described above.
    public init(_ message: String) { self.message = GDALError.clean(message) }

    /// The message.
    public var description: String { message }

    /// The message without control characters (each run becomes one space), at most 300 characters.
    static func clean(_ s: String) -> String {
        var out = ""
        var lastSpace = false
        for u in s.unicodeScalars {
            let control = u.value < 0x20 || u.value == 0x7F || (u.value >= 0x80 && u.value < 0xA0) || u == "\u{FFFD}"
            if control {
                if !lastSpace { out.unicodeScalars.append(" ") }
                lastSpace = true
            } else {
                out.unicodeScalars.append(u)
                lastSpace = false
            }
        }
        out = out.trimmingSpaces()
        return out.count > 300 ? String(out.prefix(300)) + "…" : out
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// GDAL's error state around our calls. GDAL reports errors through a per-thread handler
/// stack and a per-thread "last error"; every call we make goes through ``quiet(_:)``, which
/// silences GDAL's default printing to stderr and resets the last error first.
enum GDALCalls {
    /// Registers every driver once per process (`GDALAllRegister` is idempotent but not free).
    private static let registered: Void = {
        // returns nothing; safe to call more than once
        gdal.GDALAllRegister()
    }()

    /// Runs `body` with GDAL's messages captured instead of printed, after registering the drivers.
    static func quiet<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        _ = registered
        // returns nothing; the handler is per thread and popped below
        gdal.CPLPushErrorHandler(gdal.CPLQuietErrorHandler)
        defer { gdal.CPLPopErrorHandler() }
        gdal.CPLErrorReset()
        return try body()
    }

    /// A C string GDAL returns (owned by GDAL) as a `String`; "" for NULL.
    static func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

    /// Whether the last GDAL call on this thread reported an error of class Failure or Fatal.
    static var failed: Bool { gdal.CPLGetLastErrorType().rawValue >= CE_Failure.rawValue }

    /// The last GDAL error message on this thread as a ``GDALError``, or `fallback` when GDAL gave none.
    static func lastError(_ fallback: String) -> GDALError {
        // returns a pointer to a per-thread buffer (never NULL, "" when no error)
        let m = GDALCalls.text(gdal.CPLGetLastErrorMsg())
        return GDALError(m.isEmpty ? fallback : m)
    }

    /// A NULL-terminated C string list (`char **`, GDAL's CSL) for the duration of `body`.
    static func withStringList<T>(_ items: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> T) -> T {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        // returns the (re)allocated list; CSLDestroy frees it and every string
        for s in items { list = gdal.CSLAddString(list, s) }
        defer { gdal.CSLDestroy(list) }
        return body(list)
    }
}
