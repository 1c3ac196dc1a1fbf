import Dispatch
import Synchronization

/// Something done once, by one thread, that others wait for or check without waiting.
///
/// Checking reads an atomic flag. (A `DispatchSemaphore` waited on with a timeout of now is
/// no check on Linux: when it is not signalled the thread sleeps for the kernel's timer slack,
/// about 50 µs, which a reader polling the chunks of a round would pay at every poll.)
package final class Completion: Sendable {
    private let flag = Atomic<Bool>(false)
    private let semaphore = DispatchSemaphore(value: 0)

    package init() {}

    /// Marks it done and wakes the waiters. Once.
    package func signal() {
        flag.store(true, ordering: .releasing)
        semaphore.signal()
    }

    /// Whether it is done (what was written before ``signal()`` may then be read).
    package var isDone: Bool { flag.load(ordering: .acquiring) }

    /// Returns once it is done: checks for ``WorkTeam/spinNanoseconds`` first, then sleeps (a
    /// chunk being parsed is mostly done within that, and a thread put to sleep waits for the
    /// scheduler to wake it, docs/architecture.md#the-work-team).
    package func wait() {
        if WorkTeam.spin(until: { isDone }) { return }
        semaphore.wait()
        // Raised again for the next waiter.
        semaphore.signal()
    }
}
