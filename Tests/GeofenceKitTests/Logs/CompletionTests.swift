import Dispatch
import XCTest
import GeofenceBase

/// `Completion`, the signal the parallel reader's chunks and the gzip members ahead use: not
/// done until signalled, done for every later check, and every waiter, however many and
/// whenever it comes, returns once it is signalled and sees what was written before.
final class CompletionTests: XCTestCase {
    final class Box: @unchecked Sendable { var value = 0 }

    func testEveryWaiterReturnsOnceAndSeesTheWrite() {
        for _ in 0..<50 {
            let done = Completion(), box = Box()
            XCTAssertFalse(done.isDone)
            let waiters = DispatchGroup()
            let results = UnsafeMutablePointer<Int>.allocate(capacity: 4)
            results.initialize(repeating: -1, count: 4)
            defer { results.deallocate() }
            let shared = UnsafeShared(base: results)
            for k in 0..<4 {
                DispatchQueue.global().async(group: waiters) {
                    done.wait()
                    shared.base[k] = box.value
                }
            }
            DispatchQueue.global().async {
                box.value = 42
                done.signal()
            }
            // A deadlock guard, not a timing: the waiters return as soon as the signal comes.
            XCTAssertEqual(waiters.wait(timeout: .now() + 30), .success, "a waiter never returned")
            XCTAssertEqual(Array(UnsafeBufferPointer(start: results, count: 4)), [42, 42, 42, 42])
            XCTAssertTrue(done.isDone)
            done.wait()                                 // done already: returns at once
            XCTAssertTrue(done.isDone)
        }
    }

    func testPollingDoesNotConsumeTheSignal() {
        let done = Completion()
        for _ in 0..<3 { XCTAssertFalse(done.isDone) }
        done.signal()
        for _ in 0..<3 { XCTAssertTrue(done.isDone) }
        let late = DispatchGroup()
        for _ in 0..<3 { DispatchQueue.global().async(group: late) { done.wait() } }
        XCTAssertEqual(late.wait(timeout: .now() + 30), .success, "a waiter after the signal never returned")
    }
}
