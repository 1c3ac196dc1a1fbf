import Foundation
import Synchronization
import GeofenceBase

extension FenceLoader {
    /// Inputs that can be read only once (standard input, a FIFO or pipe such as `<(zcat f)`),
    /// by path, as read the first time: a command may load its fences twice (for the index,
    /// then again for their properties).
    private static let readOnce = Mutex<[String: [UInt8]]>([:])

    /// Whether `path` is `-` or names something other than a regular file or directory.
    static func isReadOnce(_ path: String) -> Bool {
        if path == "-" { return true }
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let kind = st.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// The bytes of standard input.
    private static func readStandardInput() throws(GeofenceError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { return bytes }
            if errno == EINTR { continue }
            let e = errno
            throw .input(InputError(SourceLocation(file: "<stdin>"), .readFailed(errno: e), "cannot read fences from standard input: \(String(cString: strerror(e)))"))
        }
    }

    /// The raw bytes of `path` (`-`: standard input); read-once inputs come from the cache
    /// after the first read.
    private static func rawInput(_ path: String) throws(GeofenceError) -> [UInt8] {
        guard isReadOnce(path) else { return try readFile(path, what: "fences file") }
        if let cached = readOnce.withLock({ $0[path] }) { return cached }
        let bytes = path == "-" ? try readStandardInput() : try readFile(path, what: "fences file")
        readOnce.withLock { $0[path] = bytes }
        return bytes
    }

    /// `path` without a trailing `.gz` (any case), for the format by extension.
    static func withoutGzipSuffix(_ path: String) -> String {
        path.lowercased().hasSuffix(".gz") ? String(path.dropLast(3)) : path
    }

    /// The bytes of `-` (standard input) or of a file, decompressed when they are gzip (by
    /// magic bytes, docs/fences.md#compressed-files-and-standard-input).
    /// - Throws: ``GeofenceError/input(_:)`` as `readFile`, or malformed for a corrupt gzip stream.
    static func textInput(_ path: String) throws(GeofenceError) -> [UInt8] {
        let raw = try rawInput(path)
        guard raw.count >= 2, raw[0] == 0x1F, raw[1] == 0x8B else { return raw }
        return try gunzip(raw, name: path == "-" ? "<stdin>" : path)
    }

    /// The decompressed content of a gzip stream (several members are concatenated).
    /// - Throws: malformed, naming the file, when the stream is corrupt or cut short.
    static func gunzip(_ input: [UInt8], name: String) throws(GeofenceError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 4)
        let chunk = 1 << 16
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        defer { buffer.deallocate() }
        var failure: String?
        let stream = GzipStream()
        input.withUnsafeBufferPointer { inBuf in
            // The input in pieces of at most 1 GiB (the stream counts its input in 32 bits).
            let base = UnsafeMutablePointer(mutating: inBuf.baseAddress!)
            var given = 0
            func feed() -> Bool {
                guard given < inBuf.count else { return false }
                let n = Swift.min(inBuf.count - given, 1 << 30)
                stream.setInput(base + given, n)
                given += n
                return true
            }
            _ = feed()
            while true {
                let step: (count: Int, memberEnded: Bool)
                do throws(GzipError) {
                    step = try stream.inflate(into: buffer, max: chunk)
                } catch {
                    failure = "corrupt gzip data (\(error.message))"
                    return
                }
                out.append(contentsOf: UnsafeBufferPointer(start: buffer, count: step.count))
                if step.memberEnded {
                    // Another member may follow.
                    if stream.availableInput == 0 && !feed() { return }
                    stream.nextMember()
                    continue
                }
                if step.count == 0 && stream.availableInput == 0 && !feed() { failure = "gzip stream is truncated"; return }
            }
        }
        if let failure { throw .malformed(SourceLocation(file: name), failure) }
        return out
    }
}
