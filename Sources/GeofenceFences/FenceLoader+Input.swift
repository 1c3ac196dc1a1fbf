import CZlib
import Foundation
import GeofenceBase

extension FenceLoader {
    /// Standard input, read once for the whole process (a command may load its fences twice:
    /// for the index and again for their properties), or the error reading it.
    private static let standardInput: Result<[UInt8], GeofenceError> = {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { return .success(bytes) }
            if errno == EINTR { continue }
            let e = errno
            return .failure(.input(InputError(SourceLocation(file: "<stdin>"), .readFailed(errno: e), "cannot read fences from standard input: \(String(cString: strerror(e)))")))
        }
    }()

    /// Whether the file starts with the gzip magic bytes `1f 8b`.
    static func isGzip(path: String) -> Bool {
        let h = head(path)
        return h.count >= 2 && h[0] == 0x1F && h[1] == 0x8B
    }

    /// `path` without a trailing `.gz` (any case), for the format by extension.
    static func withoutGzipSuffix(_ path: String) -> String {
        path.lowercased().hasSuffix(".gz") ? String(path.dropLast(3)) : path
    }

    /// The bytes of `-` (standard input) or of a file, decompressed when they are gzip (by
    /// magic bytes, docs/fences.md#compressed-files-and-standard-input).
    /// - Throws: ``GeofenceError/input(_:)`` as `readFile`, or malformed for a corrupt gzip stream.
    static func textInput(_ path: String) throws(GeofenceError) -> [UInt8] {
        let raw = path == "-" ? try standardInput.get() : try readFile(path, what: "fences file")
        guard raw.count >= 2, raw[0] == 0x1F, raw[1] == 0x8B else { return raw }
        return try gunzip(raw, name: path == "-" ? "<stdin>" : path)
    }

    /// The decompressed content of a gzip stream (several members are concatenated).
    /// - Throws: malformed, naming the file, when zlib reports an error or the stream is cut short.
    static func gunzip(_ input: [UInt8], name: String) throws(GeofenceError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 4)
        var stream = z_stream()
        // windowBits 15 + 32: a 32 KiB window, gzip or zlib header detected.
        guard czlib_inflateInit2(&stream, 15 + 32) == Z_OK else {
            throw .malformed(SourceLocation(file: name), "cannot start gzip decompression")
        }
        defer { inflateEnd(&stream) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var failure: String?
        input.withUnsafeBufferPointer { inBuf in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress!)
            stream.avail_in = UInt32(inBuf.count)
            while true {
                let (r, produced) = chunk.withUnsafeMutableBufferPointer { outBuf -> (Int32, Int) in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    let r = inflate(&stream, Z_NO_FLUSH)
                    return (r, outBuf.count - Int(stream.avail_out))
                }
                out.append(contentsOf: chunk[0..<produced])
                if r == Z_STREAM_END {
                    // Another member may follow.
                    if stream.avail_in == 0 { return }
                    guard inflateReset(&stream) == Z_OK else { failure = "cannot read the next gzip member"; return }
                    continue
                }
                if r == Z_BUF_ERROR && stream.avail_in == 0 { failure = "gzip stream is truncated"; return }
                guard r == Z_OK else {
                    failure = "corrupt gzip data (\(stream.msg.map { String(cString: $0) } ?? "zlib error \(r)"))"
                    return
                }
            }
        }
        if let failure { throw .malformed(SourceLocation(file: name), failure) }
        return out
    }
}
