import GeofenceBase
import GeofenceLogs
import GeofenceIndex

/// The classifications one worker writes in the query phase of a batch: a
/// growable buffer appended to without `Array`'s uniqueness and capacity
/// bookkeeping (the hot loop appends once per reported fence). Storage is
/// allocated on first need and freed by `deallocate()` (its `EvaluationRun`
/// does); copies share it.
struct AnswerBuffer {
    private(set) var base: UnsafeMutablePointer<FenceClassification>? = nil
    private(set) var count = 0
    private(set) var capacity = 0

    /// Empties the buffer, keeping at least `capacity` of room.
    mutating func removeAll(keepingCapacity capacity: Int) {
        count = 0
        if capacity > self.capacity { grow(to: capacity) }
    }

    @inline(__always)
    mutating func append(_ x: FenceClassification) {
        if count == capacity { grow(to: Swift.max(64, 2 * capacity)) }
        base.unsafelyUnwrapped[count] = x
        count &+= 1
    }

    mutating func grow(to n: Int) {
        let b = UnsafeMutablePointer<FenceClassification>.allocate(capacity: n)
        if let base {
            b.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = b
        capacity = n
    }

    func deallocate() { base?.deallocate() }

    var elements: UnsafeBufferPointer<FenceClassification> { UnsafeBufferPointer(start: base, count: count) }
}
