/// Errors that end a command, each with the exit code DESIGN §9 documents:
/// 64 usage, 65 bad data, 66 missing input, 70 internal, 74 I/O.
public enum GeofenceError: Error, CustomStringConvertible, Equatable {
    /// Bad command line (exit 64).
    case usage(String)
    /// Bad input data: the message names the file, line or feature, and what is wrong (exit 65).
    case data(String)
    /// An input file that does not exist or cannot be opened (exit 66).
    case missingInput(String)
    /// A bug or a library failure that the input cannot explain (exit 70).
    case `internal`(String)
    /// Reading or writing failed (exit 74).
    case io(String)

    public var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .data: return 65
        case .missingInput: return 66
        case .internal: return 70
        case .io: return 74
        }
    }

    public var description: String {
        switch self {
        case .usage(let m), .data(let m), .missingInput(let m), .internal(let m), .io(let m): return m
        }
    }
}
