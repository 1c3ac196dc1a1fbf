// What the fuzz targets share (Fuzz/README.md): the driver and the log-reader harness.
import CSystem
import Foundation
import GeofenceKit
import GeofenceLogs

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
/// and for CSV mapped again with every row on the general path (the one-check rows turned off),
/// to the end or the first error. Every way of reading a plain file must give the same fixes
/// (bit for bit), devices, skips, first messages, error and last line as the first, strict and
/// lenient apart: a difference stops the run as a crash does (docs/logs.md: the same reading
/// whatever the path, the window and the thread count).
public func fuzzLog(_ format: LogFormat, _ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let path = "/dev/shm/geofence-fuzz-\(getpid())-\(format)"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    if let data, count > 0 { _ = write(fd, data, count) }
    close(fd)
    defer { unlink(path) }
    // A reader with threads costs about twenty single-thread passes: one input in eight (by its
    // bytes, so that a crash replays).
    var sum: UInt32 = 0
    for i in 0..<(data == nil ? 0 : count) { sum = sum &* 31 &+ UInt32(data![i]) }
    // gzip is read whole from a mapping and as a stream from the read buffer, in steps of other
    // sizes: a damaged stream loses the bytes of its failing step (docs/logs.md#gzip), so the
    // ways may end at different rows there; they are read, not compared.
    let compressed = count >= 2 && data![0] == 0x1F && data![1] == 0x8B
    for skip in [false, true] {
        // (mapped, threads, one-check CSV rows)
        var ways = [(false, 1, true), (true, 1, true)]
        if sum % 8 == 0 { ways.append((true, 2, true)) }
        if format == .csv { ways.append((true, 1, false)) }
        var first: ReadOutcome? = nil
        for (mapped, threads, oneCheck) in ways {
            var options = LogReaderOptions(format: format, skipInvalid: skip)
            options.chunkSize = 4096
            options.threads = threads
            options.parallelChunkSize = 256
            options.mapThreshold = mapped ? 0 : Int.max
            LogReader.oneCheckCSVRows = oneCheck
            let outcome = ReadOutcome(path, options)
            LogReader.oneCheckCSVRows = true
            if let first, outcome != first, !compressed {
                fatalError("fuzz: the \(format) log read \(skip ? "lenient" : "strict"), mapped \(mapped), \(threads) thread(s), "
                           + "one-check rows \(oneCheck), differs from the plain read: \(outcome.difference(from: first))")
            }
            if first == nil { first = outcome }
        }
    }
    return 0
}

/// What reading a log shows, to compare ways of reading the same bytes.
struct ReadOutcome: Equatable {
    var fixes: [[UInt64]] = []
    var devices: [String] = []
    var skipped: [SkipReason: Int] = [:]
    var messages: [SkipReason: String] = [:]
    var error: String? = nil
    var line = 0

    /// Reads `path` to its end or its first error, 64 fixes a batch.
    init(_ path: String, _ options: LogReaderOptions) {
        let reader: LogReader
        do {
            reader = try LogReader(path: path, options: options)
        } catch {
            self.error = "\(error)"
            return
        }
        var batch: [Fix] = []
        do {
            while try reader.next(into: &batch, max: 64) {
                fixes += batch.map { [UInt64(bitPattern: Int64($0.device)), UInt64(bitPattern: Int64($0.offset)), $0.time.bitPattern,
                                      $0.lat.bitPattern, $0.lon.bitPattern, $0.accuracy.bitPattern] }
            }
        } catch {
            self.error = "\(error)"
        }
        devices = reader.devices.names
        skipped = reader.skipped
        messages = reader.firstSkipMessages
        if self.error == nil { line = reader.line }
    }

    /// The first difference from `other`, in words.
    func difference(from other: ReadOutcome) -> String {
        if let k = fixes.indices.first(where: { $0 >= other.fixes.count || fixes[$0] != other.fixes[$0] }) {
            return "fix \(k): \(fixes[k]) against \(k < other.fixes.count ? "\(other.fixes[k])" : "none")"
        }
        if fixes.count != other.fixes.count { return "\(fixes.count) fixes against \(other.fixes.count)" }
        if devices != other.devices { return "devices \(devices.prefix(8)) against \(other.devices.prefix(8))" }
        if skipped != other.skipped { return "skipped \(skipped) against \(other.skipped)" }
        if messages != other.messages { return "messages \(messages) against \(other.messages)" }
        if error != other.error { return "error \(error ?? "none") against \(other.error ?? "none")" }
        return "last line \(line) against \(other.line)"
    }
}

/// libFuzzer's conventional entry, for its own `main` should the linker take it: the same body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    target?(data, size) ?? 0
}
