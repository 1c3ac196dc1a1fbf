import Foundation

/// Writes output under a temporary name next to the target and renames it on
/// success, so a failed run never leaves partial output under the final name (docs/errors.md).
public enum AtomicFile {
    /// Writes `text` as UTF-8 (see `write(_:to:)` for bytes).
    /// - Throws: `GeofenceError.output` with the path, the failed step and its errno.
    /// - Complexity: O(n) in the byte count.
    public static func write(_ text: String, to path: String) throws(GeofenceError) {
        try write(Array(text.utf8), to: path)
    }

    /// Writes `bytes` to `path` through a temporary file renamed into place (in place for a
    /// device or FIFO).
    /// - Throws: `GeofenceError.output` with the path, the failed step and its errno.
    /// - Complexity: O(n) in the byte count.
    public static func write(_ bytes: [UInt8], to path: String) throws(GeofenceError) {
        if !isRegularOrAbsent(path) {
            // A device, FIFO or socket (/dev/null, /dev/stdout, a pipe): write in place, never rename over it.
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .output(OutputError(path: path, .create, errno: errno)) }
            defer { close(fd) }
            try writeAll(fd, bytes, path: path)
            return
        }
        let tmp = temporaryPath(for: path)
        TemporaryFiles.shared.add(tmp)
        defer { TemporaryFiles.shared.remove(tmp) }
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .output(OutputError(path: path, .create, errno: errno)) }
        do {
            try writeAll(fd, bytes, path: path)
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        guard close(fd) == 0 else {
            let e = errno
            unlink(tmp)
            throw .output(OutputError(path: path, .close, errno: e))
        }
        try commit(tmp, to: path)
    }

    /// Writes every byte to `fd`, retrying on EINTR and short writes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(GeofenceError) {
        let e = bytes.withUnsafeBytes { writeAll(fd, $0) }
        if e != 0 { throw .output(OutputError(path: path, .write, errno: e)) }
    }

    /// Writes every byte of `buffer` to `fd`, retrying on EINTR and short writes; returns 0,
    /// or the errno of the write that failed.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        var done = 0
        while done < buffer.count {
            // returns the byte count written, or -1 with errno
            let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return 0
    }

    /// An output written under its temporary name and not yet renamed: a run stages all its
    /// outputs, then commits them together, so a failure in any leaves none under its final name.
    public struct StagedFile {
        /// The final path.
        public let path: String
        let tmp: String?
        /// Bytes to write in place at commit (a device or FIFO target, which is never renamed over).
        let inPlace: [UInt8]?

        /// A file already written under the temporary name `staged` (registered with
        /// ``TemporaryFiles``), to be renamed to `path` at commit.
        package init(path: String, staged: String) { self.path = path; tmp = staged; inPlace = nil }

        init(path: String, tmp: String?, inPlace: [UInt8]?) { self.path = path; self.tmp = tmp; self.inPlace = inPlace }

        /// Whether the output is a device or FIFO, written in place at commit (and so able to
        /// fail then, as a rename hardly can): commit these before the renamed ones.
        public var writesInPlace: Bool { inPlace != nil }

        /// Renames the file into place (writes it, for a device or FIFO).
        /// - Throws: `GeofenceError.output` when the rename or the write fails.
        public func commit() throws(GeofenceError) {
            if let inPlace { try MappedRegion.checkAll(); try AtomicFile.write(inPlace, to: path); return }
            guard let tmp else { return }
            defer { TemporaryFiles.shared.remove(tmp) }
            try AtomicFile.commit(tmp, to: path)
        }

        /// Removes the temporary file (after another output failed).
        public func abandon() {
            guard let tmp else { return }
            unlink(tmp)
            TemporaryFiles.shared.remove(tmp)
        }
    }

    /// Writes `bytes` under the temporary name of `path`, to be committed later.
    /// - Throws: `GeofenceError.output` when the temporary file cannot be written.
    public static func stage(_ bytes: [UInt8], to path: String) throws(GeofenceError) -> StagedFile {
        if !isRegularOrAbsent(path) { return StagedFile(path: path, tmp: nil, inPlace: bytes) }
        let tmp = temporaryPath(for: path)
        TemporaryFiles.shared.add(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            TemporaryFiles.shared.remove(tmp)
            throw .output(OutputError(path: path, .create, errno: errno))
        }
        let failure: GeofenceError?
        do { try writeAll(fd, bytes, path: path); failure = nil } catch { failure = error }
        let closed = close(fd) == 0 ? 0 : errno
        if failure != nil || closed != 0 {
            unlink(tmp)
            TemporaryFiles.shared.remove(tmp)
            throw failure ?? .output(OutputError(path: path, .close, errno: closed))
        }
        return StagedFile(path: path, tmp: tmp, inPlace: nil)
    }

    /// Whether `path` is a regular file or does not exist yet (only then is temporary-name-and-rename used).
    public static func isRegularOrAbsent(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return true }
        return (st.st_mode & S_IFMT) == S_IFREG
    }

    /// A unique temporary path in the same directory as `path` (same file system, so rename is atomic).
    public static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        return dir + "/." + url.lastPathComponent + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// Renames the finished temporary file `tmp` over `path` (removing `tmp` when that fails).
    /// - Throws: `GeofenceError.output` (operation `.rename`) with the errno of rename(2).
    ///   `GeofenceError.input` (the temporary file removed) when a file mapped in place shrank
    ///   while in use (``MappedRegion/checkAll()``): what was computed from it is not kept.
    public static func commit(_ tmp: String, to path: String) throws(GeofenceError) {
        do { try MappedRegion.checkAll() } catch { unlink(tmp); throw error }
        guard rename(tmp, path) == 0 else {
            let e = errno
            unlink(tmp)
            throw .output(OutputError(path: path, .rename, errno: e))
        }
    }
}
