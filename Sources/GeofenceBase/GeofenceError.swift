#if canImport(Glibc)
import Glibc
#endif

/// Errors of the geofence library. Each case carries the data a caller needs
/// to act on it (the file and line, the parameter, the errno); wording for a
/// command line and exit codes are the caller's business (the `geofence` CLI
/// maps them as docs/errors.md says).
public enum GeofenceError: Error, CustomStringConvertible, Hashable, Sendable {
    /// An input (fence file, location log, selection polygon, tile manifest) could not be used.
    case input(InputError)
    /// An output could not be written.
    case output(OutputError)
    /// A parameter value the library cannot use (a column spec, a CRS, a zoom level, ...).
    case invalidArgument(ArgumentError)
    /// A bug or a library failure that the input cannot explain.
    case `internal`(String)

    /// The message: where, then what (`file:line: reason`).
    public var description: String {
        switch self {
        case .input(let e): return e.description
        case .output(let e): return e.description
        case .invalidArgument(let e): return e.description
        case .internal(let m): return m
        }
    }

    /// What kind of failure this is, for callers that sort errors (a command line maps it
    /// to an exit code: docs/errors.md).
    public enum Category: String, Hashable, Sendable {
        /// A parameter value is unusable.
        case badArgument
        /// The content of an input is wrong (syntax, a bad record).
        case badData
        /// An input is absent or cannot be opened.
        case missingInput
        /// Reading or writing failed part-way (disk full, I/O error, closed pipe).
        case ioFailure
        /// A bug or library failure.
        case internalFailure
    }

    /// The category of this error.
    public var category: Category {
        switch self {
        case .input(let i):
            switch i.kind {
            case .notFound, .notAFile, .cannotOpen: return .missingInput
            case .readFailed: return .ioFailure
            case .malformed, .invalidRecord: return .badData
            }
        case .output: return .ioFailure
        case .invalidArgument: return .badArgument
        case .internal: return .internalFailure
        }
    }

    /// Shorthand for a malformed input at a location.
    public static func malformed(_ location: SourceLocation, _ message: String) -> GeofenceError {
        .input(InputError(location, .malformed, message))
    }

    /// Shorthand for an argument error.
    public static func argument(_ parameter: String, _ message: String) -> GeofenceError {
        .invalidArgument(ArgumentError(parameter: parameter, message: message))
    }
}

/// An input that could not be used: where (file, line or feature) and why.
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong with the input.
    public enum Kind: Hashable, Sendable {
        /// The file does not exist.
        case notFound
        /// The path names a directory (or something else that is not a file to read).
        case notAFile
        /// The file exists but could not be opened (`errno` from open(2)).
        case cannotOpen(errno: Int32)
        /// Reading failed part-way (`errno` from read(2), 0 when the platform gave none).
        case readFailed(errno: Int32)
        /// The content is not what the format requires (syntax, header, root element, compression).
        case malformed
        /// One record (a log row, a fence) is invalid; `reason` is a stable code
        /// (a log row's skip reason, e.g. `bad_time`, or a fence problem kind, e.g. `invalid_polygon`).
        case invalidRecord(reason: String)
    }

    /// File and, where known, the 1-based line or 0-based feature index.
    public var location: SourceLocation
    /// The kind of failure.
    public var kind: Kind
    /// What is wrong, without the location.
    public var message: String
    /// The identifier of the bad record, when it has one (a fence's id).
    public var recordID: String?

    /// An input error at `location`.
    public init(_ location: SourceLocation, _ kind: Kind, _ message: String, recordID: String? = nil) {
        self.location = location; self.kind = kind; self.message = message; self.recordID = recordID
    }

    /// `file:line: message`, `file: feature N (id "x"): message`, `file: message`.
    public var description: String {
        var s = location.description
        if let recordID { s += " (id \"\(recordID)\")" }
        return s.isEmpty ? message : s + ": " + message
    }
}

/// An output that could not be written: which path, which operation, and the system's reason.
public struct OutputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The step that failed.
    public enum Operation: String, Hashable, Sendable {
        /// Creating the output (or temporary) file, writing to it, closing it, renaming the
        /// temporary file over the final name, or creating an output directory.
        case create, write, close, rename, createDirectory
    }

    /// The path as the caller gave it ("stdout" for standard output).
    public var path: String
    /// The step that failed.
    public var operation: Operation
    /// `errno` of the failed call, 0 when the platform reported none.
    public var errno: Int32
    /// What failed, without the path.
    public var message: String

    /// An output error; `message` defaults to the operation and the system's text for `errno`.
    public init(path: String, _ operation: Operation, errno: Int32, message: String? = nil) {
        self.path = path; self.operation = operation; self.errno = errno
        self.message = message ?? OutputError.defaultMessage(operation, errno)
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }

    static func defaultMessage(_ op: Operation, _ e: Int32) -> String {
        let reason = e == 0 ? "unknown error" : String(cString: strerror(e))
        switch op {
        case .create: return "cannot create output file: \(reason)"
        case .write: return "write failed: \(reason)"
        case .close: return "close failed: \(reason)"
        case .rename: return "cannot rename temporary output into place: \(reason)"
        case .createDirectory: return "cannot create directory: \(reason)"
        }
    }
}

/// A parameter value the library cannot use.
public struct ArgumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The library's name of the parameter (e.g. `columns`, `crs`, `zoom`); a command
    /// line maps it to its own option name.
    public var parameter: String
    /// What is wrong with the value, without the parameter name.
    public var message: String

    /// An argument error for `parameter`.
    public init(parameter: String, message: String) { self.parameter = parameter; self.message = message }

    /// `parameter: message`.
    public var description: String { "\(parameter): \(message)" }
}
