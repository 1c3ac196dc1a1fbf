import GeofenceBase
import Geodesy

/// One fence's state for a fix, as reported by `FenceIndex.classify`.
public struct FenceClassification: Hashable, Sendable {
    /// The fence slot (see `FenceIndex.identifier(of:)`).
    public var slot: Int32
    public var state: FenceState

    @inlinable
    public init(slot: Int32, state: FenceState) {
        self.slot = slot; self.state = state
    }
}
