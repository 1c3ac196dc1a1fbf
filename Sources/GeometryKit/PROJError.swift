/// A failure reported by PROJ. The text is PROJ's own: the error string for the
/// context's or object's errno (`proj_context_errno_string`) and the messages PROJ
/// logged during the call (captured through `proj_log_func`), e.g.
/// `"proj_create: crs not found"`.
public enum PROJError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The text of the failure: the messages PROJ logged during the call and the text of its
    /// errno, joined by "; " (`CRSTransformer.transform(_:)` prefixes "point i: "), or, when
    /// PROJ said nothing, which C call failed.
    case library(String)

    /// PROJ's message.
    public var message: String {
        switch self {
        case .library(let text): return text
        }
    }

    /// "PROJ: " followed by the message.
    public var description: String { "PROJ: \(message)" }
}
