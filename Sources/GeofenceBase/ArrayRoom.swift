extension Array {
    /// Room for `extra` more elements: when they do not fit, the capacity grows once, to at
    /// least twice what it was (as appending would, but in one step for a known run of
    /// appends: one copy and one set of fresh pages, not one per doubling).
    @inlinable
    public mutating func reserveRoom(for extra: Int) {
        let need = count &+ extra
        if need > capacity { reserveCapacity(Swift.max(need, 2 &* capacity)) }
    }
}
