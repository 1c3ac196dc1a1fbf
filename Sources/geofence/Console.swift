import Foundation
import GeofenceKit

/// Standard output and standard error without traps (`FileHandle.write(_: Data)` traps on
/// EPIPE or ENOSPC): a failed write to standard output ends the command with an I/O error
/// (exit 74); a failed write to standard error is remembered and turns a successful exit
/// into 74 (docs/errors.md).
enum Console {
    /// Set when a write to standard error failed.
    nonisolated(unsafe) static var stderrFailed = false

    /// Writes `text` to standard output.
    /// - Throws: `CommandError.library(.output)` with the errno when the write fails.
    static func out(_ text: String) throws(CommandError) {
        var t = text
        let e = t.withUTF8 { AtomicFile.writeAll(1, UnsafeRawBufferPointer($0)) }
        if e != 0 { throw .library(.output(OutputError(path: "stdout", .write, errno: e))) }
    }

    /// Set by `-q/--quiet`: `note` writes nothing and `showsProgress` is false.
    nonisolated(unsafe) static var quiet = false

    /// Whether progress lines go to stderr: it is a terminal and the command is not quiet.
    static var showsProgress: Bool { !quiet && isatty(2) != 0 }

    /// Writes a non-data message (a summary, a count, a note) to standard error, unless quiet.
    static func note(_ text: String) {
        if !quiet { err(text) }
    }

    /// Writes `text` to standard error (a failure is remembered, see `stderrFailed`).
    static func err(_ text: String) {
        var t = text
        if t.withUTF8({ AtomicFile.writeAll(2, UnsafeRawBufferPointer($0)) }) != 0 { stderrFailed = true }
    }
}
