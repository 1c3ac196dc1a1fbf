// libFuzzer target: location log, csv (Fuzz/README.md).
import CSystem
import Foundation
import GeofenceKit

/// The input goes through a file, as logs do (one per process, rewritten for each input).
nonisolated(unsafe) let path = "/dev/shm/geofence-fuzz-\(getpid())-csv"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLog_csv(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, count)
    close(fd)
    for skip in [false, true] {
        var options = LogReaderOptions(format: .csv, skipInvalid: skip)
        options.chunkSize = 4096
        guard let reader = try? LogReader(path: path, options: options) else { continue }
        var batch: [Fix] = []
        while (try? reader.next(into: &batch, max: 64)) == true {}
    }
    return 0
}

#if FUZZING
// libFuzzer drives the target (`make fuzz` builds with -sanitize=fuzzer and -DFUZZING).
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzLog_csv(UnsafeRawPointer(data!), Int(size)) })
#else
// A plain build replays inputs: every file named on the command line goes through the target.
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8)); exit(66)
    }
    _ = data.withUnsafeBytes { b in fuzzLog_csv(b.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, b.count) }
}
#endif
