import Dispatch
import Glibc
import Synchronization
import XCTest
@testable import GeofenceBase

/// The threads that parse a log's rounds and evaluate a batch's slices (docs/architecture.md#the-work-team).
final class WorkTeamTests: XCTestCase {
    /// Calls per index, behind a pthread mutex (which ThreadSanitizer follows).
    final class Calls: @unchecked Sendable {
        private var counts: [Int]
        private let lock: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
        init(_ n: Int) {
            counts = [Int](repeating: 0, count: n)
            lock.initialize(to: pthread_mutex_t())
            pthread_mutex_init(lock, nil)
        }
        deinit {
            pthread_mutex_destroy(lock)
            lock.deallocate()
        }
        func add(_ k: Int) {
            pthread_mutex_lock(lock)
            counts[k] += 1
            pthread_mutex_unlock(lock)
        }
        var all: [Int] {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            return counts
        }
    }

    /// Every index is called exactly once, whatever the count and however the helpers start.
    func testConcurrentPerformCallsEveryIndexOnce() {
        for round in 0..<300 {
            let n = 1 + round % 9
            let calls = Calls(n)
            WorkTeam.shared.concurrentPerform(iterations: n) { k in
                calls.add(k)
                if round % 7 == 0 { usleep(50) }             // helpers that take longer than the caller
            }
            XCTAssertEqual(calls.all, [Int](repeating: 1, count: n), "round \(round)")
        }
        var none = 0
        WorkTeam.shared.concurrentPerform(iterations: 0) { _ in none += 1 }
        XCTAssertEqual(none, 0)
    }

    /// What the calls write is there when concurrentPerform returns (each writes its own slot).
    func testConcurrentPerformReturnsAfterEveryCall() {
        for _ in 0..<100 {
            let n = 4
            let out = UnsafeMutablePointer<Int>.allocate(capacity: n)
            out.initialize(repeating: 0, count: n)
            let shared = UnsafeShared(base: out)
            WorkTeam.shared.concurrentPerform(iterations: n) { k in
                var s = 0
                for i in 0..<20_000 { s &+= i &* (k + 1) }
                shared.base[k] = s
            }
            for k in 0..<n { XCTAssertEqual(out[k], (0..<20_000).reduce(0) { $0 &+ $1 &* (k + 1) }) }
            out.deallocate()
        }
    }

    /// Tasks all run, in bursts and after the team has gone to sleep (longer than it looks for
    /// work), and the team starts no more threads than its limit.
    func testTasksRunAfterTheTeamSleeps() {
        let team = WorkTeam.shared
        for burst in 0..<4 {
            let count = 200
            let ran = Atomic<Int>(0)
            let done = DispatchSemaphore(value: 0)
            for _ in 0..<count {
                team.async {
                    if ran.wrappingAdd(1, ordering: .relaxed).newValue == count { done.signal() }
                }
            }
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "burst \(burst): \(ran.load(ordering: .relaxed)) of \(count) tasks ran")
            XCTAssertLessThanOrEqual(team.threads, team.limit)
            usleep(UInt32(3 * WorkTeam.spinNanoseconds / 1000))    // the team's threads are asleep now
        }
    }

    /// The body, and what it captured, are let go of before concurrentPerform returns, even
    /// while its helpers' tasks still wait for a thread (every team thread busy): a body that
    /// captures a closure made escapable for the call (`withoutActuallyEscaping`, as the event
    /// writer's does) would otherwise stop the process as that block ends.
    func testBodyLetGoBeforeReturn() {
        let team = WorkTeam.shared
        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        for _ in 0..<team.limit {
            team.async {
                started.signal()
                _ = gate.wait(timeout: .now() + 60)
            }
        }
        for _ in 0..<team.limit { started.wait() }
        let total = Atomic<Int>(0)
        let double: (Int) -> Int = { 2 * $0 }
        withoutActuallyEscaping(double) { double in
            team.concurrentPerform(iterations: 4) { k in total.wrappingAdd(double(k), ordering: .relaxed) }
        }
        for _ in 0..<team.limit { gate.signal() }
        XCTAssertEqual(total.load(ordering: .relaxed), 12)
    }

    /// A task may itself spread work over the team (the caller takes every index no helper takes).
    func testNestedConcurrentPerform() {
        let total = Atomic<Int>(0)
        WorkTeam.shared.concurrentPerform(iterations: 3) { _ in
            WorkTeam.shared.concurrentPerform(iterations: 3) { _ in total.wrappingAdd(1, ordering: .relaxed) }
        }
        XCTAssertEqual(total.load(ordering: .relaxed), 9)
    }
}
