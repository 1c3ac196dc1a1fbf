import Foundation

/// Reads a whole file; failures are `GeofenceError.input` with the errno.
package func readFile(_ path: String, what: String) throws(GeofenceError) -> [UInt8] {
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
        throw .input(InputError(SourceLocation(file: path), .notFound, "\(what) not found"))
    }
    guard !isDir.boolValue else { throw .input(InputError(SourceLocation(file: path), .notAFile, "is a directory, expected a \(what)")) }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
        let e = errno
        throw .input(InputError(SourceLocation(file: path), .cannotOpen(errno: e), "cannot open \(what): \(String(cString: strerror(e)))"))
    }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var st = stat()
    if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG { bytes.reserveCapacity(Int(st.st_size)) }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        // returns the byte count, 0 at end of file, -1 with errno
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n > 0 { bytes.append(contentsOf: chunk[0..<n]); continue }
        if n == 0 { break }
        if errno == EINTR { continue }
        let e = errno
        throw .input(InputError(SourceLocation(file: path), .readFailed(errno: e), "cannot read \(what): \(String(cString: strerror(e)))"))
    }
    return bytes
}
