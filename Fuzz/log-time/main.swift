// libFuzzer target: fix times, ISO 8601 and Unix seconds (Fuzz/README.md).
import CSystem
import Foundation
import GeofenceKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogTime(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    if let t = LogTime.parse(text), t >= LogTime.earliest, t <= LogTime.latest {
        // Every time a reader accepts can be written back.
        _ = EventWriter.iso8601(t)
        _ = LogTime.format(t)
    }
    return 0
}

#if FUZZING
// libFuzzer drives the target (`make fuzz` builds with -sanitize=fuzzer and -DFUZZING).
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzLogTime(UnsafeRawPointer(data!), Int(size)) })
#else
// A plain build replays inputs: every file named on the command line goes through the target.
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8)); exit(66)
    }
    _ = data.withUnsafeBytes { b in fuzzLogTime(b.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, b.count) }
}
#endif
