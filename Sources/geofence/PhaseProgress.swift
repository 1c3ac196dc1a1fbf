import Foundation
import Synchronization

/// A progress line on stderr for work that reports no fraction (loading fences, the phases of
/// `simulate`): the current phase and the seconds spent in the command so far, redrawn twice
/// a second while stderr is a terminal and the command is not `--quiet`; `finish()` clears it.
/// Silent otherwise, so redirected stderr and tests see nothing.
/// `@unchecked Sendable`: the timer is created, cancelled and released by the owning thread;
/// what the timer's handler reads and writes is behind the mutex.
final class PhaseProgress: @unchecked Sendable {
    private let prefix: String
    private let start = DispatchTime.now()
    private let state = Mutex<(phase: String, shown: Bool, done: Bool)>(("", false, false))
    private let timer: DispatchSourceTimer?

    /// Starts the line for `command` (`geofence <command>: <phase>, <n> s`), if progress is shown.
    init(command: String, enabled: Bool = Console.showsProgress) {
        prefix = "geofence \(command): "
        guard enabled else { timer = nil; return }
        let t = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer = t
        t.schedule(deadline: .now() + 0.5, repeating: 0.5)
        t.setEventHandler { [weak self] in self?.draw() }
        t.resume()
    }

    /// Sets the phase shown (drawn at once).
    func phase(_ text: String) {
        guard timer != nil else { return }
        state.withLock { $0.phase = text }
        draw()
    }

    private func draw() {
        let secs = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        state.withLock { s in
            guard !s.done, !s.phase.isEmpty else { return }
            Console.err("\r" + prefix + s.phase + String(format: ", %.0f s", secs) + "\u{1B}[K")
            s.shown = true
        }
    }

    /// Stops the line and clears it.
    func finish() {
        timer?.cancel()
        state.withLock { s in
            if s.shown && !s.done { Console.err("\r\u{1B}[K") }
            s.done = true
        }
    }

    deinit { timer?.cancel() }
}
