/// Wraps a pointer for handing disjoint parts of one buffer to worker threads
/// (each thread writes only its own elements; the owner keeps the buffer alive).
package struct UnsafeShared<T>: @unchecked Sendable {
    package let base: UnsafeMutablePointer<T>
    package init(base: UnsafeMutablePointer<T>) { self.base = base }
}

/// Hands a value to another thread that only keeps it alive (a reference the receiver holds so
/// that what it points into is not freed meanwhile), which the value's type cannot vouch for.
package struct UncheckedSendable<T>: @unchecked Sendable {
    package let value: T
    package init(_ value: T) { self.value = value }
}
