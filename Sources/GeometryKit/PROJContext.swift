import CPROJ

/// A PROJ context (`PJ_CONTEXT*`) with a log buffer.
///
/// One per thread: PROJ contexts are not thread-safe, so this class is not `Sendable`.
/// Every `CRSTransformer` keeps its context alive (PROJ objects reference their context).
/// `init` installs a `proj_log_func` that appends PROJ's messages at level `PJ_LOG_ERROR`
/// to `logMessages`; each operation clears them first, so an error carries its own call's
/// messages only.
public final class PROJContext {
    /// The owned context, released with `proj_context_destroy` in `deinit`.
    let handle: OpaquePointer

    /// Messages PROJ logged since the last `clearMessages()`.
    private(set) var logMessages: [String] = []

    /// A no-op operation on this context, owned here, used only to reset the context's errno:
    /// proj.h has no `proj_context_errno_reset`, but `proj_errno_reset(P)` clears the errno of
    /// P's context. PROJ only sets the context errno when it is 0, so a stale value would
    /// otherwise leak into the next call's error.
    private let errnoResetter: OpaquePointer?

    /// A new PROJ context that logs PROJ's errors into this object (not to stderr); opens
    /// libproj on the first call in the process (``PROJLibrary``).
    /// - Throws: `PROJError.library` when libproj cannot be loaded (the message names it) or
    ///   PROJ cannot allocate a context.
    public init() throws {
        try PROJLibrary.load()
        // returns NULL when the context cannot be allocated
        guard let handle = proj.proj_context_create() else {
            throw PROJError.library("proj_context_create could not create a context")
        }
        self.handle = handle
        // returns NULL on failure (then errno is simply not reset between calls)
        self.errnoResetter = proj.proj_create(handle, "+proj=noop")
        // Returns nothing. Replaces PROJ's default logger (stderr) for this context; the context
        // is unretained, and PROJ only calls the function during calls on this context.
        proj.proj_log_func(handle, Unmanaged.passUnretained(self).toOpaque()) { userData, _, message in
            guard let userData, let message else { return }
            Unmanaged<PROJContext>.fromOpaque(userData).takeUnretainedValue()
                .logMessages.append(String(cString: message))
        }
        // Returns the previous level; cannot fail. Errors only: debug output is not an error text.
        _ = proj.proj_log_level(handle, PJ_LOG_ERROR)
    }

    deinit {
        // Returns NULL; destroys an object of this context before the context itself.
        if let errnoResetter { _ = proj.proj_destroy(errnoResetter) }
        // Returns nothing. No transformer of this context is alive: each one holds the context.
        _ = proj.proj_context_destroy(handle)
    }

    /// Forgets the messages of previous calls and resets the context's errno; called before
    /// every PROJ call.
    @inline(__always)
    func clearMessages() {
        if !logMessages.isEmpty { logMessages.removeAll(keepingCapacity: true) }
        // returns the previous errno; cannot fail
        if let errnoResetter { _ = proj.proj_errno_reset(errnoResetter) }
    }

    /// The error for a failed call: the messages PROJ logged during the call, then the text of
    /// `errno` (when nonzero), joined by "; " without repeats, e.g.
    /// `"proj_create: crs not found; Unknown error (code 4096)"`. `function` names the call
    /// only when PROJ said nothing.
    func takeError(_ function: StaticString, errno: Int32) -> PROJError {
        var parts: [String] = []
        for message in logMessages where !parts.contains(message) { parts.append(message) }
        if errno != 0 {
            // returns a string owned by PROJ (static or in the context); copied at once
            if let text = proj.proj_context_errno_string(handle, errno) {
                let errnoText = String(cString: text)
                if !parts.contains(errnoText) { parts.append(errnoText) }
            }
        }
        clearMessages()
        if parts.isEmpty { return .library("\(function) failed without a message") }
        return .library(parts.joined(separator: "; "))
    }
}

/// Not Sendable: one per thread (GEOS and PROJ handles are not thread-safe).
@available(*, unavailable)
extension PROJContext: Sendable {}
