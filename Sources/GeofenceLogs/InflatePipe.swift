import Dispatch
import Foundation
import Synchronization

/// Bytes made ahead on a thread of their own (the gzip inflater of a ``ByteSource`` read in
/// parallel), so that inflating overlaps with parsing.
///
/// A ring of blocks: the producer fills a free block (waiting when none is), the consumer
/// copies out of filled ones in order. A failure or the end travels as a block, after the bytes
/// made before it, so the consumer sees exactly what a serial read sees.
final class InflatePipe: @unchecked Sendable {
    /// One block: its bytes, and whether it carries the end or a failure instead.
    struct Block {
        var bytes: UnsafeMutablePointer<UInt8>
        var count = 0
        var end = false
        var error: ByteSourceError? = nil
    }

    private let blocks: UnsafeMutablePointer<Block>
    private let blockCount: Int
    let blockSize: Int
    // Created at 0 and raised: libdispatch refuses to free a semaphore below its initial value.
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let cancelled = Atomic<Bool>(false)
    /// Consumer side: the block being read and how far.
    private var readIndex = 0
    private var offset = 0
    private var holding = false

    /// Starts the producer thread: `produce(p, max)` writes up to `max` bytes to `p` and returns
    /// the count, 0 only at the end.
    /// The first block's bytes (the next ones double up to the block size).
    static let firstBlock = 1 << 16

    init(blockSize: Int, blocks count: Int = 4,
         produce: @escaping @Sendable (UnsafeMutablePointer<UInt8>, Int) throws(ByteSourceError) -> Int) {
        self.blockSize = blockSize
        blockCount = count
        blocks = .allocate(capacity: count)
        for k in 0..<count { (blocks + k).initialize(to: Block(bytes: .allocate(capacity: blockSize))) }
        for _ in 0..<count { free.signal() }
        let thread = Thread { [self] in self.run(produce) }
        thread.name = "geofence-inflate"
        thread.start()
    }

    private func run(_ produce: (UnsafeMutablePointer<UInt8>, Int) throws(ByteSourceError) -> Int) {
        var w = 0
        // The first blocks are small (64 KiB, doubling): the reader gets its first bytes soon.
        var size = Swift.min(blockSize, InflatePipe.firstBlock)
        while true {
            free.wait()
            if cancelled.load(ordering: .acquiring) { break }
            let b = blocks + w
            b.pointee.count = 0
            var last = false
            do {
                let n = try produce(b.pointee.bytes, size)
                size = Swift.min(blockSize, 2 * size)
                b.pointee.count = n
                b.pointee.end = n == 0
                last = n == 0
            } catch {
                b.pointee.error = error
                last = true
            }
            filled.signal()
            if last { break }
            w = (w + 1) % blockCount
        }
        stopped.signal()
    }

    /// Copies up to `max` of the next bytes to `p`; 0 at the end. Waits for the producer when
    /// it is behind.
    /// - Throws: the producer's failure, once the bytes before it are taken (and again after).
    func read(into p: UnsafeMutablePointer<UInt8>, max: Int) throws(ByteSourceError) -> Int {
        while true {
            if !holding {
                filled.wait()
                holding = true
                offset = 0
            }
            let b = blocks + readIndex
            if let e = b.pointee.error { throw e }
            if b.pointee.end { return 0 }
            let n = Swift.min(max, b.pointee.count - offset)
            p.update(from: b.pointee.bytes + offset, count: n)
            offset += n
            if offset == b.pointee.count {
                holding = false
                readIndex = (readIndex + 1) % blockCount
                free.signal()
            }
            if n > 0 { return n }
        }
    }

    /// Stops the producer and waits for it (before the source frees what it uses).
    func stop() {
        cancelled.store(true, ordering: .releasing)
        free.signal()
        stopped.wait()
    }

    deinit {
        for k in 0..<blockCount { blocks[k].bytes.deallocate() }
        blocks.deinitialize(count: blockCount)
        blocks.deallocate()
    }
}
