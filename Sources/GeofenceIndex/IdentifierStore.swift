import Foundation

/// Fence identifiers by slot as one UTF-8 byte array and an end offset per
/// slot: 4 bytes per identifier plus its bytes, no per-identifier allocation,
/// and the layout a compiled fence file stores (docs/compiled-fences.md).
struct IdentifierStore: Sendable {
    /// The identifiers' UTF-8 bytes, one after another.
    var bytes: [UInt8] = []
    /// End of each identifier in `bytes`, after a leading 0 (identifier `i` is
    /// `bytes[ends[i]..<ends[i + 1]]`).
    var ends: [UInt32] = [0]

    /// Identifiers held.
    var count: Int { ends.count - 1 }

    /// Whether `extra` more bytes still fit the 32-bit offsets.
    func canAppend(bytes extra: Int) -> Bool { bytes.count + extra <= Int(UInt32.max) }

    mutating func append(_ id: String) {
        var s = id
        s.withUTF8 { bytes.append(contentsOf: $0) }
        ends.append(UInt32(bytes.count))
    }

    /// The identifier of slot `i`, as a `String` (made on each call).
    subscript(i: Int) -> String {
        bytes.withUnsafeBufferPointer { b in
            String(decoding: UnsafeBufferPointer(rebasing: b[Int(ends[i])..<Int(ends[i + 1])]), as: UTF8.self)
        }
    }

    /// Calls `body` with the UTF-8 bytes of slot `i`.
    @inline(__always)
    func withBytes<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { b in body(UnsafeBufferPointer(rebasing: b[Int(ends[i])..<Int(ends[i + 1])])) }
    }

    /// Bytewise comparison of two byte strings: negative, 0 or positive.
    @inline(__always)
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        if n > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, n)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    /// Whether identifier `a` sorts before identifier `b` (bytewise UTF-8).
    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool {
        bytes.withUnsafeBufferPointer { buf in
            IdentifierStore.compare(UnsafeBufferPointer(rebasing: buf[Int(ends[a])..<Int(ends[a + 1])]),
                                    UnsafeBufferPointer(rebasing: buf[Int(ends[b])..<Int(ends[b + 1])])) < 0
        }
    }

    /// Compares identifier `i` with the bytes `other`.
    @inline(__always)
    func compare(_ i: Int, _ other: UnsafeBufferPointer<UInt8>) -> Int {
        withBytes(i) { IdentifierStore.compare($0, other) }
    }

    /// Whether two slots hold the same identifier.
    func equal(_ a: Int, _ b: Int) -> Bool {
        withBytes(a) { x in withBytes(b) { y in IdentifierStore.compare(x, y) == 0 } }
    }

    /// The first 8 bytes of identifier `i`, big-endian, zero-padded (see `FenceTable.prefixKey`).
    @inline(__always)
    func prefixKey(_ i: Int) -> UInt64 {
        withBytes(i) { b in
            var k: UInt64 = 0
            let n = min(8, b.count)
            for j in 0..<n { k = k << 8 | UInt64(b[j]) }
            return n == 0 ? 0 : k << UInt64(8 * (8 - n))
        }
    }

    var memoryBytes: Int { bytes.capacity + ends.capacity * 4 }
}
