/// Wraps a pointer for handing disjoint parts of one buffer to worker threads
/// (each thread writes only its own elements; the owner keeps the buffer alive).
package struct UnsafeShared<T>: @unchecked Sendable {
    package let base: UnsafeMutablePointer<T>
    package init(base: UnsafeMutablePointer<T>) { self.base = base }
}
