import GeofenceBase
import GeofenceIndex

/// Positions 0, 1, 2... of identifiers, found by identifier, compared bytewise as UTF-8 (NFC and NFD
/// spellings are two identifiers): an open-addressing table of `Int32` positions, with no
/// allocation per identifier (a `[[UInt8]: ...]` dictionary makes one array per fence).
struct IdentifierTable {
    private var slots: [Int32]
    private var mask: Int
    /// The hash of the identifier at each position.
    private var hashes: [Int] = []
    private(set) var count = 0

    /// A table with room for `capacity` identifiers before it grows.
    init(capacity: Int) {
        var size = 16
        while size < 2 * capacity { size <<= 1 }
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
        hashes.reserveCapacity(capacity)
    }

    @inline(__always)
    static func hash(_ id: String) -> Int {
        let h = id.utf8.withContiguousStorageIfAvailable { Hash64.hash($0.baseAddress, count: $0.count) }
            ?? Hash64.hash(Array(id.utf8))
        return Int(truncatingIfNeeded: h)
    }

    /// The position of `id` when present (`idAt` gives the identifier at a position); else
    /// inserts it at `count`, the next position, and returns nil.
    /// - Complexity: O(1) expected, O(length of `id`) for the hash and comparisons.
    mutating func firstOrInsert(_ id: String, idAt: (Int) -> String) -> Int? {
        if 2 * (count + 1) > slots.count { grow() }
        let h = IdentifierTable.hash(id)
        var k = h & mask
        while slots[k] >= 0 {
            let p = Int(slots[k])
            if hashes[p] == h && idAt(p).utf8.elementsEqual(id.utf8) { return p }
            k = (k + 1) & mask
        }
        slots[k] = Int32(count)
        hashes.append(h)
        count += 1
        return nil
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for (p, h) in hashes.enumerated() {
            var k = h & mask
            while slots[k] >= 0 { k = (k + 1) & mask }
            slots[k] = Int32(p)
        }
    }
}
