import GeofenceBase

/// An array of plain values whose storage is either its own memory or a range of a file mapped
/// in place (``MappedRegion``): the large sections of a compiled fence file are used where the
/// kernel keeps them, not copied into fresh memory (docs/compiled-fences.md#memory). Reads are
/// a pointer and an index either way; the first change to a mapped or shared column copies it
/// into memory of its own (value semantics, as an `Array`).
package struct Column<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    private var store: Store

    /// An empty column.
    package init() { store = Store(capacity: 0) }

    /// `count` values written into its own memory by `fill` (given room for them; nil when
    /// `count` is 0), without a copy.
    package init<E: Error>(count: Int, fill: (UnsafeMutableRawPointer?) throws(E) -> Void) throws(E) {
        store = Store(capacity: count)
        try fill(count > 0 ? UnsafeMutableRawPointer(store.pointer) : nil)
        store.count = count
    }

    /// `count` copies of `value` in memory of its own.
    package init(repeating value: Element, count: Int) {
        store = Store(capacity: count)
        if count > 0 { store.pointer.initialize(repeating: value, count: count) }
        store.count = count
    }

    /// The values in `region`, in place: its length must be a whole number of elements and
    /// its start aligned for them.
    package init(region: MappedRegion) {
        precondition(region.count % MemoryLayout<Element>.stride == 0)
        precondition(Int(bitPattern: region.base) % MemoryLayout<Element>.alignment == 0)
        store = Store(region: region)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { store.count }
    package var count: Int { store.count }

    /// Whether the values are a file's bytes in place.
    package var isMapped: Bool { store.region != nil }

    /// A mapped column's pages dropped from the process (``MappedRegion/dropAll()``); nothing
    /// for one in memory.
    package func dropMappedPages() { store.region?.dropAll() }

    /// Bytes held: the capacity of its own memory, or the mapped length.
    package var capacityBytes: Int { store.capacity * MemoryLayout<Element>.stride }

    package subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < store.count, "Column index out of range")
            return store.pointer[i]
        }
        set {
            precondition(i >= 0 && i < store.count, "Column index out of range")
            makeUnique(capacity: store.count)
            store.pointer[i] = newValue
        }
    }

    package func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(store) {} }
        return try body(UnsafeBufferPointer(start: store.pointer, count: store.count))
    }

    /// The values, writable (copied first into memory of its own when mapped or shared).
    package mutating func withUnsafeMutableBufferPointer<R, E: Error>(_ body: (UnsafeMutableBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        makeUnique(capacity: store.count)
        defer { withExtendedLifetime(store) {} }
        return try body(UnsafeMutableBufferPointer(start: store.pointer, count: store.count))
    }

    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(store) {} }
        return try body(UnsafeRawBufferPointer(UnsafeBufferPointer(start: store.pointer, count: store.count)))
    }

    package mutating func append(contentsOf values: [Element]) {
        guard !values.isEmpty else { return }
        reserve(store.count + values.count)
        values.withUnsafeBufferPointer { (store.pointer + store.count).update(from: $0.baseAddress!, count: $0.count) }
        store.count += values.count
    }

    /// Room for `n` values in memory of its own, unshared (growing by doubling).
    private mutating func reserve(_ n: Int) {
        if n <= store.capacity && store.region == nil && isKnownUniquelyReferenced(&store) { return }
        makeUnique(capacity: n > store.capacity ? Swift.max(n, 2 * store.capacity) : store.capacity)
    }

    /// Memory of its own, unshared, of at least `capacity` values.
    private mutating func makeUnique(capacity: Int) {
        if store.region == nil && isKnownUniquelyReferenced(&store) && capacity <= store.capacity { return }
        let copy = Store(capacity: Swift.max(capacity, store.count))
        copy.pointer.update(from: store.pointer, count: store.count)
        copy.count = store.count
        store = copy
    }

    /// The storage: allocated here (`region` nil) or a mapped file range.
    private final class Store {
        let pointer: UnsafeMutablePointer<Element>
        var count: Int
        let capacity: Int
        let region: MappedRegion?

        init(capacity: Int) {
            pointer = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(1, capacity))
            count = 0
            self.capacity = capacity
            region = nil
        }

        init(region: MappedRegion) {
            // Never written: every change copies first (makeUnique).
            pointer = UnsafeMutableRawPointer(mutating: region.base).assumingMemoryBound(to: Element.self)
            count = region.count / MemoryLayout<Element>.stride
            capacity = count
            self.region = region
        }

        deinit { if region == nil { pointer.deallocate() } }
    }
}
