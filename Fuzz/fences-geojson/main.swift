// libFuzzer target: fence GeoJSON (Fuzz/README.md).
import CSystem
import Foundation
import GeofenceKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFencesGeoJSON(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: count))
    _ = try? FenceLoader().load(bytes: bytes, name: "fuzz.geojson", format: .geojson)
    return 0
}

#if FUZZING
// libFuzzer drives the target (`make fuzz` builds with -sanitize=fuzzer and -DFUZZING).
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzFencesGeoJSON(UnsafeRawPointer(data!), Int(size)) })
#else
// A plain build replays inputs: every file named on the command line goes through the target.
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8)); exit(66)
    }
    _ = data.withUnsafeBytes { b in fuzzFencesGeoJSON(b.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, b.count) }
}
#endif
