import Foundation
import GeofenceKit

/// `geofence <subcommand> [options]`. Errors go to stderr as `geofence <cmd>: error: ...`
/// with the exit codes of docs/cli.md: 0 ok, 64 usage, 65 bad data, 66 missing input, 70 internal, 74 I/O.
let version = "0.1.0"

struct Subcommand {
    var spec: CommandSpec
    var run: (Arguments) throws -> Int32
}

let subcommands: [Subcommand] = [
    Subcommand(spec: ValidateCommand.spec, run: ValidateCommand.run),
    Subcommand(spec: CompileCommand.spec, run: CompileCommand.run),
    Subcommand(spec: ContainsCommand.spec, run: ContainsCommand.run),
    Subcommand(spec: NearestCommand.spec, run: NearestCommand.run),
    Subcommand(spec: EvaluateCommand.spec, run: EvaluateCommand.run),
    Subcommand(spec: SimulateCommand.spec, run: SimulateCommand.run),
    Subcommand(spec: SubsetCommand.spec, run: SubsetCommand.run),
    Subcommand(spec: RenderCommand.spec, run: RenderCommand.run),
]

@MainActor func topHelp() -> String {
    var s = """
    OVERVIEW: geofence \(version): a spatial-index engine for geofencing at scale.

    USAGE: geofence <subcommand> [options]

    SUBCOMMANDS:

    """
    for c in subcommands { s += "  " + c.spec.name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.spec.summary + "\n" }
    s += """

    Run 'geofence <subcommand> --help' for a subcommand's options.
    Exit codes: 0 success, 64 usage, 65 bad data, 66 missing input, 70 internal, 74 I/O.

    """
    return s
}

func fail(_ message: String, code: Int32) -> Never {
    Console.err((message + "\n"))
    exit(code)
}

// Fewer address-space changes while threads read (docs/architecture.md#the-allocator).
Allocator.tuneForParallelRuns()
// A closed pipe on stdout must be an I/O error (EPIPE), not a silent death by SIGPIPE.
signal(SIGPIPE, SIG_IGN)
// SIGINT/SIGTERM remove the run's temporary files before exiting (docs/errors.md).
TemporaryFiles.shared.installSignalHandling()

var argv = Array(CommandLine.arguments.dropFirst())
guard let first = argv.first else {
    Console.err(topHelp())
    exit(64)
}
if first == "--help" || first == "-h" || first == "help" {
    print(topHelp(), terminator: "")
    exit(0)
}
if first == "--version" {
    print("geofence \(version)")
    exit(0)
}
guard let cmd = subcommands.first(where: { $0.spec.name == first }) else {
    fail("geofence: unknown subcommand '\(first)' (see 'geofence --help')", code: 64)
}
do {
    let args = try Arguments(Array(argv.dropFirst()), spec: cmd.spec)
    if args.helpRequested {
        print(cmd.spec.helpText, terminator: "")
        exit(0)
    }
    Console.quiet = args.flag("--quiet")
    let status = try cmd.run(args)
    // Fences used in place from a compiled file that shrank meanwhile: the answers on
    // standard output came partly from zeros (docs/compiled-fences.md#memory).
    try MappedRegion.checkAll()
    // A summary or warning that could not reach stderr: the run did not fully succeed.
    exit(status == 0 && Console.stderrFailed ? 74 : status)
} catch {
    let failure: CommandError
    switch error {
    case let e as CommandError: failure = e
    case let e as GeofenceError: failure = .library(e)
    default: failure = .library(.internal("\(error)"))
    }
    let message = failure.description
    let prefix = "geofence \(cmd.spec.name): "
    fail(message.hasPrefix(prefix) ? message.replacingOccurrences(of: prefix, with: prefix + "error: ", options: .anchored)
                                   : prefix + "error: " + message, code: failure.exitCode)
}
