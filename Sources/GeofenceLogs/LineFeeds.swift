import CFastDecimal
import Glibc

/// The line feeds of a mapped log, counted per block ahead of the parallel reader
/// (docs/logs.md#parallel-reading): a parse worker with nothing left to parse counts those of
/// the next round (``count(from:to:)``; reading the bytes maps their pages, as mapping them
/// ahead did), and the reader, cutting the round into chunks, adds them up
/// (``lineFeeds(at:)``): a chunk makes at most one fix per line, so each chunk's fixes can be
/// parsed straight into the batch, after the room the chunks before it may fill.
///
/// A block's count is stored once, atomically, by whichever thread counts it; a block not
/// counted yet reads as such, and the reader then makes the round as before.
final class LineFeeds: @unchecked Sendable {
    /// The file's first byte, and its bytes.
    private let base: UnsafePointer<UInt8>
    private let size: Int
    /// Per block of ``blockBytes``: its line feeds plus one, 0 while not counted.
    private let counts: UnsafeMutablePointer<UInt32>
    static let blockBytes = Int(GEOFENCE_LINE_BLOCK)

    init(base: UnsafePointer<UInt8>, size: Int) {
        self.base = base
        self.size = size
        let blocks = size / Self.blockBytes + 1
        // Zeroed pages from the system, touched only where blocks are counted.
        counts = calloc(blocks, MemoryLayout<UInt32>.stride)!.bindMemory(to: UInt32.self, capacity: blocks)
    }

    deinit { free(counts) }

    /// Counts the blocks that bytes `from..<to` of the file touch (those not counted yet).
    func count(from: Int, to: Int) {
        let from = Swift.max(0, from), to = Swift.min(size, to)
        guard to > from else { return }
        geofence_count_line_blocks(base, size, counts, from / Self.blockBytes, (to + Self.blockBytes - 1) / Self.blockBytes)
    }

    /// The line feeds before each offset of `offsets` (ascending, within the file) counted
    /// from the first offset: `[0, lf(offsets[0]..<offsets[1]), …]`, cumulative, from the blocks'
    /// counts and the bytes between each offset and the start of its block; nil when a block
    /// in between is not counted yet.
    func lineFeeds(at offsets: [Int]) -> [Int]? {
        guard let first = offsets.first else { return [] }
        var result: [Int] = []
        result.reserveCapacity(offsets.count)
        // Line feeds from the start of the first offset's block up to the start of block `block`.
        var block = first / Self.blockBytes, fromBlock = 0
        let head = Int(geofence_count_line_feeds(base + block * Self.blockBytes, first - block * Self.blockBytes))
        for x in offsets {
            let b = x / Self.blockBytes
            if b > block {
                let sum = geofence_sum_line_blocks(counts, block, b)
                guard sum >= 0 else { return nil }
                fromBlock += sum
                block = b
            }
            let partial = Int(geofence_count_line_feeds(base + b * Self.blockBytes, x - b * Self.blockBytes))
            result.append(fromBlock + partial - head)
        }
        return result
    }
}
