import Foundation

/// Where text output goes.
public protocol TextSink {
    /// Appends `s`.
    /// - Throws: `GeofenceError.output` when the write fails.
    mutating func write(_ s: String) throws(GeofenceError)
}

/// Text output to a file, written under a temporary name in the same directory and
/// renamed by `finish()` (so a failed run leaves nothing under the final name), or to
/// standard output, or in place to a device or FIFO (`/dev/null`, a pipe), which a
/// rename would replace. See docs/errors.md for the temporary names.
public struct FileSink: TextSink {
    let fd: Int32
    /// The final path (nil for standard output or in-place writes).
    let path: String?
    /// The name shown in errors.
    let shownPath: String
    let tmp: String?

    /// The temporary file written until `finish()` renames it (nil for standard output and
    /// in-place writes), for callers that remove it when the process is stopped.
    public var temporaryPath: String? { tmp }

    /// Opens the sink; a `nil` or `-` path means standard output.
    /// - Throws: `GeofenceError.output` when the file cannot be created.
    public init(path: String?) throws(GeofenceError) {
        guard let path, path != "-" else {
            fd = 1; self.path = nil; shownPath = "stdout"; tmp = nil
            return
        }
        shownPath = path
        if !AtomicFile.isRegularOrAbsent(path) {
            // /dev/null, /dev/stdout, a FIFO: write in place; renaming over a device would replace it.
            let f = open(path, O_WRONLY | O_CLOEXEC)
            guard f >= 0 else { throw .output(OutputError(path: path, .create, errno: errno)) }
            fd = f; self.path = nil; tmp = nil
            return
        }
        let t = AtomicFile.temporaryPath(for: path)
        TemporaryFiles.shared.add(t)
        let f = open(t, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard f >= 0 else { throw .output(OutputError(path: path, .create, errno: errno)) }
        fd = f; self.path = path; tmp = t
    }

    /// Writes `s` whole.
    /// - Throws: `GeofenceError.output` with the errno of the failed write.
    /// - Complexity: O(n) in the UTF-8 length of `s`.
    public mutating func write(_ s: String) throws(GeofenceError) {
        var s = s
        let fd = self.fd
        let failed = s.withUTF8 { AtomicFile.writeAll(fd, UnsafeRawBufferPointer($0)) }
        if failed != 0 { throw .output(OutputError(path: shownPath, .write, errno: failed)) }
    }

    /// Writes `bytes` whole.
    /// - Throws: `GeofenceError.output` with the errno of the failed write.
    /// - Complexity: O(n) in the byte count.
    public mutating func write(bytes: UnsafeRawBufferPointer) throws(GeofenceError) {
        let failed = AtomicFile.writeAll(fd, bytes)
        if failed != 0 { throw .output(OutputError(path: shownPath, .write, errno: failed)) }
    }

    /// Closes the file and renames it into place (nothing for standard output).
    /// - Throws: `GeofenceError.output` when closing or renaming fails (the temporary file is removed).
    public func finish() throws(GeofenceError) {
        guard fd != 1 else { return }
        guard close(fd) == 0 else {
            let e = errno
            if let tmp { unlink(tmp) }
            throw .output(OutputError(path: shownPath, .close, errno: e))
        }
        guard let path, let tmp else { return }
        defer { TemporaryFiles.shared.remove(tmp) }
        try AtomicFile.commit(tmp, to: path)
    }

    /// Closes and removes the temporary file after a failure.
    public func abandon() {
        guard fd != 1 else { return }
        close(fd)
        if let tmp { unlink(tmp); TemporaryFiles.shared.remove(tmp) }
    }
}
