import Dispatch
import Foundation

/// The process's temporary files (outputs not yet renamed into place, spill runs): every
/// writer in the library registers what it creates and forgets it once renamed or deleted;
/// a program that calls `installSignalHandling()` has them removed when SIGINT or SIGTERM
/// stops it (docs/errors.md#atomic-output). The signals are received by a dispatch source,
/// not in a signal handler, so the cleanup may take locks and allocate. A SIGKILL can leave
/// files behind; they are named `.NAME.tmp-PID`, `.NAME.spill-PID-N` and
/// `.NAME.staging-PID` next to the output.
package final class TemporaryFiles: @unchecked Sendable {
    /// The process-wide registry.
    package static let shared = TemporaryFiles()

    private let lock = NSLock()
    private var paths: Set<String> = []
    /// Set once a signal's cleanup has begun: no new file may be registered after it.
    private var stopping = false
    private var sources: [DispatchSourceSignal] = []

    /// Installs the SIGINT/SIGTERM handling (once; later calls do nothing).
    package func installSignalHandling() {
        lock.lock()
        defer { lock.unlock() }
        guard sources.isEmpty else { return }
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [unowned self] in
                self.removeAll()
                // The conventional status of a process ended by a signal.
                exit(128 + sig)
            }
            s.resume()
            sources.append(s)
        }
    }

    /// Registers a path to remove if the command is stopped. Call it before creating the
    /// file. Once a signal's cleanup has begun, the calling thread is parked here until the
    /// process exits, so a file is never created after the cleanup took its list.
    package func add(_ path: String) {
        lock.lock()
        if stopping {
            lock.unlock()
            while true { sleep(60) }
        }
        paths.insert(path)
        lock.unlock()
    }

    /// Forgets a path (renamed into place or already removed).
    package func remove(_ path: String) {
        lock.lock(); paths.remove(path); lock.unlock()
    }

    /// Removes every registered file; from then on `add` parks its caller (the process is
    /// about to exit).
    package func removeAll() {
        lock.lock()
        stopping = true
        let all = paths
        paths.removeAll()
        lock.unlock()
        for p in all {
            // A staging directory is removed with its contents; a file is unlinked.
            if (try? FileManager.default.removeItem(atPath: p)) == nil { unlink(p) }
        }
    }
}
