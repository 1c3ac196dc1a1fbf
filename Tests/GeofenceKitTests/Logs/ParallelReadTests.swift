import Foundation
import XCTest
import Synchronization
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceLogs

/// Parallel reading gives what a serial read gives: the same fixes in the same batches, the same
/// devices in the same order, skip counts, first messages, time unit and errors, whatever the
/// thread count and wherever the chunk boundaries fall.
final class ParallelReadTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Everything a read shows, batch by batch.
    struct Outcome: Equatable {
        var batches: [[Fix]] = []
        var devices: [String] = []
        var skipped: [SkipReason: Int] = [:]
        var messages: [SkipReason: String] = [:]
        var error: GeofenceError? = nil
        var unit: TimeUnit? = nil
        var first: Double? = nil
        var line = 0
        var delimiter: UInt8? = nil
    }

    static func outcome(_ path: String, _ options: LogReaderOptions, batch: Int) -> Outcome {
        var o = Outcome()
        do {
            let reader = try LogReader(path: path, options: options)
            var b: [Fix] = []
            do {
                while try reader.next(into: &b, max: batch) {
                    o.batches.append(b)
                    Self.checkBatchDevices(reader, b)
                }
            } catch {
                o.error = error
            }
            o.devices = reader.devices.names
            o.skipped = reader.skipped
            o.messages = reader.firstSkipMessages
            o.unit = reader.detectedTimeUnit?.unit
            o.first = reader.detectedTimeUnit?.first
            o.delimiter = reader.csvDelimiter
            if o.error == nil { o.line = reader.line }
            if options.threads > 1, o.error == nil, reader.format != .gpx {
                XCTAssertEqual(reader.reading, .parallel(threads: options.threads))
            }
        } catch {
            o.error = error
        }
        return o
    }

    /// Where the reader hands out the devices of a batch, they are exactly those of its fixes,
    /// each once (checked against the batch itself).
    static func checkBatchDevices(_ reader: LogReader, _ batch: [Fix], file: StaticString = #filePath, line: UInt = #line) {
        guard let devices = reader.batchDevices else { return }
        XCTAssertEqual(devices.count, Set(devices).count, "each device once", file: file, line: line)
        XCTAssertEqual(Set(devices), Set(batch.map(\.device)), "the batch's devices", file: file, line: line)
    }

    /// Lenient reading on 2 threads with chunks of `chunk` bytes.
    static func lenientTwoThreads(chunk: Int) -> LogReaderOptions {
        var o = LogReaderOptions(skipInvalid: true)
        o.threads = 2
        o.parallelChunkSize = chunk
        return o
    }

    /// Serial (today's reader, one thread) against 2 and 8 threads with chunks of many sizes.
    func assertSameAsSerial(_ path: String, _ base: LogReaderOptions, file: StaticString = #filePath, line: UInt = #line) {
        for batch in [3, 8192] {
            let serial = Self.outcome(path, base, batch: batch)
            for threads in [2, 8] {
                for chunk in [1, 2, 5, 13, 64, 1000, 1 << 20] {
                    var o = base
                    o.threads = threads
                    o.parallelChunkSize = chunk
                    let parallel = Self.outcome(path, o, batch: batch)
                    if parallel != serial {
                        XCTFail("\(path): threads \(threads), chunk \(chunk), batch \(batch) differ from the serial read:\n"
                                + "serial: \(serial.error.map { "\($0)" } ?? "ok") \(serial.skipped) \(serial.batches.joined().count) fixes\n"
                                + "parallel: \(parallel.error.map { "\($0)" } ?? "ok") \(parallel.skipped) \(parallel.batches.joined().count) fixes",
                                file: file, line: line)
                        return
                    }
                }
            }
        }
    }

    // MARK: Generated logs

    /// A CSV log with every kind of trouble in it: quoted fields with newlines, commas and `""`,
    /// CRLF, a BOM, blank lines, bad numbers and times, wrong field counts, malformed quotes,
    /// times going backwards, duplicates, numeric and ISO times.
    static func messyCSV(seed: UInt64, rows: Int, bad: Bool, millis: Bool) -> String {
        var g = SeededGenerator(seed: seed)
        var s = g.next() % 3 == 0 ? "\u{FEFF}" : ""
        let crlf = g.next() % 2 == 0
        let nl = crlf ? "\r\n" : "\n"
        s += "device,time,lat,lon,accuracy" + nl
        let names = ["a", "b", "\"multi\nline\"", "\"co,mma\"", "\"quo\"\"te\"", "dévice", "\"\n\"", "x y"]
        var t = [Double](repeating: 1_600_000_000, count: names.count)
        for _ in 0..<rows {
            let d = Int(g.next() % UInt64(names.count))
            let r = g.next() % 100
            if r < 3 { s += nl; continue }                                   // blank line
            t[d] += Double(g.next() % 5)
            var time = millis ? String(Int(t[d] * 1000)) : String(Int(t[d]))
            if g.next() % 7 == 0 { time = LogTime.format(t[d]) }
            if g.next() % 11 == 0 { time = "\"" + time + "\"" }
            var lat = String(format: "%.5f", Double(g.next() % 1000) / 20 - 25)
            var lon = String(format: "%.5f", Double(g.next() % 1000) / 10 - 50)
            var acc = g.next() % 4 == 0 ? "" : String(g.next() % 50)
            var fields: [String]? = nil
            if bad {
                switch g.next() % 60 {
                case 0: lat = "north"
                case 1: lon = "200"
                case 2: time = "yesterday"
                case 3: acc = "-1"
                case 4: fields = [names[d], time, lat]
                case 5: fields = [names[d], time, lat, lon, acc, "extra"]
                case 6: fields = ["", time, lat, lon, acc]
                case 7: fields = ["ab\"c", time, lat, lon, acc]                // a quote inside a field
                case 8: time = String(Int(t[d] - 100))                        // backwards
                case 9: lat = "nan"
                case 10: fields = ["\"open", time, lat, lon, acc]              // quote not closed on the line
                default: break
                }
            }
            s += (fields ?? [names[d], time, lat, lon, acc]).joined(separator: ",") + nl
            if g.next() % 13 == 0 { s += (fields ?? [names[d], time, lat, lon, acc]).joined(separator: ",") + nl }   // duplicate
        }
        if g.next() % 2 == 0 { s += "a,1600000999,1,2" }                      // no newline at the end
        return s
    }

    /// Strict, a read that stops at a row the join refuses (a time before the row before it)
    /// reports the time unit only when a numeric time came before that row, as a serial read
    /// does: a worker that met one further on in the same chunk does not set it. CSV and
    /// NDJSON; the numeric time early, just before and after the refused row.
    func testStrictStopReportsTheUnitOnlyIfReachedFirst() {
        for ndjson in [false, true] {
            for numericAt in [2, 6, 9] {
                var text = ndjson ? "" : "device,time,lat,lon\n"
                for row in 1...12 {
                    let t = 1_750_000_000 + (row == 7 ? 5 : row) * 10       // row 7 goes back in time
                    let time = row == numericAt ? "\(t)" : LogTime.format(Double(t))
                    let lat = row == 7 ? "1.0" : "1.\(row)"
                    if ndjson {
                        let quoted = row == numericAt ? time : "\"\(time)\""
                        text += "{\"device\":\"a\",\"time\":\(quoted),\"lat\":\(lat),\"lon\":2.0}\n"
                    } else {
                        text += "a,\(time),\(lat),2.0\n"
                    }
                }
                let path = dir + "/unit\(numericAt)." + (ndjson ? "ndjson" : "csv")
                XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
                let serial = Self.outcome(path, LogReaderOptions(), batch: 100)
                XCTAssertNotNil(serial.error, "\(path)")
                XCTAssertEqual(serial.unit != nil, numericAt < 7, "\(path)")
                assertSameAsSerial(path, LogReaderOptions())
            }
        }
    }

    /// The parse crew's idle task (the next round's pages mapped while a round is joined) runs
    /// once, on a crew thread that finds no chunk left to take (with two threads, at most one
    /// chunk is then still being parsed, by the other); a task set again before one runs
    /// replaces it.
    func testCrewIdleTaskRunsOnceAfterTheChunks() {
        let crew = ParseCrew()
        let parsed = Atomic<Int>(0), ran = Atomic<Int>(0), parsedWhenRan = Atomic<Int>(-1)
        let work = RoundWork(chunks: 6) { _ in
            usleep(2000)
            parsed.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
        crew.whenIdle { ran.wrappingAdd(100, ordering: .sequentiallyConsistent) }
        crew.whenIdle {
            parsedWhenRan.store(parsed.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            ran.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
        crew.add(work, threads: 2)
        work.wait()
        var waited = 0
        while ran.load(ordering: .sequentiallyConsistent) == 0 && waited < 5000 { usleep(1000); waited += 1 }
        usleep(20000)
        XCTAssertEqual(ran.load(ordering: .sequentiallyConsistent), 1)
        XCTAssertGreaterThanOrEqual(parsedWhenRan.load(ordering: .sequentiallyConsistent), 5)
        // A mapping's pages populated: the call leaves the bytes as they were.
        let path = dir + "/populate.txt"
        let text = String(repeating: "0123456789", count: 5000)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        guard let mapped = MappedFile(fd: fd, size: text.utf8.count) else { return XCTFail("not mapped") }
        MappedFile.populate(UnsafeMutableRawPointer(mapped.base + 4100), 30_000)
        XCTAssertEqual(String(decoding: UnsafeBufferPointer(start: UnsafePointer(mapped.base), count: text.utf8.count), as: UTF8.self), text)
    }

    func testGeneratedCSVLenientMatchesSerial() {
        for seed in 1...12 as ClosedRange<UInt64> {
            let path = writeFile(dir, "messy\(seed).csv", Self.messyCSV(seed: seed, rows: 300, bad: true, millis: seed % 3 == 0))
            var o = LogReaderOptions(skipInvalid: true)
            o.chunkSize = 1 + Int(seed % 5) * 37
            o.mapThreshold = Int.max      // through the read buffer (a mapped file has none)
            assertSameAsSerial(path, o)
        }
    }

    func testGeneratedCSVStrictMatchesSerial() {
        for seed in 20...40 as ClosedRange<UInt64> {
            let path = writeFile(dir, "strict\(seed).csv", Self.messyCSV(seed: seed, rows: 200, bad: seed % 2 == 0, millis: seed % 4 == 0))
            assertSameAsSerial(path, LogReaderOptions())
        }
    }

    /// A trace-like CSV log: devices in runs of 1 to 40 rows (a device may come back later),
    /// times rising within a run, with duplicates, times going backwards and bad rows inside runs
    /// and at their starts, so that the join meets the parse workers' runs (docs/logs.md,
    /// "Parallel reading") broken and begun after dropped rows.
    static func runsCSV(seed: UInt64, rows: Int) -> String {
        var g = SeededGenerator(seed: seed)
        var s = "device,time,lat,lon\n"
        var t = [Double](repeating: 1_600_000_000, count: 6)
        var n = 0
        while n < rows {
            let d = Int(g.next() % 6), length = 1 + Int(g.next() % 40)
            for _ in 0..<length {
                t[d] += Double(g.next() % 3)                                  // 0: the same time
                let lat = String(format: "%.5f", Double(g.next() % 1000) / 20 - 25)
                let lon = g.next() % 4 == 0 ? "-77.12345" : String(format: "%.5f", Double(g.next() % 1000) / 10 - 50)
                let row = "dev\(d),\(Int(t[d])),\(lat),\(lon)\n"
                switch g.next() % 25 {
                case 0: s += row + row                                      // a duplicate
                case 1: s += "dev\(d),\(Int(t[d]) - 50),\(lat),\(lon)\n" + row  // backwards, then on
                case 2: s += "dev\(d),\(Int(t[d])),north,\(lon)\n" + row      // a bad row
                default: s += row
                }
                n += 1
            }
        }
        return s
    }

    func testGeneratedRunsMatchSerial() {
        for seed in 50...55 as ClosedRange<UInt64> {
            let path = writeFile(dir, "runs\(seed).csv", Self.runsCSV(seed: seed, rows: 400))
            assertSameAsSerial(path, LogReaderOptions(skipInvalid: true))
            var o = LogReaderOptions(skipInvalid: true)
            o.mapThreshold = Int.max      // through the read buffer
            assertSameAsSerial(path, o)
        }
        for seed in 60...62 as ClosedRange<UInt64> {
            let path = writeFile(dir, "runs\(seed).csv", Self.runsCSV(seed: seed, rows: 400))
            assertSameAsSerial(path, LogReaderOptions())
        }
    }

    /// With every thread of the work team busy elsewhere for the whole read, a parallel read
    /// still ends, and gives the serial read's fixes: the reading thread parses the chunks no
    /// thread takes, also those of a round begun ahead that the reader drops as it closes
    /// (docs/architecture.md#the-work-team). The busy tasks wait for the test's signal, with a
    /// long time-out that the test counts: a read that needed the team would wait for it.
    func testReadEndsWhileTheTeamIsBusy() {
        let path = writeFile(dir, "busy.csv", Self.runsCSV(seed: 70, rows: 3000))
        let serial = Self.outcome(path, LogReaderOptions(skipInvalid: true), batch: 64)
        let team = WorkTeam.shared
        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0), timedOut = Atomic<Int>(0)
        for _ in 0..<team.limit {
            team.async {
                started.signal()
                if gate.wait(timeout: .now() + 60) == .timedOut { timedOut.wrappingAdd(1, ordering: .relaxed) }
            }
        }
        for _ in 0..<team.limit { started.wait() }
        var o = Self.lenientTwoThreads(chunk: 500)
        o.readAhead = true
        o.quickStart = true
        let parallel = Self.outcome(path, o, batch: 64)
        // Closed after one batch, a round begun ahead still pending.
        if let reader = try? LogReader(path: path, options: o) {
            var b: [Fix] = []
            XCTAssertEqual(try reader.next(into: &b, max: 64), true)
        }
        for _ in 0..<team.limit { gate.signal() }
        XCTAssertEqual(parallel.batches.joined().map(\.self), serial.batches.joined().map(\.self))
        XCTAssertEqual(parallel.skipped, serial.skipped)
        XCTAssertEqual(timedOut.load(ordering: .relaxed), 0, "the read waited for the busy team")
    }

    func testGeneratedNDJSONMatchesSerial() {
        for seed in 1...10 as ClosedRange<UInt64> {
            var g = SeededGenerator(seed: seed)
            var s = ""
            var t = 1_700_000_000.0
            for i in 0..<300 {
                t += Double(g.next() % 3)
                let d = "dev\(g.next() % 6)"
                switch g.next() % 40 {
                case 0: s += "\n"
                case 1: s += "{\"device\":\"\(d)\",\"time\":\(t),\"lat\":\"x\",\"lon\":1}\n"
                case 2: s += "{\"device\":\"\(d)\",\"time\":\(t),\"lat\":1\n"
                case 3: s += "{\"device\":\"\(d)\",\"time\":\(t - 50),\"lat\":1,\"lon\":2}\r\n"
                case 4: s += "{\"device\":\"line\\nbreak \(i % 3)\",\"time\":\"\(LogTime.format(t))\",\"lat\":1,\"lon\":2,\"extra\":{\"a\":[1,2]}}\n"
                default: s += "{\"device\":\"\(d)\",\"time\":\(Int(t * 1000)),\"lat\":\(Double(g.next() % 180) - 90),\"lon\":\(Double(g.next() % 360) - 180)}\n"
                }
            }
            let path = writeFile(dir, "log\(seed).ndjson", s)
            assertSameAsSerial(path, LogReaderOptions(skipInvalid: seed % 2 == 0))
        }
    }

    // MARK: Boundaries that matter

    /// A quoted field holding newlines spans many small chunks: the parity finds the real
    /// record boundaries, and every fix keeps its device.
    func testQuotedNewlinesAcrossChunks() throws {
        var s = "device,time,lat,lon\n"
        for i in 0..<50 { s += "\"dev\n\(i % 4)\n,x\",\(1_600_000_000 + i),\(i % 10),\(i % 20)\n" }
        let path = writeFile(dir, "quoted.csv", s)
        assertSameAsSerial(path, LogReaderOptions())
        var o = LogReaderOptions()
        o.threads = 4
        o.parallelChunkSize = 3
        let (fixes, reader) = try readLog(path, o)
        XCTAssertEqual(fixes.count, 50)
        XCTAssertEqual(reader.devices.names, ["dev\n0\n,x", "dev\n1\n,x", "dev\n2\n,x", "dev\n3\n,x"])
        XCTAssertEqual(reader.line, 151)
    }

    /// A stray quote makes the parity wrong from there on; the worker whose record runs past
    /// its chunk hands the record to a serial step, and the read stays exact.
    func testStrayQuoteFallsBackExactly() {
        var s = "device,time,lat,lon\n"
        for i in 0..<40 {
            s += i % 9 == 4 ? "ab\"c,\(1_600_000_000 + i),1,2\n" : "d\(i % 3),\(1_600_000_000 + i),1,2\n"
        }
        let path = writeFile(dir, "stray.csv", s)
        assertSameAsSerial(path, LogReaderOptions(skipInvalid: true))
        assertSameAsSerial(path, LogReaderOptions())
    }

    /// Device ids that are not UTF-8 are bad rows wherever they fall; valid non-ASCII ones are devices.
    func testDeviceIdsNotUTF8() throws {
        var bytes = Array("device,time,lat,lon\n".utf8)
        for i in 0..<60 {
            let device: [UInt8] = i % 7 == 3 ? [0x61, 0xFF, 0x62] : i % 5 == 0 ? Array("é\(i % 3)".utf8) : Array("d\(i % 4)".utf8)
            bytes += device + Array(",\(1_600_000_000 + i),1,2\n".utf8)
        }
        let path = dir + "/utf8.csv"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        assertSameAsSerial(path, LogReaderOptions(skipInvalid: true))
        assertSameAsSerial(path, LogReaderOptions())
        let (_, reader) = try readLog(path, Self.lenientTwoThreads(chunk: 16))
        XCTAssertEqual(reader.skipped, [.malformedRow: 9])
    }

    /// Many devices, names of 1 to 40 bytes (the parse workers look ASCII names up in the
    /// reader's table a few rows after reading them; other names at once, in row order), some
    /// not ASCII, some not UTF-8, some empty, new ones appearing all through the log: the
    /// devices, their order, the fixes and the skips are the serial read's.
    func testManyDevicesLookedUpAhead() throws {
        var g = SeededGenerator(seed: 0xDE71CE5)
        let names: [[UInt8]] = (0..<600).map { i in
            let length = 1 + Int(g.next() % 40)
            var name = (0..<length).map { _ in UInt8(ascii: "a") + UInt8(g.next() % 26) }
            switch i % 50 {
            case 7: name.append(contentsOf: [0xC3, 0xA9])                         // é: UTF-8, not ASCII
            case 19: name[Int(g.next() % UInt64(length))] = 0xFF                          // not UTF-8
            case 31: name = []                                                    // empty
            default: break
            }
            return name
        }
        var bytes = Array("device,time,lat,lon,accuracy\n".utf8)
        var time = [Int](repeating: 1_600_000_000, count: names.count)
        for row in 0..<6000 {
            // New devices keep appearing: the first rows use the first names only.
            let d = Int(g.next() % UInt64(Swift.min(names.count, 20 + row / 8)))
            time[d] += 1 + Int(g.next() % 3)
            bytes += names[d] + Array(",\(time[d]),\(Double(g.next() % 9000) / 100 - 45),\(Double(g.next() % 9000) / 50 - 90),5\n".utf8)
        }
        let path = dir + "/many-devices.csv"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        assertSameAsSerial(path, LogReaderOptions(skipInvalid: true))
        assertSameAsSerial(path, LogReaderOptions())
        let (fixes, reader) = try readLog(path, Self.lenientTwoThreads(chunk: 4096))
        XCTAssertGreaterThan(reader.devices.names.count, 500)
        XCTAssertGreaterThan(fixes.count, 5000)
        XCTAssertEqual(reader.skipped.values.reduce(0, +), 6000 - fixes.count)
        XCTAssertGreaterThan(reader.skipped[.emptyDevice, default: 0], 0)
        XCTAssertGreaterThan(reader.skipped[.malformedRow, default: 0], 0)
    }

    /// A log whose devices do not repeat at first (each row a new one), then repeat: while most
    /// rows bring a new device the workers stop looking devices up in the reader's table, and
    /// look them up again once devices repeat; the read equals the serial one throughout.
    func testNewDevicesThenRepeatedOnes() throws {
        var s = "device,time,lat,lon\n"
        for i in 0..<4000 { s += "new-\(i),\(1_600_000_000 + i),\(Double(i % 170) - 85),\(Double(i % 350) - 175)\n" }
        for i in 0..<8000 { s += "new-\(i % 40),\(1_600_010_000 + i),\(Double(i % 170) - 85),\(Double(i % 350) - 175)\n" }
        s += "new-3,1600000000,1,1\n"                                            // backwards: skipped, or the error
        let path = writeFile(dir, "new-devices.csv", s)
        assertSameAsSerial(path, LogReaderOptions(skipInvalid: true))
        assertSameAsSerial(path, LogReaderOptions())
        let (fixes, reader) = try readLog(path, Self.lenientTwoThreads(chunk: 4096))
        XCTAssertEqual(fixes.count, 12_000)
        XCTAssertEqual(reader.devices.names.count, 4000)
        XCTAssertGreaterThan(reader.roundsWithoutLookUp, 0, "rounds of new devices only read without look-ups")
        XCTAssertTrue(reader.looksUpKnownDevices, "look-ups back once devices repeat")
    }

    /// Room made ahead for the devices a join expects (``DeviceState/expected``): nothing grows
    /// until one is new; the first new one grows every array once and the slots (rehashed
    /// then, the probe's slot found again), and every name keeps its index, found by a probe.
    func testRoomForExpectedDevices() {
        var state = DeviceState()
        func add(_ name: String) -> Int32? {
            var b = Array(name.utf8)
            return b.withUnsafeMutableBufferPointer { state.intern($0.baseAddress!, $0.count) }
        }
        for i in 0..<20 { XCTAssertEqual(add("dev-\(i)"), Int32(i)) }
        let slots = state.slots.count, capacity = state.keys.capacity
        // Expected but none new: nothing grows, and the expectation stays for the first new one.
        state.expected = (5_000, 50_000)
        for i in 0..<20 { XCTAssertEqual(add("dev-\(i)"), Int32(i)) }
        XCTAssertEqual(state.slots.count, slots)
        XCTAssertEqual(state.keys.capacity, capacity)
        XCTAssertEqual(add("dev-20"), 20)
        XCTAssertEqual(state.expected.devices, 0)
        XCTAssertGreaterThanOrEqual(state.slots.count, 2 * 5_020)
        XCTAssertGreaterThanOrEqual(state.keys.capacity, 5_020)
        XCTAssertGreaterThanOrEqual(state.bytes.capacity, 50_000)
        let grown = state.slots.count, keys = state.keys.capacity
        for i in 21..<5_000 { XCTAssertEqual(add("dev-\(i)"), Int32(i)) }
        XCTAssertEqual(state.slots.count, grown, "the slots grew once, for all")
        XCTAssertEqual(state.keys.capacity, keys, "the keys grew once, for all")
        for i in stride(from: 0, to: 5_000, by: 7) {
            let name = "dev-\(i)"
            var b = Array(name.utf8)
            XCTAssertEqual(b.withUnsafeMutableBufferPointer { state.find($0.baseAddress!, $0.count) }, Int32(i))
            XCTAssertEqual(state.name(i), name)
        }
        XCTAssertEqual(state.keys.count, 5_000)
    }

    /// A time going backwards across a chunk boundary names the line of the fix before it.
    func testTimeOrderAcrossChunks() {
        var s = "device,time,lat,lon\n"
        for i in 0..<100 { s += "d\(i % 2),\(1_600_000_000 + (i == 70 ? 0 : i)),1,2\n" }
        let path = writeFile(dir, "order.csv", s)
        assertSameAsSerial(path, LogReaderOptions())
        assertSameAsSerial(path, LogReaderOptions(skipInvalid: true))
        var o = LogReaderOptions()
        o.threads = 2
        o.parallelChunkSize = 50
        XCTAssertThrowsError(try readLog(path, o)) { e in
            XCTAssertTrue("\(e)".contains("order.csv:72: time goes backwards for device \"d0\""), "\(e)")
            XCTAssertTrue("\(e)".contains("(line 70)"), "\(e)")
        }
    }

    /// The time unit is chosen at the file's first numeric time even when earlier chunks have
    /// only ISO times, and a later chunk that guessed on its own is read again.
    func testTimeUnitChosenAcrossChunks() {
        var s = "device,time,lat,lon\n"
        for i in 0..<30 { s += "d,\(LogTime.format(1_600_000_000 + Double(i))),1,\(i)\n" }
        for i in 0..<30 { s += "d,\(1_600_000_100_000 + i * 1000),1,\(i)\n" }
        for i in 0..<30 { s += "d,\(1_600_000_200 + i),1,\(i)\n" }              // seconds read as ms: bad times
        let path = writeFile(dir, "units.csv", s)
        assertSameAsSerial(path, LogReaderOptions(skipInvalid: true))
        assertSameAsSerial(path, LogReaderOptions())
    }

    /// Logs over a pipe and gzip are read in parallel too, with the same result.
    func testGzipAndTruncatedGzip() throws {
        let text = Self.messyCSV(seed: 99, rows: 2000, bad: true, millis: false)
        let path = writeFile(dir, "g.csv", text)
        XCTAssertEqual(runTool("/bin/gzip", ["-k", path]), 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: path + ".gz"))
        let cut = dir + "/cut.csv.gz"
        _ = FileManager.default.createFile(atPath: cut, contents: data.prefix(data.count * 2 / 3))
        // Inflated on the reading thread (the file is one chunk) and on its own thread.
        for chunk in [1 << 20, 4096] {
            var o = LogReaderOptions(skipInvalid: true)
            o.chunkSize = chunk
            o.mapThreshold = Int.max      // through the read buffer (a mapped file has none)
            assertSameAsSerial(path + ".gz", o)
            assertSameAsSerial(cut, o)
        }
    }

    /// gzip inflated on its own thread: a reader dropped part-way stops it; a garbled stream
    /// is a gzip error.
    func testPipelinedGzipStopsAndFails() throws {
        let text = Self.messyCSV(seed: 7, rows: 30_000, bad: false, millis: false)
        let path = writeFile(dir, "big.csv", text)
        XCTAssertEqual(runTool("/bin/gzip", ["-k", path]), 0)
        var o = LogReaderOptions(skipInvalid: true)
        o.threads = 2
        o.chunkSize = 4096
        o.mapThreshold = Int.max      // through the read buffer (a mapped file has none)
        for _ in 0..<5 {
            let reader = try LogReader(path: path + ".gz", options: o)
            var batch: [Fix] = []
            XCTAssertTrue(try reader.next(into: &batch, max: 10))
            XCTAssertEqual(batch.count, 10)
        }
        var garbled = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
        for i in 20_000..<20_400 { garbled[i] = UInt8(truncatingIfNeeded: i &* 37) }
        let bad = dir + "/garbled.csv.gz"
        XCTAssertTrue(FileManager.default.createFile(atPath: bad, contents: Data(garbled)))
        XCTAssertThrowsError(try readLog(bad, o)) { e in
            XCTAssertTrue("\(e)".contains(": bad gzip stream: "), "\(e)")
        }
    }

    /// The bundled AIS log reads the same at 1, 2 and 8 threads.
    func testBundledAISMatchesSerial() throws {
        let path = packageRoot + "/data/virginia_beach_ais.csv"
        let serial = Self.outcome(path, LogReaderOptions(), batch: 65_536)
        XCTAssertNil(serial.error)
        for threads in [2, 8] {
            for chunk in [4096, 1 << 20] {
                var o = LogReaderOptions()
                o.threads = threads
                o.parallelChunkSize = chunk
                XCTAssertEqual(Self.outcome(path, o, batch: 65_536), serial, "threads \(threads), chunk \(chunk)")
            }
        }
    }

    /// GPX and one thread are read serially, and say so.
    func testReadingMode() throws {
        let path = writeFile(dir, "a.csv", "device,time,lat,lon\nd,1600000000,1,2\n")
        XCTAssertEqual(try LogReader(path: path).reading, .serial(reason: "one thread"))
        var o = LogReaderOptions()
        o.threads = 2
        XCTAssertEqual(try LogReader(path: path, options: o).reading, .parallel(threads: 2))
        o.format = .gpx
        XCTAssertEqual(try LogReader(path: path, options: o).reading.name, "serial")
    }

    /// The byte counter the round splitting relies on.
    func testCountByte() {
        var g = SeededGenerator(seed: 5)
        let bytes = (0..<1000).map { _ in UInt8(truncatingIfNeeded: g.next() % 5 == 0 ? 0x0A : g.next()) }
        bytes.withUnsafeBufferPointer { b in
            for (from, to) in [(0, 1000), (3, 17), (7, 8), (0, 0), (500, 999)] {
                for c: UInt8 in [0x0A, 0x22, 0x00, 0xFF] {
                    XCTAssertEqual(ParallelReader.countByte(b.baseAddress!, from, to, c), bytes[from..<to].filter { $0 == c }.count)
                }
            }
        }
    }

    /// The copy of a chunk's joined fixes into the batch writes each patch's device over its
    /// range and leaves every other fix as it was: patches at the start, at the end, side by
    /// side, of one fix, none; against the fixes patched one by one.
    func testCopyWritesThePatchedDevices() {
        let fixes = (0..<40).map { (k: Int) -> Fix in
            let x = Double(k)
            return Fix(device: Int32(-1 - k % 3), time: x, lat: x / 10, lon: -x / 10)
        }
        let cases: [[(Int, Int, Int32)]] = [[], [(0, 5, 7)], [(35, 40, 8)], [(0, 40, 9)], [(3, 4, 1), (4, 10, 2), (20, 21, 3)],
                                            [(1, 2, 0), (38, 39, 5)]]
        for ranges in cases {
            for count in [40, 39, 21] where ranges.allSatisfy({ $0.1 <= count }) {
                var expected = Array(fixes[0..<count])
                for (s, e, d) in ranges { for k in s..<e { expected[k].device = d } }
                let patches = ranges.map { DevicePatch(from: Int32($0.0), end: Int32($0.1), device: $0.2) }
                var out = [Fix](repeating: Fix(device: 99, time: -1, lat: 0, lon: 0), count: count + 2)
                fixes.withUnsafeBufferPointer { f in
                    patches.withUnsafeBufferPointer { p in
                        out.withUnsafeMutableBufferPointer { o in
                            FixCopy(from: f.baseAddress!, to: o.baseAddress! + 1, count: count, patches: p).run()
                        }
                    }
                }
                XCTAssertEqual(Array(out[1...count]), expected, "patches \(ranges), \(count) fixes")
                XCTAssertEqual(out[0].device, 99, "nothing written before the room")
                XCTAssertEqual(out[count + 1].device, 99, "nothing written past the room")
            }
        }
    }

    /// A chunk's storage keeps what was written as it grows, whether by an append past its room
    /// (the general path's rows), by room asked for the staged rows, or by a reserve; its room
    /// starts right after the fixes written. (A parse reserves enough for any chunk at once, so
    /// the growth paths are met here only.)
    func testChunkStorageKeepsFixesAsItGrows() {
        var c = ChunkFixes()
        defer { c.deallocate() }
        XCTAssertEqual(c.count, 0)
        XCTAssertEqual(c.written.count, 0)
        func fix(_ k: Int) -> Fix { Fix(device: Int32(k % 7), time: Double(k), lat: Double(k % 90), lon: -Double(k % 180), accuracy: Double(k & 3), offset: Int16(k % 5)) }
        var expected: [(Fix, Int)] = []
        for k in 0..<100 {
            c.append(fix(k), line: 1000 + k)
            expected.append((fix(k), 1000 + k))
        }
        XCTAssertGreaterThanOrEqual(c.capacity, 100)
        // Staged rows written at the room's pointers, then counted (as a parse worker's flush does).
        for round in 0..<5 {
            let before = c.capacity, needed = c.count + 40
            let room = c.room(40)
            XCTAssertEqual(room.fixes, c.fixes! + c.count)
            XCTAssertEqual(room.lines, c.lines! + c.count)
            if before >= needed {
                XCTAssertEqual(c.capacity, before, "no growth while there is room")
            } else {
                XCTAssertGreaterThanOrEqual(c.capacity, 2 * needed, "grown to twice what is asked")
            }
            let n = 17 + round * 5
            for i in 0..<n {
                let k = 100 + round * 100 + i
                (room.fixes + i).initialize(to: fix(k))
                (room.lines + i).initialize(to: 2000 + k)
                expected.append((fix(k), 2000 + k))
            }
            c.count += n
        }
        c.reserve(c.capacity * 3)
        for k in 0..<3 {
            c.append(fix(900 + k), line: 9000 + k)
            expected.append((fix(900 + k), 9000 + k))
        }
        XCTAssertEqual(c.count, expected.count)
        XCTAssertEqual(Array(c.written), expected.map { $0.0 })
        XCTAssertEqual((0..<c.count).map { c.line($0) }, expected.map { $0.1 })
        XCTAssertEqual(c.written.map(\.offset), expected.map { $0.0.offset }, "the offsets too (== does not compare them)")
        // Runs written without their lines (as the run routine writes a parse worker's rows):
        // each range's lines go on from its first; a range that follows another in the storage
        // but not in the lines (a row skipped between them) stays a range of its own.
        func run(_ n: Int, line: Int) {
            let from = c.count, room = c.room(n)
            for i in 0..<n {
                (room.fixes + i).initialize(to: fix(5000 + expected.count))
                expected.append((fix(5000 + expected.count), line + i))
            }
            c.count += n
            c.noteRun(from: from, line: line)
        }
        run(10, line: 20_000)
        run(5, line: 20_010)                              // goes on: joins the range before
        XCTAssertEqual(c.runRanges.count, 1)
        run(4, line: 20_016)                              // one line skipped: a range of its own
        XCTAssertEqual(c.runRanges.count, 2)
        c.append(fix(7000), line: 20_020)
        expected.append((fix(7000), 20_020))
        run(3, line: 20_021)                              // after a fix of its own: a range of its own
        XCTAssertEqual(c.runRanges.count, 3)
        XCTAssertEqual(c.runLines, [20_000, 20_016, 20_021])
        XCTAssertEqual(Array(c.written), expected.map { $0.0 })
        XCTAssertEqual((0..<c.count).map { c.line($0) }, expected.map { $0.1 })
        XCTAssertEqual(c.last.line, 20_023)
        c.deallocate()
        XCTAssertEqual(c.count, 0)
        XCTAssertEqual(c.capacity, 0)
        XCTAssertNil(c.fixes)
        c.append(fix(1), line: 1)
        XCTAssertEqual(Array(c.written), [fix(1)])
    }
}

