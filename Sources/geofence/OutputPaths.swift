import Foundation

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
