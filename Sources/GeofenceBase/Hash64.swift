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
        return tail(h &+ UInt64(count), base + i, count - i)
    }

    /// The end of a checksum: the last `count` bytes (fewer than 32) at `base` folded into `h`,
    /// then the avalanche.
    @inline(__always)
    static func tail(_ h0: UInt64, _ base: UnsafeRawPointer?, _ count: Int) -> UInt64 {
        var h = h0, i = 0
        if let base {
            while i + 8 <= count {
                h ^= round(0, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                h = ((h << 27) | (h >> 37)) &* p1 &+ p4
                i += 8
            }
            while i < count {
                h ^= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) &* p5
                h = ((h << 11) | (h >> 53)) &* p1
                i += 1
            }
        }
        return avalanche(h)
    }

    /// The checksum of bytes handed over in pieces: the value ``hash(_:count:seed:)`` gives
    /// for all of them at once (for a section read a block at a time:
    /// docs/compiled-fences.md#memory).
    public struct Stream {
        private var v1: UInt64, v2: UInt64, v3: UInt64, v4: UInt64
        private let seed: UInt64
        /// Bytes handed over so far.
        private var total = 0
        /// The bytes of an unfinished 32-byte step (fewer than 32).
        private var pending: [UInt8] = []

        /// An empty stream; `seed` as in ``Hash64/hash(_:count:seed:)``.
        public init(seed: UInt64 = 0) {
            self.seed = seed
            v1 = seed &+ p1 &+ p2; v2 = seed &+ p2; v3 = seed; v4 = seed &- p1
        }

        /// Adds `count` bytes at `base`.
        public mutating func add(_ base: UnsafeRawPointer, count: Int) {
            var i = 0
            total += count
            if !pending.isEmpty {
                let take = Swift.min(32 - pending.count, count)
                pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
                i = take
                guard pending.count == 32 else { return }
                pending.withUnsafeBytes { steps($0.baseAddress!, 32) }
                pending.removeAll(keepingCapacity: true)
            }
            let whole = (count - i) / 32 * 32
            steps(base + i, whole)
            i += whole
            if i < count { pending.append(contentsOf: UnsafeRawBufferPointer(start: base + i, count: count - i)) }
        }

        /// The 32-byte steps of `count` bytes (a multiple of 32).
        private mutating func steps(_ base: UnsafeRawPointer, _ count: Int) {
            var a = v1, b = v2, c = v3, d = v4
            var i = 0
            @inline(__always) func word(_ o: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
            while i + 32 <= count {
                a = round(a, word(i)); b = round(b, word(i + 8))
                c = round(c, word(i + 16)); d = round(d, word(i + 24))
                i += 32
            }
            v1 = a; v2 = b; v3 = c; v4 = d
        }

        /// The checksum of every byte added.
        public func finish() -> UInt64 {
            pending.withUnsafeBytes { rest in
                if total < 32 { return hash(rest.baseAddress, count: rest.count, seed: seed) }
                var h = ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57)) &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
                h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4)
                return tail(h &+ UInt64(total), rest.baseAddress, rest.count)
            }
        }
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
