// What the fuzz targets share (Fuzz/README.md): the driver and the log-reader harness.
import CSystem
import Foundation
import GeofenceKit

/// The target's body while libFuzzer runs it.
nonisolated(unsafe) var target: FuzzBody?

/// The callback libFuzzer calls with each input.
public typealias FuzzBody = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// Runs a target: under `make fuzz` (-DFUZZING, -sanitize=fuzzer) libFuzzer drives `body`;
/// in a plain build every file named on the command line goes through it once (replay).
public func fuzzMain(_ body: FuzzBody) -> Never {
    #if FUZZING
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    // A C callback cannot capture `body`: it goes through a global.
    target = body
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in target!(data, Int(size)) })
    #else
    for path in CommandLine.arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
            exit(66)
        }
        _ = data.withUnsafeBytes { b in body(b.bindMemory(to: UInt8.self).baseAddress, b.count) }
    }
    exit(0)
    #endif
}

/// The input as bytes.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: count))
}

/// Reads the input as a location log of `format` through a file (as logs are read), in
/// strict and lenient mode with small chunks, then mapped (docs/logs.md#files-are-mapped), then
/// mapped with two threads in small parts for one input in eight (docs/logs.md#parallel-reading),
/// to the end or the first error.
public func fuzzLog(_ format: LogFormat, _ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let path = "/dev/shm/geofence-fuzz-\(getpid())-\(format)"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    if let data, count > 0 { _ = write(fd, data, count) }
    close(fd)
    // Strict and lenient, read and mapped; and for one input in eight (by its bytes, so that a
    // crash replays), with two threads (the parallel reader, gzip inflated on a thread of its
    // own) in small parts: a reader with threads costs about twenty single-thread passes.
    var sum: UInt32 = 0
    for i in 0..<(data == nil ? 0 : count) { sum = sum &* 31 &+ UInt32(data![i]) }
    let passes = [(false, false, 1), (true, false, 1), (true, true, 1)] + (sum % 8 == 0 ? [(true, true, 2)] : [])
    for (skip, mapped, threads) in passes {
        var options = LogReaderOptions(format: format, skipInvalid: skip)
        options.chunkSize = 4096
        options.threads = threads
        options.parallelChunkSize = 256
        options.mapThreshold = mapped ? 0 : Int.max
        guard let reader = try? LogReader(path: path, options: options) else { continue }
        var batch: [Fix] = []
        while (try? reader.next(into: &batch, max: 64)) == true {}
    }
    return 0
}

/// libFuzzer's conventional entry, for its own `main` should the linker take it: the same body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    target?(data, size) ?? 0
}
