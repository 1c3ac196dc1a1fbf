// libFuzzer target: saved evaluation states (Fuzz/README.md).
import CSystem
import Foundation
import GeofenceKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStateFile(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    // The input is the body; a valid checksum is appended so that the fuzzer reaches the
    // fields behind it (a random checksum would stop every input at the first check).
    var bytes = Array(UnsafeRawBufferPointer(start: data, count: count))
    var h = SHA256()
    h.update(bytes)
    bytes += h.finalize()
    if let state = try? EvaluationState(decoding: bytes, path: "fuzz.gfstate") {
        // What decodes re-encodes to the same bytes.
        precondition(state.encoded() == bytes, "a decoded state re-encodes differently")
    }
    return 0
}

#if FUZZING
// libFuzzer drives the target (`make fuzz` builds with -sanitize=fuzzer and -DFUZZING).
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzStateFile(UnsafeRawPointer(data!), Int(size)) })
#else
// A plain build replays inputs: every file named on the command line goes through the target.
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8)); exit(66)
    }
    _ = data.withUnsafeBytes { b in fuzzStateFile(b.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, b.count) }
}
#endif
