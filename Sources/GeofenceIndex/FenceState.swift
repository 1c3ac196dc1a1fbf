import GeofenceBase
import Geodesy

/// The state of one fence for one fix with horizontal accuracy `a` and exit
/// margin `M` (docs/evaluation.md). With distance `d` from the centre (circle) or
/// boundary distance `b` (polygon, see `FenceIndex.boundaryDistance`):
///
/// | state | circle | polygon |
/// |---|---|---|
/// | `inside` | `d + a <= r` | covered and `b >= a` |
/// | `outside` | `d - a > r + M` | not covered and `b - a > M` |
/// | `outsideWithinMargin` | `r < d - a <= r + M` | not covered and `0 < b - a <= M` |
/// | `uncertain` | otherwise | otherwise |
///
/// `outsideWithinMargin` only occurs with `M > 0`: it is outside for a device
/// whose state is unknown, but not far enough to leave `inside`.
public enum FenceState: UInt8, Hashable, Sendable, Comparable {
    /// The whole accuracy circle is inside the fence.
    case inside = 0
    /// The accuracy circle straddles the edge; such a fix changes no state.
    case uncertain = 1
    /// Outside, but no more than the exit margin beyond the edge: decides an unknown state
    /// as outside, does not end `inside`.
    case outsideWithinMargin = 2
    /// The accuracy circle misses the fence and clears its edge by more than the exit margin.
    case outside = 3

    /// Orders from most to least inside: `inside` < `uncertain` < `outsideWithinMargin` <
    /// `outside`.
    public static func < (a: FenceState, b: FenceState) -> Bool { a.rawValue < b.rawValue }
}
