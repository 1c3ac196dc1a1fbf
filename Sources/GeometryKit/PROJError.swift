/// A failure reported by PROJ. The text is PROJ's own: the error string for the
/// context's or object's errno (`proj_context_errno_string`) and the messages PROJ
/// logged during the call (captured through `proj_log_func`), e.g.
/// `"proj_create: crs not found"`.
public enum PROJError: Error, CustomStringConvertible, Equatable, Sendable {
    case library(String)

    /// PROJ's message.
    public var message: String {
        switch self {
        case .library(let text): return text
        }
    }

    public var description: String { "PROJ: \(message)" }
}
