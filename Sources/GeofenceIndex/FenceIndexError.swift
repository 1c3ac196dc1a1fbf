import GeofenceBase
import Geodesy

/// Fences the index refuses.
public enum FenceIndexError: Error, Hashable, Sendable {
    /// Two fences given to one build share an identifier.
    case duplicateIdentifier(String)
    /// A fence whose numbers are unusable (radius not finite and > 0,
    /// coordinates out of range, rings with fewer than 4 positions or not closed).
    case invalidFence(id: String, reason: String)
    /// More fences than slots can address (2^29).
    case tooManyFences
}