/// The cuts between chunks, against a plain scan of the text.
final class ChunkBoundaryTests: XCTestCase {
    /// Record ends by RFC 4180: a newline outside quotes (a quote toggles; `""` toggles twice).
    func recordEnds(_ b: [UInt8]) -> [Int] {
        var quoted = false, out: [Int] = []
        for (i, c) in b.enumerated() {
            if c == 0x22 { quoted.toggle() } else if c == 0x0A && !quoted { out.append(i + 1) }
        }
        return out
    }

    func testBoundariesByParityAreRecordEnds() {
        var g = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            var text = ""
            for _ in 0..<Int(g.next() % 30) {
                switch g.next() % 5 {
                case 0: text += "\"a\nb\"\"c\",1\n"
                case 1: text += "x,\"\n\n\",2\n"
                case 2: text += "\n"
                default: text += "plain,\(g.next() % 100)\n"
                }
            }
            let bytes = Array(text.utf8)
            let ends = recordEnds(bytes)
            let guesses = bytes.isEmpty ? [] : (0..<Int(g.next() % 6)).map { _ in Int(g.next() % UInt64(bytes.count)) }.sorted()
            var copy = bytes + [0]
            copy.withUnsafeMutableBufferPointer { b in
                let (starts, end) = ParallelReader.boundariesByParity(b.baseAddress!, 0, bytes.count, eof: false, guesses: guesses)
                XCTAssertEqual(end, ends.last, text)
                // Each start: the first record end after its guess (duplicates dropped).
                var expected: [Int] = []
                for gu in guesses {
                    if let e = ends.first(where: { $0 > gu }), e != expected.last, e != bytes.count + 1 { expected.append(e) }
                }
                XCTAssertEqual(starts, expected.filter { _ in true }, text)
                let (plainStarts, plainEnd) = ParallelReader.boundaries(b.baseAddress!, 0, bytes.count, eof: true, guesses: guesses)
                XCTAssertEqual(plainEnd, bytes.count)
                for s in plainStarts { XCTAssertEqual(bytes[s - 1], 0x0A) }
            }
        }
    }
}
