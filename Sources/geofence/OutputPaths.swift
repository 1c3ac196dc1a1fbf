import Foundation
import GeofenceKit

/// Refuses two outputs of one run on the same file (`-o X --summary X` would overwrite the
/// events with the summary); standard output (`-` or absent) may be shared.
func distinctOutputs(_ command: String, _ outputs: [String: String?]) throws(CommandError) {
    var seen: [String: String] = [:]
    for (option, path) in outputs.sorted(by: { $0.key < $1.key }) {
        guard let path, path != "-" else { continue }
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        if let other = seen[key] {
            throw .usage("geofence \(command): options '\(other)' and '\(option)' name the same file '\(path)'")
        }
        seen[key] = option
    }
}

/// The files one run writes, staged under their temporary names (docs/errors.md#outputs) and
/// committed together once everything else, stdout included, has succeeded.
struct StagedOutputs {
    private var files: [AtomicFile.StagedFile] = []

    /// Writes `text` under the temporary name of `path`; nothing when `path` is nil.
    mutating func stage(_ text: String, to path: String?) throws {
        guard let path else { return }
        files.append(try AtomicFile.stage(Array(text.utf8), to: path))
    }

    /// Adds a file already staged (a GDAL format written under its temporary name).
    mutating func add(_ file: AtomicFile.StagedFile) { files.append(file) }

    /// Runs `body`, which stages the outputs and prints what goes to stdout, then renames every
    /// staged file into place. When anything throws, the files not yet committed are removed.
    static func commitTogether<T>(_ body: (inout StagedOutputs) throws -> T) throws -> T {
        var outputs = StagedOutputs()
        var committed = 0
        do {
            let result = try body(&outputs)
            // Devices and FIFOs first: their write can fail (a full device), a rename hardly.
            outputs.files.sort { $0.writesInPlace && !$1.writesInPlace }
            for f in outputs.files { try f.commit(); committed += 1 }
            return result
        } catch {
            for f in outputs.files.dropFirst(committed) { f.abandon() }
            throw error
        }
    }
}
