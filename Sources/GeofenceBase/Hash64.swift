/// A fast 64-bit checksum over bytes: xxHash64's round function and final
/// avalanche over four 8-byte lanes (32 bytes per step), for the integrity
/// checks of large binary files (docs/compiled-fences.md). Not cryptographic:
/// it detects damage (truncation, flipped bits), not tampering.
public enum Hash64 {
    static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always)
    static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        var a = acc &+ input &* p2
        a = (a << 31) | (a >> 33)
        return a &* p1
    }

    @inline(__always)
    static func merge(_ acc: UInt64, _ v: UInt64) -> UInt64 {
        (acc ^ round(0, v)) &* p1 &+ p4
    }

    /// The checksum of `count` bytes at `base` (little-endian lanes).
    /// - Complexity: O(count); several GB/s in release builds.
    public static func hash(_ base: UnsafeRawPointer?, count: Int, seed: UInt64 = 0) -> UInt64 {
        var h: UInt64
        var i = 0
        guard let base, count > 0 else { return avalanche(seed &+ p5) }
        @inline(__always) func word(_ o: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
        if count >= 32 {
            var v1 = seed &+ p1 &+ p2, v2 = seed &+ p2, v3 = seed, v4 = seed &- p1
            while i + 32 <= count {
                v1 = round(v1, word(i)); v2 = round(v2, word(i + 8))
                v3 = round(v3, word(i + 16)); v4 = round(v4, word(i + 24))
                i += 32
            }
            h = ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57)) &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
            h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4)
        } else {
            h = seed &+ p5
        }
        h = h &+ UInt64(count)
        while i + 8 <= count {
            h ^= round(0, word(i))
            h = ((h << 27) | (h >> 37)) &* p1 &+ p4
            i += 8
        }
        while i < count {
            h ^= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) &* p5
            h = ((h << 11) | (h >> 53)) &* p1
            i += 1
        }
        return avalanche(h)
    }

    /// The checksum of a byte array.
    public static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { hash($0.baseAddress, count: $0.count, seed: seed) }
    }

    @inline(__always)
    static func avalanche(_ x: UInt64) -> UInt64 {
        var h = x
        h ^= h >> 33; h = h &* p2
        h ^= h >> 29; h = h &* p3
        h ^= h >> 32
        return h
    }
}
