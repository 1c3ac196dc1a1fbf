import GeofenceBase
import Geodesy

/// One fence's state for a fix, as reported by `FenceIndex.classify`.
public struct FenceClassification: Hashable, Sendable {
    /// The fence slot (see `FenceIndex.identifier(of:)`).
    public var slot: Int32
    /// The fence's state for the fix; `classify` never reports `.outside`.
    public var state: FenceState

    /// A fence slot with its state for one fix.
    @inlinable
    public init(slot: Int32, state: FenceState) {
        self.slot = slot; self.state = state
    }
}
