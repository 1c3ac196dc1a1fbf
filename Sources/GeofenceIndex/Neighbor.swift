import GeofenceBase
import Geodesy

/// One answer of `FenceIndex.nearest`: a fence and its boundary distance in metres
/// (0 when the point is inside).
public struct Neighbor: Hashable, Sendable {
    /// The fence slot (see `FenceIndex.identifier(of:)`).
    public var slot: Int32
    /// Metres from the query point to the fence, 0 when inside
    /// (`FenceIndex.distance(to:lat:lon:)`).
    public var distance: Double

    /// A fence slot with its distance in metres.
    @inlinable
    public init(slot: Int32, distance: Double) {
        self.slot = slot; self.distance = distance
    }
}
