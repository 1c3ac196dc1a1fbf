/// A fence as the index takes it.
public enum Fence: Hashable, Sendable {
    case circle(CircleFence)
    case polygon(PolygonFence)

    /// The fence identifier (unique within an index).
    public var id: String {
        switch self {
        case .circle(let c): return c.id
        case .polygon(let p): return p.id
        }
    }
}
