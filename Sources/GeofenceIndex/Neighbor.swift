import GeofenceBase
import Geodesy

/// One answer of `FenceIndex.nearest`: a fence and its boundary distance in metres
/// (0 when the point is inside).
public struct Neighbor: Hashable, Sendable {
    public var slot: Int32
    public var distance: Double

    @inlinable
    public init(slot: Int32, distance: Double) {
        self.slot = slot; self.distance = distance
    }
}
