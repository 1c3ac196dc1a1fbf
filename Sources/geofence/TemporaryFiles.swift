import Dispatch
import Foundation

/// The temporary files of a running command (outputs not yet renamed into place, spill
/// runs), removed when SIGINT or SIGTERM stops it (docs/errors.md#atomic-output): the
/// signals are received by a dispatch source, not in a signal handler, so the cleanup
/// may take locks and allocate. A SIGKILL can leave files behind; they are named
/// `.NAME.tmp-PID` and `.NAME.spill-PID-N` next to the output.
final class TemporaryFiles: @unchecked Sendable {
    static let shared = TemporaryFiles()

    private let lock = NSLock()
    private var paths: Set<String> = []
    private var sources: [DispatchSourceSignal] = []

    /// Installs the SIGINT/SIGTERM handling (once; later calls do nothing).
    func installSignalHandling() {
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

    /// Registers a path to remove if the command is stopped.
    func add(_ path: String) {
        lock.lock(); paths.insert(path); lock.unlock()
    }

    /// Forgets a path (renamed into place or already removed).
    func remove(_ path: String) {
        lock.lock(); paths.remove(path); lock.unlock()
    }

    /// Removes every registered file.
    func removeAll() {
        lock.lock()
        let all = paths
        paths.removeAll()
        lock.unlock()
        for p in all { unlink(p) }
    }
}
