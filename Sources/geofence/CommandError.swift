import GeofenceKit

/// What ends a command: a usage error found by the command line itself, bad data it
/// found itself, or an error of the library, each with its exit code (docs/errors.md:
/// 64 usage, 65 bad data, 66 missing input, 70 internal, 74 I/O).
enum CommandError: Error, CustomStringConvertible {
    /// Bad command line (exit 64); the message names the option.
    case usage(String)
    /// Bad input data found by the command itself (exit 65).
    case data(String)
    /// An error of the library, worded and mapped to an exit code here.
    case library(GeofenceError)

    /// Library parameters and the options that set them, for messages.
    static let optionNames: [String: String] = [
        "columns": "--columns", "crs": "--crs", "fields": "--fields", "layer": "--layer", "output": "--output", "format": "--format", "zoom": "--tiles", "out": "--out",
    ]

    var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .data: return 65
        case .library(let e):
            switch e.category {
            case .badArgument: return 64
            case .badData: return 65
            case .missingInput: return 66
            case .internalFailure: return 70
            case .ioFailure: return 74
            }
        }
    }

    var description: String {
        switch self {
        case .usage(let m), .data(let m): return m
        case .library(.invalidArgument(let a)):
            guard let option = CommandError.optionNames[a.parameter] else { return a.description }
            return "\(option): \(a.message)"
        case .library(let e): return e.description
        }
    }
}

/// Runs a library call, turning its error into a `CommandError`.
@inline(__always)
func library<T>(_ body: () throws(GeofenceError) -> T) throws(CommandError) -> T {
    do { return try body() } catch { throw .library(error) }
}
