import Dispatch
import Glibc
import Synchronization

/// The threads that do a run's parallel work: a log's rounds parsed in the background and a
/// batch evaluated in slices (docs/architecture.md#the-work-team).
///
/// A thread that runs out of work keeps looking for more for ``spinNanoseconds`` before it
/// sleeps, and a caller waiting for its helpers looks as long before it sleeps: work handed
/// out within that time starts at once, with no thread woken. Parallel work here comes in
/// steps a millisecond or two apart (a round parsed, a batch's queries, its state machines),
/// and a sleeping thread woken for each step waited for the system's scheduler every time
/// (docs/architecture.md#the-work-team has the figures). Threads are started as the work needs
/// them and kept for the life of the process.
package final class WorkTeam: @unchecked Sendable {
    /// The team every run shares.
    package static let shared = WorkTeam()

    /// How long a thread out of work, or a caller waiting for its helpers, looks for work or
    /// for the helpers' end before it sleeps.
    package static let spinNanoseconds = 1_000_000

    /// Guards everything below but the atomics (a pthread mutex, which ThreadSanitizer follows).
    private let lock: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let wake: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    /// Tasks not taken yet, oldest first from `head`.
    private var tasks: [@Sendable () -> Void] = []
    private var head = 0
    /// Tasks not taken yet, read without the lock by the threads looking for work.
    private let waiting = Atomic<Int>(0)
    /// Threads looking for work without sleeping, and threads asleep.
    private var looking = 0, sleeping = 0
    /// Threads started.
    package private(set) var threads = 0
    /// The most threads the team starts: one fewer than the processors, since the thread that
    /// hands out the work takes part in it (a thread looking for work would otherwise take a
    /// processor from one with work to do).
    let limit = Swift.max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)) - 1)

    init() {
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        wake.initialize(to: pthread_cond_t())
        pthread_cond_init(wake, nil)
    }

    /// Runs `task` on a thread of the team: one looking for work takes it at once, else a
    /// sleeping one is woken, else a thread is started, else it waits for a thread to be done
    /// with the tasks before it. A task must not wait for another task: it might wait forever.
    package func async(_ task: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(lock)
        tasks.append(task)
        let queued = waiting.wrappingAdd(1, ordering: .releasing).newValue
        if queued > looking {
            if sleeping > 0 {
                pthread_cond_signal(wake)
            } else if threads < limit {
                start()
            }
        }
        pthread_mutex_unlock(lock)
    }

    /// Runs `body` for each of `0 ..< iterations`, once each, on the calling thread and up to
    /// `iterations - 1` threads of the team (at most ``limit``), and returns when every call has
    /// returned. As `DispatchQueue.concurrentPerform`, the calls take the indices in turn: a
    /// helper that starts late finds fewer (or none) left, and the caller alone does all of them
    /// if no helper starts.
    package func concurrentPerform(iterations: Int, _ body: (Int) -> Void) {
        if iterations <= 1 {
            if iterations == 1 { body(0) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let apply = Apply(iterations, body)
            for _ in 0..<Swift.min(iterations - 1, limit) { async { apply.help() } }
            apply.help()
            apply.waitAll()
            // Every call has returned, and with it every reference a call took to the body
            // (``Apply/call(_:)``): a helper that starts later finds no index and never reads
            // it, so the body (and whatever it captured) is let go of here, not after the return.
            apply.body = nil
        }
    }

    /// Starts one more thread (the lock held).
    private func start() {
        threads += 1
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let made = pthread_create(&thread, nil, { context in
            let team = Unmanaged<WorkTeam>.fromOpaque(context!).takeRetainedValue()
            team.work()
            return nil
        }, context)
        if made == 0 {
            pthread_detach(thread)
        } else {
            // No thread: the task waits for one of the others (and a caller of
            // concurrentPerform does every index itself).
            threads -= 1
            Unmanaged<WorkTeam>.fromOpaque(context).release()
        }
    }

    /// A team thread: takes tasks as long as there are some, looks for more for
    /// ``spinNanoseconds``, then sleeps until woken.
    private func work() -> Never {
        pthread_mutex_lock(lock)
        while true {
            if head < tasks.count {
                let task = tasks[head]
                head += 1
                if head == tasks.count {
                    tasks.removeAll(keepingCapacity: true)
                    head = 0
                }
                waiting.wrappingSubtract(1, ordering: .relaxed)
                pthread_mutex_unlock(lock)
                task()
                pthread_mutex_lock(lock)
                continue
            }
            looking += 1
            pthread_mutex_unlock(lock)
            _ = WorkTeam.spin { waiting.load(ordering: .acquiring) > 0 }
            pthread_mutex_lock(lock)
            looking -= 1
            if head < tasks.count { continue }
            sleeping += 1
            pthread_cond_wait(wake, lock)
            sleeping -= 1
        }
    }

    /// Whether `done` became true within ``spinNanoseconds``, checking it between yields of
    /// the processor (another thread ready to run on it runs meanwhile).
    package static func spin(until done: () -> Bool) -> Bool {
        if done() { return true }
        let start = DispatchTime.now().uptimeNanoseconds
        while true {
            for _ in 0..<16 {
                if done() { return true }
                sched_yield()
            }
            if DispatchTime.now().uptimeNanoseconds - start > UInt64(spinNanoseconds) { return done() }
        }
    }

    /// The calls of one ``concurrentPerform(iterations:_:)``.
    private final class Apply: @unchecked Sendable {
        let count: Int
        /// The body while any call may still take an index.
        var body: ((Int) -> Void)?
        let next = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let done = Completion()

        init(_ count: Int, _ body: @escaping (Int) -> Void) {
            self.count = count
            self.body = body
        }

        /// Calls the body for indices no thread has taken, until none is left.
        func help() {
            while true {
                let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard k < count else { return }
                call(k)
                if finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == count { done.signal() }
            }
        }

        /// The body's call for `k`, in a function of its own so that the reference it takes to
        /// the body is released before it returns, before the call is counted as finished.
        @inline(never)
        func call(_ k: Int) {
            body!(k)
        }

        /// Returns once every index's call has returned (looking before it sleeps, ``Completion/wait()``).
        func waitAll() {
            done.wait()
        }
    }
}
