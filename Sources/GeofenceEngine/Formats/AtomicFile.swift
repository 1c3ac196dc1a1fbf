import Foundation

/// Writes output under a temporary name next to the target and renames it on
/// success, so a failed run never leaves partial output under the final name (DESIGN §6).
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(GeofenceError) {
        try write(Array(text.utf8), to: path)
    }

    public static func write(_ bytes: [UInt8], to path: String) throws(GeofenceError) {
        if !isRegularOrAbsent(path) {
            // A device, FIFO or socket (/dev/null, /dev/stdout, a pipe): write in place, never rename over it.
            guard let h = FileHandle(forWritingAtPath: path) else { throw .io("\(path): cannot open for writing") }
            do { try h.write(contentsOf: Data(bytes)); try h.close() } catch { throw .io("\(path): write failed: \(error.localizedDescription)") }
            return
        }
        let tmp = temporaryPath(for: path)
        let ok = FileManager.default.createFile(atPath: tmp, contents: Data(bytes))
        guard ok else { throw .io("\(path): cannot write (check the directory exists and is writable)") }
        try commit(tmp, to: path)
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

    public static func commit(_ tmp: String, to path: String) throws(GeofenceError) {
        guard rename(tmp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw .io("\(path): cannot rename temporary output into place: \(reason)")
        }
    }
}
