import Foundation
import GeofenceTestSupport
import GeofenceKit

// geofence-bench: the benchmark runner (docs/cli.md).

#if DEBUG
FileHandle.standardError.write(Data("""
geofence-bench: refusing to run from a debug build: timings would be meaningless.
Build and run the release product:
    swift build -c release --product geofence-bench && .build/release/geofence-bench

""".utf8))
exit(2)
#else
// The allocator set up as `geofence` sets it (docs/architecture.md#the-allocator).
Allocator.tuneForParallelRuns()
let options = BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
let runner = Runner(options: options)
exit(runner.run())
#endif
