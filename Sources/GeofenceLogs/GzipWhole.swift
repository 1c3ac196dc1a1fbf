import Foundation
import GeofenceBase
import Synchronization

/// A gzip file of one member inflated whole into one buffer, a step at a time, on the reader's
/// thread when it needs more, and with a thread, on a thread of its own once the reader has
/// inflated the first ``inlineBytes`` itself (docs/logs.md#gzip).
///
/// The buffer is sized from the member's trailer (its length), so the reader's window moves
/// through it as through a mapped file: nothing is copied, and with a thread the parse begins
/// as soon as the first bytes are out, while the rest is inflated alongside it.
///
/// The bytes of a step are published once it succeeds; a failure is published after the bytes
/// before it (the bytes of the failing step are dropped, as a stream read drops them). A
/// member larger than the buffer (a trailer that is wrong, or a length past 4 GiB, which the
/// trailer keeps modulo 2^32), or bytes after the member (a member the caller did not see, or
/// garbage), hand the rest over: the reader takes the stream and goes on as a stream read
/// (``takeStream()``), with its errors.
final class GzipWhole: @unchecked Sendable {
    /// How the inflation stands.
    enum Progress {
        /// More bytes are to come.
        case running
        /// The member ended, its checks passed, and nothing follows it: every byte is out.
        case finished
        /// Inflation failed after the bytes published.
        case failed(ByteSourceError)
        /// The rest is the reader's to inflate as a stream (``takeStream()``): the buffer is
        /// full before the member's end, or bytes follow the member.
        case handedOver
    }

    /// The inflated bytes (``published(beyond:)`` says how many are there).
    let bytes: UnsafeMutablePointer<UInt8>
    /// Bytes in the buffer (the trailer's length and room to spare).
    let capacity: Int
    /// The compressed file, whole, and whether it is ours to free.
    private var input: UnsafeMutablePointer<UInt8>?
    private let ownsInput: Bool
    private var stream: GzipStream?
    /// The member ended (bytes followed it: the stream is handed over between members).
    private var memberEnded = false

    /// The steps' bytes: ``firstStep`` until ``inlineBytes`` are out, then doubling up to
    /// ``largestStep``.
    static let firstStep = 1 << 18
    static let largestStep = 1 << 20
    /// What the reader inflates itself before a thread of its own takes over: the first round
    /// of a quick start (docs/logs.md#parallel-reading), which waited for a thread started
    /// with the reader (the bench's AIS case at 2 threads: 1.4 ms of waiting, then 0.4 ms).
    static let inlineBytes = 1 << 20

    // Written by the inflating side under `condition`; read by the reader under it.
    private let condition = NSCondition()
    private var made = 0
    private var progress = Progress.running

    // The inflating side's own: the reader's until the thread is started, then the thread's.
    private var step = GzipWhole.firstStep

    /// With a thread: once started (by the first ``published(beyond:)``), it inflates until the
    /// end, a failure, a hand-over or ``stop()``.
    private let threaded: Bool
    /// The reader has asked for bytes, and a thread has been started (read and written by the
    /// reader's thread only).
    private var asked = false, started = false
    private let cancelled = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// Inflates `input[0..<count]` (one gzip member; freed with this object if `owned`, else
    /// the caller's to keep until then) into a buffer of `expected + room` bytes: step by step
    /// as ``published(beyond:)`` needs, and with `threaded`, past the first ``inlineBytes`` on
    /// a thread of its own.
    init(input: UnsafeMutablePointer<UInt8>, count: Int, owned: Bool, expected: Int, room: Int, threaded: Bool) {
        self.input = input
        ownsInput = owned
        capacity = expected + Swift.max(room, 2)
        bytes = .allocate(capacity: capacity)
        HugePages.advise(bytes, capacity)
        let s = GzipStream()
        s.setInput(input, count)
        stream = s
        self.threaded = threaded
    }

    /// Starts the thread that inflates the rest.
    private func startThread() {
        started = true
        let thread = Thread { [self] in
            while !cancelled.load(ordering: .relaxed) && advance() {}
            stopped.signal()
        }
        thread.name = "geofence-inflate"
        thread.start()
    }

    /// Stops the thread (if it was started) and waits for it, before the buffers go.
    func stop() {
        guard threaded, started else { return }
        cancelled.store(true, ordering: .relaxed)
        stopped.wait()
        stopped.signal()  // a second stop() returns at once
    }

    deinit {
        bytes.deallocate()
        if ownsInput { input?.deallocate() }
    }

    /// Inflates one step and publishes it; false when there is nothing more to do.
    private func advance() -> Bool {
        guard let s = stream else { return false }
        let room = Swift.min(step, capacity - made)
        if made + room >= Self.inlineBytes { step = Swift.min(2 * step, Self.largestStep) }
        let outcome: Progress
        var count = 0
        if room == 0 {
            outcome = .handedOver
        } else {
            do {
                let (n, ended) = try s.inflateLog(into: bytes + made, max: room)
                count = n
                if ended && s.availableInput > 0 {
                    memberEnded = true
                    outcome = .handedOver
                } else if ended {
                    outcome = .finished
                } else if n == 0 && s.availableInput == 0 {
                    outcome = .failed(.gzip("unexpected end of file"))
                } else {
                    outcome = .running
                }
            } catch {
                outcome = .failed(error)
            }
        }
        condition.lock()
        made += count
        progress = outcome
        condition.broadcast()
        condition.unlock()
        if case .running = outcome { return true }
        return false
    }

    /// Waits (or, without a thread or before it starts, inflates) until more than `count` bytes
    /// are out or the inflation stops: the bytes out and how it stands.
    func published(beyond count: Int) -> (count: Int, progress: Progress) {
        if threaded && !asked {
            // No other thread touches the stream yet. The first round's bytes, inflated here,
            // are out sooner than from a thread started with the reader (docs/logs.md#gzip).
            // A thread takes over only if more is to come (the end, a failure or a hand-over
            // is left as it stands).
            asked = true
            while made < Self.inlineBytes, case .running = progress, advance() {}
            if case .running = progress { startThread() }
        }
        if !threaded {
            while true {
                condition.lock()
                let now = (made, progress)
                condition.unlock()
                guard now.0 <= count, case .running = now.1 else { return now }
                _ = advance()
            }
        }
        condition.lock()
        defer { condition.unlock() }
        while made <= count, case .running = progress { condition.wait() }
        return (made, progress)
    }

    /// Once handed over: the stream (mid-member, or at a member's end) to go on as a stream
    /// read does, and the compressed input when it is ours (its ownership passes to the
    /// caller; else nil, and the caller keeps the input it gave).
    func takeStream() -> (stream: GzipStream, ownedInput: UnsafeMutablePointer<UInt8>?, memberEnded: Bool)? {
        stop()
        guard let s = stream else { return nil }
        stream = nil
        let owned = ownsInput ? input : nil
        input = nil
        return (s, owned, memberEnded)
    }
}
