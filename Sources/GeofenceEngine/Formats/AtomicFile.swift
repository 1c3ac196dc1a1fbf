import Foundation

/// Writes output under a temporary name next to the target and renames it on
/// success, so a failed run never leaves partial output under the final name (DESIGN §6).
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(GeofenceError) {
        try write(Array(text.utf8), to: path)
    }

    public static func write(_ bytes: [UInt8], to path: String) throws(GeofenceError) {
        let tmp = temporaryPath(for: path)
        let ok = FileManager.default.createFile(atPath: tmp, contents: Data(bytes))
        guard ok else { throw .io("\(path): cannot write (check the directory exists and is writable)") }
        try commit(tmp, to: path)
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
