import CFastDecimal
import Foundation
import XCTest
import GeofenceTestSupport
@testable import GeofenceBase
@testable import GeofenceLogs

/// The one-pass CSV row parser (CSVFastRow.swift, PlainDecimal.swift) against the general path
/// it stands in for, and against `Double(String)` (strtod): bit-identical fixes, the same
/// devices, skips, messages and errors, whatever the number shapes, the window ends and the
/// thread count.
final class CSVFastRowTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = makeTemporaryDirectory() }
    override func tearDown() {
        CSVLogParser.fastRows = true
        CSVLogParser.rowBlocksEnabled = true
        try? FileManager.default.removeItem(atPath: dir)
    }

    // MARK: Numbers

    /// Random number text: a sign, 0 to 20 integer digits (leading zeros too), a point, 0 to
    /// 20 fraction digits, now and then an exponent or a stray byte.
    func numberText(_ g: inout SeededGenerator) -> String {
        var s = ""
        switch g.next() % 4 { case 0: s += "-"; case 1: s += "+"; default: break }
        let digits = Int(g.next() % 21)
        for k in 0..<digits { s += String(k == 0 && g.next() % 3 == 0 ? 0 : g.next() % 10) }
        if g.next() % 4 != 0 {
            s += "."
            for _ in 0..<Int(g.next() % 21) { s += String(g.next() % 10) }
        }
        switch g.next() % 12 {
        case 0: s += "e" + String(Int(g.next() % 40) - 20)
        case 1: s += "x"
        case 2: s += " "
        case 3: s += "\t"
        default: break
        }
        switch g.next() % 16 {
        case 0: s = " " + s
        case 1: s = "\t " + s
        default: break
        }
        return s
    }

    /// `PlainDecimal.prefix` either declines or gives `Double(String)`'s value bit for bit and
    /// stops exactly where the plain number ends; with the text at the very end of the readable
    /// bytes too (the loop path).
    func testPlainPrefixAgreesWithStrtod() {
        var g = SeededGenerator(seed: 7)
        var decided = 0, tried = 0
        for _ in 0..<40_000 {
            let text = numberText(&g)
            let plain = text.prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" }
            // The plain part is a number only as `[+-]digits[.digits]` with a digit.
            let isPlain = plain.range(of: #"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$"#, options: .regularExpression) != nil
            for padded in [true, false] {
                var bytes = Array(text.utf8)
                let limit = bytes.count
                if padded { bytes += Array(",0123456789abcdefghijklmnopqrstuvwxyz".utf8) }
                let got = bytes.withUnsafeBufferPointer { PlainDecimal.prefix($0.baseAddress!, 0, padded ? bytes.count : limit) }
                tried += 1
                guard let (v, end) = got else { continue }
                decided += 1
                XCTAssertTrue(isPlain, "\(text): decided a number that is not plain")
                XCTAssertEqual(end, plain.utf8.count, "\(text): stopped at \(end)")
                let expected = Double(String(plain))
                XCTAssertEqual(v.bitPattern, expected?.bitPattern, "\(text): \(v) vs \(String(describing: expected))")
                let viaParser = Array(plain.utf8).withUnsafeBufferPointer { DecimalParser.parse($0.baseAddress!, $0.count) }
                XCTAssertEqual(v.bitPattern, viaParser?.bitPattern, "\(text)")
            }
        }
        // Most shapes are decided here (the test would pass vacuously otherwise).
        XCTAssertGreaterThan(decided, tried / 3)
    }

    /// The shapes the straight-line path takes (coordinates with up to 7 decimals, epoch
    /// seconds and milliseconds), each with every digit count, against strtod.
    func testCommonShapesExactly() {
        var g = SeededGenerator(seed: 11)
        for intDigits in 0...16 {
            for fracDigits in -1...9 {
                for _ in 0..<30 {
                    var s = g.next() % 2 == 0 ? "-" : ""
                    for _ in 0..<intDigits { s += String(g.next() % 10) }
                    if fracDigits >= 0 { s += "." }
                    for _ in 0..<max(fracDigits, 0) { s += String(g.next() % 10) }
                    let bytes = Array((s + ",1234567890123456789012345678901234567890").utf8)
                    let got = bytes.withUnsafeBufferPointer { PlainDecimal.prefix($0.baseAddress!, 0, $0.count) }
                    let expected = Double(s)
                    if let (v, end) = got {
                        XCTAssertEqual(end, s.utf8.count, s)
                        XCTAssertEqual(v.bitPattern, expected?.bitPattern, s)
                    } else if intDigits + max(fracDigits, 0) > 0 && intDigits + max(fracDigits, 0) <= 15 {
                        XCTFail("\(s): a common shape was declined")
                    }
                }
            }
        }
    }

    /// `PlainDecimal.wide` (the row path with one bounds check per row) either declines or
    /// gives `Double(String)`'s value bit for bit, stopping where the plain number ends; it
    /// decides every common shape (up to 7 integer digits with up to 7 fraction digits, 1 to 15
    /// integer digits alone), and what it decides `prefix` gives the same.
    func testWideNumbersAgreeWithStrtod() {
        var g = SeededGenerator(seed: 13)
        var cases: [(text: String, common: Bool)] = []
        for _ in 0..<40_000 { cases.append((numberText(&g), false)) }
        for intDigits in 0...16 {
            for fracDigits in -1...9 {
                for _ in 0..<20 {
                    var s = g.next() % 2 == 0 ? "-" : ""
                    for _ in 0..<intDigits { s += String(g.next() % 10) }
                    if fracDigits >= 0 { s += "." }
                    for _ in 0..<max(fracDigits, 0) { s += String(g.next() % 10) }
                    let common = fracDigits < 0 ? (1...15).contains(intDigits) : intDigits <= 7 && fracDigits <= 7 && intDigits + fracDigits > 0
                    cases.append((s, common))
                }
            }
        }
        var decided = 0
        for (text, common) in cases {
            let plain = text.prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" }
            let isPlain = plain.range(of: #"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$"#, options: .regularExpression) != nil
            let bytes = Array((text + ",9876543210987654321098765432109876543210").utf8)
            let got = bytes.withUnsafeBufferPointer { PlainDecimal.wide($0.baseAddress!, 0) }
            guard let (v, end) = got else {
                if common { XCTFail("\(text): a common shape was declined") }
                continue
            }
            decided += 1
            XCTAssertTrue(isPlain, "\(text): decided a number that is not plain")
            XCTAssertEqual(end, plain.utf8.count, "\(text): stopped at \(end)")
            let expected = Double(String(plain))
            XCTAssertEqual(v.bitPattern, expected?.bitPattern, "\(text): \(v) vs \(String(describing: expected))")
            let viaPrefix = bytes.withUnsafeBufferPointer { PlainDecimal.prefix($0.baseAddress!, 0, $0.count) }
            XCTAssertEqual(v.bitPattern, viaPrefix?.value.bitPattern, text)
        }
        XCTAssertGreaterThan(decided, cases.count / 5)
    }

    /// `PlainDecimal.epochInteger` (an epoch time read apart from the row's other numbers)
    /// decides exactly the unsigned integers of 8 to 15 digits not followed by a point, each
    /// `Double(String)`'s value bit for bit, and declines everything else.
    func testEpochIntegersAgreeWithStrtod() {
        var g = SeededGenerator(seed: 23)
        var decided = 0
        for digits in 0...18 {
            for suffix in [",", ".", ".5,", "\n", "e3,", "-1,", "x"] {
                for sign in ["", "-", "+"] {
                    for _ in 0..<30 {
                        var s = sign
                        for k in 0..<digits { s += String(k == 0 && g.next() % 4 != 0 ? 1 + g.next() % 9 : g.next() % 10) }
                        let bytes = Array((s + suffix + "9876543210987654321").utf8)
                        let got = bytes.withUnsafeBufferPointer { PlainDecimal.epochInteger($0.baseAddress!, 0) }
                        let expected = sign.isEmpty && (8...15).contains(digits) && !suffix.hasPrefix(".")
                        guard let (v, end) = got else {
                            XCTAssertFalse(expected, "\(s)\(suffix): declined")
                            continue
                        }
                        decided += 1
                        XCTAssertTrue(expected, "\(s)\(suffix): decided")
                        XCTAssertEqual(end, s.utf8.count, s)
                        XCTAssertEqual(v.bitPattern, Double(s)?.bitPattern, s)
                    }
                }
            }
        }
        XCTAssertEqual(decided, 8 * 5 * 30)
    }

    /// Epoch times of every length around the integer path's (7 to 16 digits, milliseconds
    /// included), with a fraction, a sign or an exponent, read by the one-check row as by the
    /// general path: the same fixes, time unit, skips and messages.
    func testEpochTimesOfEveryShapeMatchGeneralPath() throws {
        var g = SeededGenerator(seed: 29)
        let shapes: [(String, (Int) -> String)] = [
            ("7 digits", { String(1_000_000 + $0) }), ("8 digits", { String(10_000_000 + $0) }),
            ("seconds", { String(1_750_000_000 + $0) }), ("milliseconds", { String(1_750_000_000_000 + 250 * $0) }),
            ("15 digits", { String(175_000_000_000_000 + $0) }), ("16 digits", { String(1_750_000_000_000_000 + $0) }),
            ("fraction", { "\(1_750_000_000 + $0).\($0 % 10)" }), ("point", { "\(1_750_000_000 + $0)." }),
            ("plus", { "+\(1_750_000_000 + $0)" }), ("exponent", { "\(1_750_000_000 + $0)e0" }),
            ("mixed", { $0 % 3 == 0 ? "\(1_750_000_000 + $0).5" : String(1_750_000_000 + $0) }),
        ]
        for (name, time) in shapes {
            var text = "device,time,lat,lon,accuracy\n"
            for r in 0..<600 {
                let lat = String(format: "%.\(g.next() % 8)f", Double(g.next() % 180_000_000) / 1e6 - 90)
                let lon = String(format: "%.\(g.next() % 8)f", Double(g.next() % 360_000_000) / 1e6 - 180)
                text += "d\(r % 17),\(time(r)),\(lat),\(lon),\(g.next() % 50)\n"
            }
            let path = writeFile(dir, "epoch.csv", text)
            let fast = outcome(path, LogReaderOptions(), fast: true)
            assertSame(fast, outcome(path, LogReaderOptions(), fast: false), name)
            XCTAssertGreaterThan(fast.fixes.count, 0, name)
        }
    }

    /// Rows far enough from the window's end take the one-check row (`wideFields`); clean
    /// rows of every number shape and device length, with `\n` and `\r\n`, read the same as on
    /// the general path, and each number is strtod's.
    func testWideRowsMatchGeneralPathAndStrtod() throws {
        var g = SeededGenerator(seed: 17)
        for nl in ["\n", "\r\n"] {
            var text = "device,time,lat,lon,accuracy" + nl
            var expected: [[UInt64]] = []
            for r in 0..<3_000 {
                // Plain names of 2 to 71 bytes, and names with blanks or low bytes inside, at an
                // end, within the first 8 bytes or after them.
                let odd = ["long device name \(r % 7)", "0123456789\(r % 3) ", "\tlead\(r % 3)", "ab!c\(r % 3)",
                           "tab\tin\(r % 3)", "twelve bytes\(r % 3)\t", "x"]
                let name = r % 3 == 0 ? odd[Int(g.next() % UInt64(odd.count))]
                                      : "d" + String(repeating: "x", count: Int(g.next() % 70)) + String(r % 50)
                let lat = String(format: "%.\(g.next() % 9)f", Double(g.next() % 180_000_000) / 1e6 - 90)
                let lon = String(format: "%.\(g.next() % 9)f", Double(g.next() % 360_000_000) / 1e6 - 180)
                let acc = g.next() % 3 == 0 ? String(g.next() % 100) : String(format: "%.\(g.next() % 9)f", Double(g.next() % 100_000) / 100)
                let t = 1_750_000_000 + r
                text += "\(name),\(t),\(lat),\(lon),\(acc)" + nl
                expected.append([Double(t), Double(lat)!, Double(lon)!, Double(acc)!].map(\.bitPattern))
            }
            let path = writeFile(dir, "wide.csv", text)
            let fast = outcome(path, LogReaderOptions(), fast: true)
            assertSame(fast, outcome(path, LogReaderOptions(), fast: false), "wide rows")
            XCTAssertEqual(fast.fixes.map { Array($0[2...5]) }, expected)
        }
    }

    /// Rows of the usual layout with ISO 8601 times: the one-check row reads
    /// `YYYY-MM-DDThh:mm:ssZ` itself, and every other form, or an invalid date, time or zone,
    /// gives what the general path gives (the same fixes, skips and messages).
    func testWideRowsWithUTCTimesMatchGeneralPath() throws {
        var g = SeededGenerator(seed: 23)
        // Other forms of the same instant, and invalid dates, times and zones.
        func odd(_ text: String, _ k: UInt64) -> String {
            var b = Array(text.utf8)                                   // YYYY-MM-DDThh:mm:ssZ
            switch k % 12 {
            case 0: b[10] = UInt8(ascii: " ")
            case 1: b[10] = UInt8(ascii: "t"); b[19] = UInt8(ascii: "z")
            case 2: return String(decoding: b.dropLast(), as: UTF8.self) + "+00:00"
            case 3: return String(decoding: b.dropLast(), as: UTF8.self) + ".5Z"
            case 4: return String(decoding: b.dropLast(), as: UTF8.self)
            case 5: b[5] = UInt8(ascii: "1"); b[6] = UInt8(ascii: "3")              // month 13
            case 6: b[8] = UInt8(ascii: "3"); b[9] = UInt8(ascii: "2")              // day 32
            case 7: b[11] = UInt8(ascii: "2"); b[12] = UInt8(ascii: "4")            // hour 24
            case 8: b[14] = UInt8(ascii: "6")                                       // minute 6x
            case 9: b[18] = UInt8(ascii: "a")
            case 10: b[7] = UInt8(ascii: "/")
            default: b[10] = UInt8(ascii: "X")
            }
            return String(decoding: b, as: UTF8.self)
        }
        for lenient in [false, true] {
            for nl in ["\n", "\r\n"] {
                var text = "device,time,lat,lon" + nl
                var t = 1_590_000_000.0
                for r in 0..<2_000 {
                    t += Double(g.next() % 200)
                    let time = !lenient || g.next() % 8 != 0 ? LogTime.format(t) : odd(LogTime.format(t), g.next())
                    text += "\(369_000_000 + r % 12),\(time),\(Double(g.next() % 90_000) / 1000),\(Double(g.next() % 180_000) / -1000)" + nl
                }
                let path = writeFile(dir, "utc.csv", text)
                let options = LogReaderOptions(skipInvalid: lenient)
                let fast = outcome(path, options, fast: true)
                assertSame(fast, outcome(path, options, fast: false), "UTC rows, lenient \(lenient)")
                XCTAssertGreaterThan(fast.fixes.count, 1_500, "\(fast.error ?? "") \(fast.skipped)")
                if lenient { XCTAssertFalse(fast.skipped.isEmpty) }
            }
        }
    }

    // MARK: Device keys

    /// A name's tail word is the same whether it is loaded in one piece or assembled from
    /// short loads, and interning matches a dictionary over many lengths and near-equal names.
    func testDeviceInterningMatchesADictionary() {
        var g = SeededGenerator(seed: 3)
        var state = DeviceState()
        var reference: [[UInt8]: Int32] = [:]
        var names: [[UInt8]] = []
        for _ in 0..<3_000 {
            var name: [UInt8]
            if !names.isEmpty && g.next() % 3 == 0 {
                name = names[Int(g.next() % UInt64(names.count))]
                if g.next() % 2 == 0 {                       // one byte off, or one longer
                    let k = Int(g.next() % UInt64(name.count))
                    if g.next() % 2 == 0 { name[k] ^= 1 } else { name.append(name[k]) }
                }
            } else {
                name = (0..<(1 + Int(g.next() % 40))).map { _ in UInt8(ascii: "a") + UInt8(g.next() % 3) }
            }
            let padded = name + [UInt8](repeating: 0x7A, count: 16)
            let got: Int32? = padded.withUnsafeBufferPointer { b in
                let n = name.count
                let short = DeviceState.tail(b.baseAddress!, n, readable: n)
                let long = DeviceState.tail(b.baseAddress!, n, readable: b.count)
                XCTAssertEqual(short, long, "\(n)")
                // Alternate how many bytes past the name may be read.
                return state.intern(b.baseAddress!, n, readable: g.next() % 2 == 0 ? n : b.count)
            }
            let expected = reference[name] ?? Int32(reference.count)
            if reference[name] == nil { reference[name] = expected; names.append(name) }
            XCTAssertEqual(got, expected)
        }
        for (name, id) in reference {
            XCTAssertEqual(name.withUnsafeBufferPointer { state.find($0.baseAddress!, $0.count) }, id)
        }
    }

    // MARK: Whole files, fast path against general path

    /// Everything a read shows; fixes compared bit for bit, offsets included.
    struct Outcome: Equatable {
        var fixes: [[UInt64]] = []
        var devices: [String] = []
        var skipped: [SkipReason: Int] = [:]
        var messages: [SkipReason: String] = [:]
        var error: String? = nil
        var unit: TimeUnit? = nil
        var first: UInt64? = nil
        var line = 0
    }

    /// Fails with the first difference (a whole outcome is too long to print).
    func assertSame(_ a: Outcome, _ b: Outcome, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        guard a != b else { return }
        if let k = a.fixes.indices.first(where: { $0 < b.fixes.count && a.fixes[$0] != b.fixes[$0] }) {
            return XCTFail("\(what): fix \(k) differs: \(a.fixes[k]) vs \(b.fixes[k])", file: file, line: line)
        }
        var x = a, y = b
        x.fixes = []; y.fixes = []
        XCTFail("\(what): \(a.fixes.count) vs \(b.fixes.count) fixes; \(x) vs \(y)", file: file, line: line)
    }

    func outcome(_ path: String, _ options: LogReaderOptions, fast: Bool) -> Outcome {
        CSVLogParser.fastRows = fast
        defer { CSVLogParser.fastRows = true }
        var o = Outcome()
        do {
            let reader = try LogReader(path: path, options: options)
            var b: [Fix] = []
            do {
                while try reader.next(into: &b, max: 500) {
                    o.fixes += b.map { [UInt64(bitPattern: Int64($0.device)), UInt64(bitPattern: Int64($0.offset)), $0.time.bitPattern,
                                        $0.lat.bitPattern, $0.lon.bitPattern, $0.accuracy.bitPattern] }
                }
            } catch {
                o.error = "\(error)"
            }
            o.devices = reader.devices.names
            o.skipped = reader.skipped
            o.messages = reader.firstSkipMessages
            o.unit = reader.detectedTimeUnit?.unit
            o.first = reader.detectedTimeUnit?.first.bitPattern
            if o.error == nil { o.line = reader.line }
        } catch {
            o.error = "\(error)"
        }
        return o
    }

    /// The fast path's outcome of `path` (options `base`) against `general`: read serially
    /// through the read buffer (not mapped) with each window size of `windows` (rows cut at
    /// every window end), and with 2 and 8 threads in parallel chunks of each size of `chunks`.
    func assertFastRowsSame(_ path: String, _ base: LogReaderOptions, as general: Outcome, windows: [Int], chunks: [Int],
                            _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for window in windows {
            var o = base
            o.chunkSize = window
            o.mapThreshold = Int.max      // through the read buffer (a mapped file has none)
            assertSame(outcome(path, o, fast: true), general, "\(what), chunk \(window)", file: file, line: line)
        }
        for threads in [2, 8] {
            for chunk in chunks {
                var o = base
                o.threads = threads
                o.parallelChunkSize = chunk
                assertSame(outcome(path, o, fast: true), general, "\(what), threads \(threads), chunk \(chunk)", file: file, line: line)
            }
        }
    }

    /// A CSV log whose rows mix what the fast path takes with everything it must decline.
    func generatedLog(seed: UInt64, rows: Int) -> [UInt8] {
        var g = SeededGenerator(seed: seed)
        let nl = g.next() % 3 == 0 ? "\r\n" : "\n"
        let millis = g.next() % 3 == 0
        let delimiter = [",", ";", "\t", "|"][Int(seed % 4)]               // sniffed from the header
        var header = ["device", "time", "lat", "lon", "accuracy"]
        if g.next() % 2 == 0 { header.insert("speed", at: Int(g.next() % 5)) }     // a column no role reads
        if g.next() % 3 == 0 { header.swapAt(0, 3) }                                 // another column order
        var out = Array((header.joined(separator: delimiter) + nl).utf8)
        let names = ["a", "dev7", "12345678", "123456789", "367001234", "x y", "a-much-longer-device-name-0001",
                     "a-much-longer-device-name-0002", "dévice", "\"quo,ted\"", " padded ", ""]
        var t = 1_750_000_000.0
        for r in 0..<rows {
            t += Double(g.next() % 3)
            if r > 0 && g.next() % 40 == 0 { out += Array(nl.utf8); continue }      // blank line
            var values: [String: String] = [:]
            values["device"] = names[Int(g.next() % UInt64(names.count))]
            let seconds = millis ? String(Int(t) * 1000 + Int(g.next() % 1000)) : String(Int(t))
            switch r == 0 ? 15 : g.next() % 16 {                                   // the first time chooses the unit
            case 0: values["time"] = LogTime.format(t)
            case 1: values["time"] = LogTime.format(t).replacingOccurrences(of: "Z", with: "+02:00")
            case 2: values["time"] = seconds + ".25"
            case 3: values["time"] = " " + seconds
            case 4: values["time"] = "\"" + seconds + "\""
            case 5: values["time"] = g.next() % 2 == 0 ? "1.75e9" : "yesterday"
            case 6: values["time"] = String(Int(t) - 100)
            default: values["time"] = seconds
            }
            let bad = g.next() % 6 == 0
            values["lat"] = bad ? numberText(&g) : String(format: "%.\(g.next() % 9)f", Double(g.next() % 180_000_000) / 1e6 - 90)
            values["lon"] = bad && g.next() % 2 == 0 ? numberText(&g) : String(format: "%.\(g.next() % 9)f", Double(g.next() % 360_000_000) / 1e6 - 180)
            switch g.next() % 8 {
            case 0: values["accuracy"] = ""
            case 1: values["accuracy"] = numberText(&g)
            case 2: values["accuracy"] = "-0"
            default: values["accuracy"] = String(g.next() % 100) + "." + String(g.next() % 10)
            }
            values["speed"] = g.next() % 5 == 0 ? "\"1\(delimiter)5\"" : String(g.next() % 30)
            var fields = header.map { values[$0] ?? "" }
            switch g.next() % 50 {
            case 0: fields.removeLast()
            case 1: fields.append("extra")
            case 2: fields[Int(g.next() % UInt64(fields.count))] += "\""
            default: break
            }
            var line = Array(fields.joined(separator: delimiter).utf8)
            if g.next() % 50 == 0, let k = line.indices.filter({ line[$0] == delimiter.utf8.first! }).randomElement(using: &g) {
                line[k] = UInt8(ascii: "\"")                                      // a quote where a delimiter was
            }
            if g.next() % 200 == 0 { line.insert(0xFF, at: 0) }                       // not UTF-8
            out += line
            if r < rows - 1 || g.next() % 2 == 0 { out += Array(nl.utf8) }
        }
        return out
    }

    func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = dir + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    /// The fast path gives what the general path gives, lenient and strict, with windows of
    /// many sizes (rows cut at every window end), serially and with 2 and 8 threads.
    func testGeneratedLogsSameAsGeneralPath() {
        for seed in 1...24 as ClosedRange<UInt64> {
            let path = write(generatedLog(seed: seed, rows: 400), "log\(seed).csv")
            for lenient in [true, false] {
                let base = LogReaderOptions(skipInvalid: lenient)
                let general = outcome(path, base, fast: false)
                if lenient { XCTAssertGreaterThan(general.fixes.count, 100, "seed \(seed): too few good rows to compare") }
                assertFastRowsSame(path, base, as: general, windows: [1, 7, 64, 1000, 1 << 20], chunks: [5, 300, 1 << 20],
                                   "seed \(seed), lenient \(lenient)")
            }
        }
    }

    /// A log grouped by device (runs of one name, as AIS exports are) whose names change by one
    /// byte at the start, the middle or the end, or by a byte added or dropped, at every length
    /// from 1 to 40: the devices, their order and the fixes are the general path's, serially
    /// with read windows that cut rows and move, and with 2 and 8 threads and small chunks.
    func testRunsOfOneDeviceSameAsGeneralPath() {
        var g = SeededGenerator(seed: 41)
        var text = "device,time,lat,lon\n"
        var name = "d"
        var t = 1_750_000_000
        for _ in 0..<600 {
            switch g.next() % 6 {
            case 0:                                   // one byte changed, somewhere
                var bytes = Array(name.utf8)
                let k = Int(g.next() % UInt64(bytes.count))
                bytes[k] = bytes[k] == UInt8(ascii: "z") ? UInt8(ascii: "a") : bytes[k] + 1
                name = String(decoding: bytes, as: UTF8.self)
            case 1 where name.count < 40: name += String(g.next() % 10)           // a byte added
            case 2 where name.count > 1: name.removeLast()                          // a byte dropped
            default: break                                                          // the same name
            }
            for _ in 0..<Int(1 + g.next() % 4) {
                t += 1
                text += "\(name),\(t),\(Double(g.next() % 1_000_000) / 1e4 - 50),\(Double(g.next() % 1_000_000) / 1e4 - 50)\n"
            }
        }
        let path = write(Array(text.utf8), "runs.csv")
        let general = outcome(path, LogReaderOptions(), fast: false)
        XCTAssertGreaterThan(general.devices.count, 100)
        assertFastRowsSame(path, LogReaderOptions(), as: general, windows: [7, 64, 1 << 20], chunks: [300, 4096, 1 << 20], "runs")
    }

    /// Runs of rows the one-check path takes, each run followed by one it must decline: a number
    /// out of range, a number it does not convert (a '+', 16 digits, an exponent), a byte
    /// between the numbers and the line end, a field too many, a quoted field over a line end,
    /// an invalid time, a negative accuracy, a blank line; times ISO, integer or decimal epochs
    /// (one more number in the run), changing within a run; `\n` or `\r\n`. The same fixes,
    /// devices, skips, messages and errors as the general path, lenient and strict, serially
    /// (windows that cut rows, and the file mapped) and in parallel.
    func testDeclinedRowsAmongOneCheckRowsSameAsGeneralPath() {
        for seed in 1...6 as ClosedRange<UInt64> {
            var g = SeededGenerator(seed: 60 + seed)
            let accuracy = seed % 2 == 0
            let nl = seed % 3 == 0 ? "\r\n" : "\n"
            var text = (accuracy ? "device,time,lat,lon,accuracy" : "device,time,lat,lon") + nl
            var t = 1_750_000_000
            var form = 0
            for _ in 0..<120 {
                for _ in 0..<Int(1 + g.next() % 45) {
                    t += 1 + Int(g.next() % 3)
                    if g.next() % 7 == 0 { form = Int(g.next() % 3) }
                    let time = form == 0 ? String(t) : form == 1 ? LogTime.format(Double(t)) : "\(t).25"     // read apart, or a number of the run
                    let lat = String(format: "%.\(g.next() % 8)f", Double(g.next() % 180_000_000) / 1e6 - 90)
                    let lon = String(format: "%.\(g.next() % 8)f", Double(g.next() % 360_000_000) / 1e6 - 180)
                    text += "d\(g.next() % 9),\(time),\(lat),\(lon)" + (accuracy ? ",\(g.next() % 50).5" : "") + nl
                }
                t += 1
                let tail = accuracy ? ",3.5" : ""
                let d = "d\(g.next() % 9)"
                switch g.next() % 11 {
                case 0: text += "\(d),\(t),95.5,10.0\(tail)"
                case 1: text += "\(d),\(t),45.0,+12.5\(tail)"
                case 2: text += "\(d),\(t),12.345678901234567,10.0\(tail)"
                case 3: text += "\(d),\(t),1e1,10.0\(tail)"
                case 4: text += "\(d),\(t),12.5,10.0\(tail),x"
                case 5: text += "\(d),\(t),12.5,10.0\(tail) "
                case 6: text += "\(d),\(t),\"12.5\(nl)\",10.0\(tail)"
                case 7: text += "\(d),2026-06-30T02:07:61Z,12.5,10.0\(tail)"
                case 8: text += accuracy ? "\(d),\(t),12.5,10.0,-1" : "\(d),\(t),-90.5,10.0"
                case 9: text += ""
                default: text += "\(d),\(t),12.5\r,10.0\(tail)"
                }
                text += nl
            }
            let path = write(Array(text.utf8), "block\(seed).csv")
            for lenient in [true, false] {
                let base = LogReaderOptions(skipInvalid: lenient)
                let general = outcome(path, base, fast: false)
                if lenient { XCTAssertGreaterThan(general.fixes.count, 2_000, "seed \(seed)") }
                assertSame(outcome(path, base, fast: true), general, "seed \(seed), lenient \(lenient), mapped")
                assertFastRowsSame(path, base, as: general, windows: [7, 300, 1 << 20], chunks: [700, 1 << 20], "seed \(seed), lenient \(lenient)")
            }
        }
    }


    // MARK: Row blocks

    /// A log of the usual layout whose rows the block path reads or must leave to the row at a
    /// time path, mixed: devices of 1 to 70 bytes, some with a blank, a tab, a quote, `#`, `~`,
    /// DEL or a non-ASCII byte; ISO times whose date changes every few rows (a 30 February, a
    /// leap second, `t`, a blank or `z` too; a year far out of the plausible range) or epoch
    /// seconds, whole or with a fraction; numbers of up to 16 digits, `-0`, `.5`, `5.`, `+5`,
    /// out of range; an accuracy or not, negative now and then; `\n` or `\r\n`; rows longer than
    /// 64 bytes.
    func standardLog(seed: UInt64, rows: Int) -> [UInt8] {
        var g = SeededGenerator(seed: seed)
        let accuracy = seed % 2 == 0
        let nl = seed % 3 == 0 ? "\r\n" : "\n"
        var out = Array(((accuracy ? "device,time,lat,lon,accuracy" : "device,time,lat,lon") + nl).utf8)
        let odd: [[UInt8]] = [Array("x y".utf8), [0x61, 0x09, 0x62], Array("a#b".utf8), Array("~!~".utf8), [0x61, 0x7F],
                              Array("dé".utf8), Array("q\"q".utf8), Array("#".utf8)]
        var t = 1_750_000_000.0
        let iso = seed % 4 < 2
        for _ in 0..<rows {
            t += Double(g.next() % 5000)
            var device: [UInt8]
            if g.next() % 40 == 0 {
                device = odd[Int(g.next() % UInt64(odd.count))]
            } else {
                let n = Int(1 + (g.next() % 8 == 0 ? g.next() % 70 : g.next() % 12))
                device = (0..<n).map { _ in UInt8(0x21 + g.next() % 94) }.map { $0 == 0x22 || $0 == 0x2C ? 0x5F : $0 }
                if g.next() % 3 == 0 { device = Array("d\(g.next() % 20)".utf8) }
            }
            var time: String
            if iso || g.next() % 10 == 0 {
                time = LogTime.format(t)
                switch g.next() % 40 {
                case 0: time = "2026-02-30T10:00:00Z"
                case 1: time = String(time.prefix(17)) + "60Z"
                case 2: time = time.replacingOccurrences(of: "T", with: g.next() % 2 == 0 ? "t" : " ")
                case 3: time = time.replacingOccurrences(of: "Z", with: "z")
                case 4: time = "1850-01-01T00:00:00Z"
                case 5: time = String(time.prefix(11)) + "24:00:00Z"
                default: break
                }
            } else {
                time = g.next() % 8 == 0 ? String(format: "%.3f", t + 0.25) : String(Int(t))
                if g.next() % 60 == 0 { time = "-5" }
            }
            func number(_ range: Double) -> String {
                switch g.next() % 120 {
                case 0: return "-0"
                case 1: return ".5"
                case 2: return "5."
                case 3: return "+5"
                case 4: return String(format: "%.12f", Double(g.next() % 1_000_000) / 1e6 * range)       // 15 or 16 digits
                case 5: return String(format: "%.6f", range + 0.5)
                default: return String(format: "%.\(g.next() % 9)f", (Double(g.next() % 2_000_000) / 1e6 - 1) * range)
                }
            }
            var fields = [String(decoding: device, as: UTF8.self), time, number(90), number(180)]
            if accuracy { fields.append(g.next() % 20 == 0 ? "-1.5" : String(format: "%.1f", Double(g.next() % 500) / 10)) }
            let line = Array(fields.joined(separator: ",").utf8)
            out += line + Array(nl.utf8)
        }
        return out
    }

    /// Rows read in blocks (`geofence_standard_rows`) against the same rows read one at a time,
    /// at each wide level the CPU has (AVX2, AVX-512): the same fixes bit for bit, devices,
    /// skips, messages and errors, lenient and strict, serially (windows that cut rows, and the
    /// file mapped) and in parallel; and blocks did read most rows.
    func testRowBlocksSameAsRowAtATime() throws {
        let best = Int(geofence_plain_decimals_level(-1))
        guard best >= 2 else { throw XCTSkip("no wide decimal path on this CPU") }
        defer { geofence_plain_decimals_level(Int32(best)) }
        for seed in 1...8 as ClosedRange<UInt64> {
            let path = write(standardLog(seed: seed, rows: 1500), "standard\(seed).csv")
            for level in 2...best {
                XCTAssertEqual(Int(geofence_plain_decimals_level(Int32(level))), level)
                for lenient in [true, false] {
                    let base = LogReaderOptions(skipInvalid: lenient)
                    CSVLogParser.rowBlocksEnabled = false
                    let rowAtATime = outcome(path, base, fast: true)
                    CSVLogParser.rowBlocksEnabled = true
                    if lenient { XCTAssertGreaterThan(rowAtATime.fixes.count, 700, "seed \(seed)") }
                    let what = "seed \(seed), level \(level), lenient \(lenient)"
                    assertSame(outcome(path, base, fast: true), rowAtATime, what + ", mapped")
                    assertFastRowsSame(path, base, as: rowAtATime, windows: [7, 300, 1 << 20], chunks: [700, 1 << 20], what)
                }
                // Blocks did read rows (a serial read of the mapped file; each row they leave
                // sends the next 64 to the row at a time path).
                let reader = try LogReader(path: path, options: LogReaderOptions(skipInvalid: true))
                var b: [Fix] = []
                var fixes = 0
                while try reader.next(into: &b, max: 500) { fixes += b.count }
                XCTAssertGreaterThan(reader.rowsInBlocks, 40, "seed \(seed), level \(level)")
                XCTAssertLessThanOrEqual(reader.rowsInBlocks, fixes)
            }
        }
    }

    /// Rows whose numbers mostly keep the layout of the row before (the same lengths, signs and
    /// points, which a block takes from that row without checking them again) and now and then
    /// change it by one thing: a digit more or less, a sign, the point moved or gone, a byte that
    /// is no digit, a field more or less, a blank; each row's values its own. The same fixes,
    /// skips and messages as rows read one at a time, and most rows read in blocks.
    func testRowBlocksKeepAndChangeTheNumbersLayout() throws {
        let best = Int(geofence_plain_decimals_level(-1))
        guard best >= 2 else { throw XCTSkip("no wide decimal path on this CPU") }
        defer { geofence_plain_decimals_level(Int32(best)) }
        var g = SeededGenerator(seed: 31)
        // A layout: digits before and after the point (nil: no point), and the sign.
        var layout = [(2, Optional(5), false), (3, Optional(5), true)]
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(g.next() % 10)) }) }
        func number(_ l: (Int, Int?, Bool), range: Int) -> String {
            var whole = digits(l.0)
            while whole.count > 1 && whole.first == "0" { whole.removeFirst() }
            if Int(whole)! >= range { whole = String(Int(whole)! % range) }
            return (l.2 ? "-" : "") + whole + (l.1.map { "." + digits($0) } ?? "")
        }
        for accuracy in [false, true] {
            var text = accuracy ? "device,time,lat,lon,accuracy\n" : "device,time,lat,lon\n"
            var t = 1_750_000_000
            for row in 0..<3000 {
                t += 1 + Int(g.next() % 90)
                if g.next() % 6 == 0 {
                    let k = Int(g.next() % 2)
                    switch g.next() % 5 {
                    case 0: layout[k].0 = 1 + (layout[k].0 + Int(g.next() % 2)) % 3
                    case 1: layout[k].2.toggle()
                    case 2: layout[k].1 = g.next() % 4 == 0 ? nil : 1 + Int(g.next() % 8)
                    default: break
                    }
                }
                var lat = number(layout[0], range: 90), lon = number(layout[1], range: 180)
                var tail = accuracy ? "," + number((1, 1, false), range: 10) : ""
                switch g.next() % 300 {
                case 0: lat = String(lat.dropLast()) + "x"                 // no digit
                case 1: lon = lon.replacingOccurrences(of: ".", with: "..")
                case 2: tail += ",7"                                        // a field more
                case 3: lon = " " + lon
                case 4: lat = "-" + lat
                // The same digits, points and delimiters as the layout, one byte of another kind.
                case 5: if lat.first == "-" { lat = "+" + lat.dropFirst() }
                case 6: lon = lon.replacingOccurrences(of: ".", with: "x")
                default: break
                }
                let time = g.next() % 3 == 0 ? String(t) : LogTime.format(Double(t))
                let between = g.next() % 400 == 0 ? ";" : ","
                text += "d\(row / 40),\(time),\(lat)\(between)\(lon)\(tail)\n"
            }
            let path = write(Array(text.utf8), "layouts\(accuracy).csv")
            assertBlocksSame(path, best: best, chunks: [700, 1 << 20], "accuracy \(accuracy)") { rowAtATime, what in
                XCTAssertGreaterThan(rowAtATime.fixes.count, 2500, what)
            }
            for level in 2...best {
                XCTAssertEqual(Int(geofence_plain_decimals_level(Int32(level))), level)
                let reader = try LogReader(path: path, options: LogReaderOptions(skipInvalid: true))
                var b: [Fix] = []
                while try reader.next(into: &b, max: 500) {}
                XCTAssertGreaterThan(reader.rowsInBlocks, 1000, "accuracy \(accuracy), level \(level)")
            }
        }
    }

    /// Runs of rows of one device (read in blocks, each run's rows after its first taken
    /// together): a duplicate (same time and position) and a fix at the same time elsewhere,
    /// a time that goes back, one out of the accepted range, another device for one row, a
    /// numeric time (the unit chosen there: a parallel read stopped at an earlier row, strict,
    /// must not report it), a row the blocks leave, in the middle of runs. The same fixes, skips,
    /// messages and errors as rows read one at a time, serially and in parallel.
    func testRowBlocksRunsOfOneDevice() throws {
        let best = Int(geofence_plain_decimals_level(-1))
        guard best >= 2 else { throw XCTSkip("no wide decimal path on this CPU") }
        defer { geofence_plain_decimals_level(Int32(best)) }
        var g = SeededGenerator(seed: 37)
        var text = "device,time,lat,lon\n"
        var t = 1_750_000_000
        var lat = "12.34567", lon = "-45.67891"
        for run in 0..<120 {
            let device = "vessel\(run % 7)-\(run % 3 == 0 ? "long-name-" : "")\(run)"
            for _ in 0..<Int(5 + g.next() % 60) {
                var time = t
                switch g.next() % 40 {
                case 0: time = t                                                  // duplicate, or the same time elsewhere
                    if g.next() % 2 == 0 { lat = String(format: "%.5f", Double(g.next() % 8_000_000) / 1e5) }
                case 1: time = t - 30                                             // back in time
                case 2: text += "other\(run),\(LogTime.format(Double(t))),1.5,2.5\n"
                case 3: text += "\(device),1850-01-01T00:00:00Z,1.5,2.5\n"     // out of range
                case 4: text += "\(device),\(t),\(lat),\(lon)\n"              // a numeric time
                case 5: text += "\(device),\(LogTime.format(Double(t))),\(lat),x\n"  // left by the blocks
                default:
                    t += 1 + Int(g.next() % 120)
                    time = t
                    lat = String(format: "%.5f", Double(g.next() % 8_000_000) / 1e5)
                    lon = String(format: "%.5f", -Double(g.next() % 17_000_000) / 1e5)
                }
                text += "\(device),\(LogTime.format(Double(time))),\(lat),\(lon)\n"
            }
        }
        let path = write(Array(text.utf8), "runs.csv")
        assertBlocksSame(path, best: best, chunks: [2000, 1 << 20], "runs") { rowAtATime, what in
            XCTAssertGreaterThan(rowAtATime.fixes.count, 3000, what)
            XCTAssertGreaterThan(rowAtATime.skipped.count, 1, what)
        }
    }

    /// Long runs of one device (most rows past a block, read by `geofence_run_rows`), with
    /// what must end a run among them: a duplicate, the same time elsewhere, a time back, a new
    /// date, a time or a latitude out of range, a row the blocks leave, another device, a lower
    /// case 't' and 'z', a clock out of range or not digits (a leap second is taken); ISO
    /// times (line feeds, then CRLF with an accuracy column, then device names of 17 to 20
    /// bytes) and millisecond epoch times; then numbers of a few layouts that repeat, as in a
    /// real trace, so that most rows are read by their classes (the run routine's rows whose
    /// layout it keeps, docs/logs.md "Row blocks"), among them another device
    /// whose name has the same classes, and clocks out of range with digits where digits go.
    /// Read with runs, without them (blocks only) and one row at a time: the same fixes,
    /// devices, skips, messages and errors, serially (mapped, and through read windows that cut
    /// rows) and in parallel chunks.
    func testRunsPastBlocksSameAsWithout() throws {
        let best = Int(geofence_plain_decimals_level(-1))
        guard best >= 2 else { throw XCTSkip("no wide decimal path on this CPU") }
        defer {
            geofence_plain_decimals_level(Int32(best))
            CSVLogParser.runRowsEnabled = true
        }
        XCTAssertTrue(CSVLogParser.fixLayoutMatches, "Fix is laid out as geofence_fix")
        for variant in 0..<5 {
            var g = SeededGenerator(seed: 91 &+ UInt64(variant))
            let nl = variant == 1 ? "\r\n" : "\n", accuracy = variant == 1, epoch = variant == 2
            var text = accuracy ? "device,time,lat,lon,accuracy" + nl : "device,time,lat,lon" + nl
            var t = 1_750_000_000, rows = 0
            var lat = "12.34567", lon = "-45.67891"
            func time(_ s: Int) -> String { epoch ? "\(s)000" : LogTime.format(Double(s)) }
            func row(_ device: String, _ time: String, _ lat: String, _ lon: String) {
                text += "\(device),\(time),\(lat),\(lon)" + (accuracy ? ",\(g.next() % 50).5" : "") + nl
                rows += 1
            }
            for run in 0..<40 {
                let device = variant == 3 ? "vessel-long-name-\(String(repeating: "x", count: run % 4))" : "\(367_000_000 + run % 13)"
                for _ in 0..<Int(40 + g.next() % 400) {
                    // (Variant 4: the rows that end a run half as often, as in a trace.)
                    switch g.next() % (variant == 4 ? 1200 : 600) {
                    case 0: row(device, time(t), lat, lon)                                      // a duplicate
                    case 1: row(device, time(t), lon.hasPrefix("-") ? "1.5" : "-1.5", lon)    // the same time elsewhere
                    case 2: row(device, time(t - 40), lat, lon)                                 // back in time
                    case 3: t += 86_400                                                           // a new date
                    case 4: row(device, time(-4_000_000_000), lat, lon)                         // out of the plausible range
                    case 5: row(device, time(t + 1), "91.5", lon)                               // latitude out of range
                    case 6: row(device, time(t + 1), lat, "x")                                  // left by the blocks
                    case 7: row("other\(run)", time(t + 1), lat, lon)                           // another device, once
                    case 10 where variant == 4: row("\(367_000_000 + (run + 1) % 13)", time(t + 1), lat, lon) // another device, the same classes
                    case 8 where !epoch: row(device, time(t + 1).lowercased(), lat, lon)        // 't' and 'z'
                    case 9 where !epoch:                                                          // a clock out of range
                        let clock = ["T24:00:00Z", "T23:60:00Z", "T23:59:61Z", "T2a:00:00Z", "T23:59:60Z"][Int(g.next() % 5)]
                        row(device, String(time(t + 1).prefix(10)) + clock, lat, lon)
                    default:
                        t += 1 + Int(g.next() % 90)
                        if variant == 4 {
                            // Five decimals in most rows, four in some: the few layouts of a trace.
                            let decimals = g.next() % 8 == 0 ? 4 : 5
                            lat = String(format: "%.\(decimals)f", 30 + Double(g.next() % 1_000_000) / 1e5)
                            lon = String(format: "%.\(decimals)f", -110 - Double(g.next() % 1_000_000) / 1e5)
                        } else {
                            lat = String(format: "%.\(1 + g.next() % 6)f", Double(g.next() % 8_000_000) / 1e5)
                            lon = String(format: "%.\(1 + g.next() % 6)f", -Double(g.next() % 17_000_000) / 1e5)
                        }
                        row(device, time(t), lat, lon)
                    }
                }
            }
            let path = write(Array(text.utf8), "runs\(variant).csv")
            for level in 2...best {
                XCTAssertEqual(Int(geofence_plain_decimals_level(Int32(level))), level)
                for lenient in [true, false] {
                    let options = LogReaderOptions(skipInvalid: lenient)
                    let w = "variant \(variant), level \(level), lenient \(lenient)"
                    CSVLogParser.rowBlocksEnabled = false
                    let rowAtATime = outcome(path, options, fast: true)
                    CSVLogParser.rowBlocksEnabled = true
                    CSVLogParser.runRowsEnabled = false
                    let blocksOnly = outcome(path, options, fast: true)
                    CSVLogParser.runRowsEnabled = true
                    assertSame(blocksOnly, rowAtATime, w + ", blocks without runs")
                    assertSame(outcome(path, options, fast: true), rowAtATime, w)
                    assertFastRowsSame(path, options, as: rowAtATime, windows: [300, 1 << 20], chunks: [2000, 1 << 20], w)
                    if lenient {
                        XCTAssertGreaterThan(rowAtATime.fixes.count, rows * 9 / 10, w)
                        XCTAssertGreaterThan(rowAtATime.skipped.count, 2, w)
                    }
                }
                // Half the rows or more are read as runs (a row the blocks leave is read one at a
                // time with the 63 lines after it, and each batch begins with a block).
                let reader = try LogReader(path: path, options: LogReaderOptions(skipInvalid: true))
                var b: [Fix] = []
                while try reader.next(into: &b, max: 1000) {}
                XCTAssertGreaterThan(reader.rowsInRuns, rows / 2, "variant \(variant), level \(level)")
            }
        }
    }

    /// The run routine (at both wide levels) keeps the layouts of the rows it has read, per
    /// thread, from one call and one log to the next (docs/logs.md, "Row blocks"): logs read one
    /// after another on this thread, of the same layouts with other digits and another device,
    /// another delimiter where the first log's commas were, a device name one byte shorter, CRLF
    /// line ends, positive longitudes, and more layouts than the routine keeps; each read with
    /// runs as its rows read one at a time read them (the same fixes bit for bit), most of its
    /// rows by the run routine.
    func testRunLayoutsKeptFromLogToLog() throws {
        let best = Int(geofence_plain_decimals_level(-1))
        guard best >= 2 else { throw XCTSkip("no wide decimal path on this CPU") }
        defer {
            geofence_plain_decimals_level(Int32(best))
            CSVLogParser.rowBlocksEnabled = true
        }
        let logs: [(delimiter: String, device: String, nl: String, decimals: ClosedRange<UInt64>, west: Bool)] = [
            (",", "367000001", "\n", 4...5, true), (",", "367000002", "\n", 4...5, true), (";", "367000001", "\n", 4...5, true),
            (",", "36700000", "\n", 4...5, true), (",", "367000001", "\r\n", 4...5, true), (",", "367000001", "\n", 4...5, false),
            (",", "367000001", "\n", 1...7, true), (",", "367000003", "\n", 4...5, true)]
        var g = SeededGenerator(seed: 2026)
        for level in 2...best {
            XCTAssertEqual(Int(geofence_plain_decimals_level(Int32(level))), level)
            for (n, log) in logs.enumerated() {
                let d = log.delimiter
                var text = "device\(d)time\(d)lat\(d)lon" + log.nl
                var t = 1_750_000_000
                let span = log.decimals.upperBound - log.decimals.lowerBound + 1
                for _ in 0..<800 {
                    t += 1 + Int(g.next() % 60)
                    let places = { log.decimals.lowerBound + g.next() % span }
                    let lat = String(format: "%.\(places())f", 30 + Double(g.next() % 1_000_000) / 1e5)
                    let lon = String(format: "%.\(places())f", (log.west ? -1 : 1) * (100 + Double(g.next() % 1_000_000) / 1e5))
                    text += log.device + d + LogTime.format(Double(t)) + d + lat + d + lon + log.nl
                }
                try assertReadAsOneAtATime(write(Array(text.utf8), "kept\(n).csv"), fixes: 800, "log \(n), level \(level)",
                                           most: 700, of: \.rowsInRuns)
            }
        }
    }

    /// The row blocks (at both wide levels) keep the layouts of their rows' numbers per thread,
    /// from one call and one log to the next (docs/logs.md, "Row blocks"): logs of points spread
    /// over the world read one after another on this thread, a device per row, numeric times,
    /// latitudes and longitudes of either sign, one to three whole digits and one to nine
    /// decimals (more layouts than the table keeps, so entries are replaced), with and without
    /// accuracy, `;` for `,`, CRLF line ends; each read in blocks as its rows read one at a time
    /// read them (the same fixes bit for bit, the same skips), most rows by the blocks.
    func testRowLayoutsKeptFromLogToLog() throws {
        let best = Int(geofence_plain_decimals_level(-1))
        guard best >= 2 else { throw XCTSkip("no wide decimal path on this CPU") }
        defer {
            geofence_plain_decimals_level(Int32(best))
            CSVLogParser.rowBlocksEnabled = true
        }
        let logs: [(delimiter: String, nl: String, accuracy: Bool, decimals: ClosedRange<UInt64>)] = [
            (",", "\n", true, 7...7), (",", "\n", true, 7...7), (",", "\n", false, 5...7), (";", "\n", true, 7...7),
            (",", "\r\n", true, 7...7), (",", "\n", true, 1...9), (",", "\n", false, 1...9), (",", "\n", true, 7...7)]
        var g = SeededGenerator(seed: 2027)
        for level in 2...best {
            XCTAssertEqual(Int(geofence_plain_decimals_level(Int32(level))), level)
            for (n, log) in logs.enumerated() {
                let d = log.delimiter
                var text = "device\(d)time\(d)lat\(d)lon" + (log.accuracy ? "\(d)accuracy" : "") + log.nl
                let span = log.decimals.upperBound - log.decimals.lowerBound + 1
                for i in 0..<1500 {
                    let places = { log.decimals.lowerBound + g.next() % span }
                    // Whole parts of one, two and three digits, either sign, and 0.
                    let lat = String(format: "%.\(places())f", (Double(g.next() % 180_000_001) - 90_000_000) / 1e6)
                    let lon = String(format: "%.\(places())f", (Double(g.next() % 360_000_001) - 180_000_000) / 1e6)
                    let accuracy = log.accuracy ? d + String(format: "%.1f", Double(g.next() % 1000) / 10) : ""
                    text += "d\(g.next() % 5000)" + d + "\(1_750_000_000 + i)" + d + lat + d + lon + accuracy + log.nl
                }
                try assertReadAsOneAtATime(write(Array(text.utf8), "scattered\(n).csv"), fixes: 1500, "log \(n), level \(level)",
                                           most: 1400, of: \.rowsInBlocks)
            }
        }
    }

    /// The log at `path` (`fixes` rows, all good) read with the row blocks as its rows read one
    /// at a time read it (the same fixes bit for bit, the same skips), more than `most` of its
    /// rows counted by the reader's `counter` (read by the blocks, or by the run routine).
    func assertReadAsOneAtATime(_ path: String, fixes: Int, _ what: String, most: Int, of counter: KeyPath<LogReader, Int>,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        CSVLogParser.rowBlocksEnabled = false
        let rowAtATime = outcome(path, LogReaderOptions(), fast: true)
        CSVLogParser.rowBlocksEnabled = true
        XCTAssertEqual(rowAtATime.fixes.count, fixes, what, file: file, line: line)
        assertSame(outcome(path, LogReaderOptions(), fast: true), rowAtATime, what, file: file, line: line)
        let reader = try LogReader(path: path)
        var b: [Fix] = []
        while try reader.next(into: &b, max: 1000) {}
        XCTAssertGreaterThan(reader[keyPath: counter], most, what, file: file, line: line)
    }

    /// At each wide level up to `best`, lenient and strict, the log at `path` read in blocks
    /// against the same rows read one at a time: the file mapped, through read windows that
    /// cut rows, and in parallel chunks. `check` is given each lenient row-at-a-time outcome.
    func assertBlocksSame(_ path: String, best: Int, chunks: [Int], _ what: String, check: (Outcome, String) -> Void,
                          file: StaticString = #filePath, line: UInt = #line) {
        for level in 2...best {
            XCTAssertEqual(Int(geofence_plain_decimals_level(Int32(level))), level, file: file, line: line)
            for lenient in [true, false] {
                let options = LogReaderOptions(skipInvalid: lenient)
                CSVLogParser.rowBlocksEnabled = false
                let rowAtATime = outcome(path, options, fast: true)
                CSVLogParser.rowBlocksEnabled = true
                let w = "\(what), level \(level), lenient \(lenient)"
                if lenient { check(rowAtATime, w) }
                assertSame(outcome(path, options, fast: true), rowAtATime, w, file: file, line: line)
                assertFastRowsSame(path, options, as: rowAtATime, windows: [300, 1 << 20], chunks: chunks, w, file: file, line: line)
            }
        }
    }

    /// A block stops at a row whose date is new (converted, then read on in blocks), at a row
    /// it leaves to the row at a time path, and at a time out of range (reported as that path
    /// reports it, at its line); strict, the error is the row at a time path's.
    func testRowBlocksStopWhereTheyMust() throws {
        guard geofence_plain_decimals_level(-1) >= 2 else { throw XCTSkip("no wide decimal path on this CPU") }
        var text = "device,time,lat,lon\n"
        for day in 1...9 { for h in 0..<20 { text += "a\(h % 3),2026-03-0\(day)T\(String(format: "%02d", h)):00:00Z,12.5,-7.25\n" } }
        text += "a0,2026-03-10T00:00:00Z,12.5,-7.25\n"
        text += "a1,1850-03-10T00:00:00Z,12.5,-7.25\n"                  // out of the plausible range
        text += "a1,2026-03-10T00:00:01Z,12.5,-7.25\n"
        let path = write(Array(text.utf8), "days.csv")
        for lenient in [true, false] {
            CSVLogParser.rowBlocksEnabled = false
            let rowAtATime = outcome(path, LogReaderOptions(skipInvalid: lenient), fast: true)
            CSVLogParser.rowBlocksEnabled = true
            let blocks = outcome(path, LogReaderOptions(skipInvalid: lenient), fast: true)
            assertSame(blocks, rowAtATime, "lenient \(lenient)")
            if lenient { XCTAssertEqual(blocks.fixes.count, 182) } else { XCTAssertNotNil(blocks.error) }
        }
        let reader = try LogReader(path: path, options: LogReaderOptions(skipInvalid: true))
        var b: [Fix] = []
        while try reader.next(into: &b, max: 1000) {}
        XCTAssertGreaterThanOrEqual(reader.rowsInBlocks, 175)
    }

    /// Rows whose run of numbers (a decimal time, lat, lon, accuracy: four numbers of up to 15
    /// bytes) ends 60 to 63 bytes after its first number, followed by a `\r` and then more
    /// bytes, a `\r\n`, a `\n` or another field, so that the row's `\n` falls at, just inside or
    /// past the end of the 64 bytes the line end is searched in: a row is taken only up to a
    /// `\n` that was found, and what follows a lone `\r` is read as the general path reads it
    /// (one row with the next one's fields in it). The same fixes, skips, messages and errors
    /// as the general path, lenient and strict, serially and in parallel.
    func testRunEndingAtTheLineScansEnd() {
        var text = "device,time,lat,lon,accuracy\n"
        var t = 1_591_279_000
        func ordinary(_ n: Int) { for k in 0..<n { t += 1; text += "a\(k % 3),\(t),12.5,10.25,3.5\n" } }
        ordinary(40)
        let endings = ["\rXe,1591279898,1,2,3\n", "\r,X,1,2\n", "\r\n", "\n", "\rx\n", ",5\n", "\r\r\n"]
        var rows = 0
        for width in 12...15 {
            for ending in endings {
                t += 1
                // Three numbers of 15 bytes (the time's fraction padded with zeros) and an
                // accuracy of `width`: a run of 48 + `width` bytes.
                let time = "\(t).0000"
                let coordinate = "12.345678901234"
                let accuracy = "1." + String(repeating: "0", count: width - 2)
                text += "d\(rows % 5),\(time),\(coordinate),\(coordinate),\(accuracy)\(ending)"
                rows += 1
                ordinary(3)
            }
        }
        ordinary(40)
        let path = write(Array(text.utf8), "scan-end.csv")
        for lenient in [true, false] {
            let base = LogReaderOptions(skipInvalid: lenient)
            let general = outcome(path, base, fast: false)
            if lenient {
                XCTAssertGreaterThan(general.fixes.count, 150)
                XCTAssertGreaterThan(general.skipped.values.reduce(0, +), 8, "rows the general path refuses are among them")
            }
            assertSame(outcome(path, base, fast: true), general, "lenient \(lenient), mapped")
            assertFastRowsSame(path, base, as: general, windows: [300, 1 << 20], chunks: [500, 1 << 20], "lenient \(lenient)")
        }
    }

    /// Clean logs (the shape the fast path is for), one device per row or runs of one device,
    /// read whole: the same fixes as the general path and as strtod.
    func testCleanLogMatchesStrtod() throws {
        var g = SeededGenerator(seed: 5)
        var text = "device,time,lat,lon,accuracy\n"
        var expected: [(String, Double, Double, Double, Double)] = []
        for r in 0..<5_000 {
            let d = "d\(g.next() % 300)"
            let lat = String(format: "%.7f", Double(g.next() % 180_000_000) / 1e6 - 90)
            let lon = String(format: "%.\(g.next() % 8)f", Double(g.next() % 360_000_000) / 1e6 - 180)
            let acc = String(format: "%.1f", Double(g.next() % 1000) / 10)
            let t = 1_750_000_000 + r
            text += "\(d),\(t),\(lat),\(lon),\(acc)\n"
            expected.append((d, Double(t), Double(lat)!, Double(lon)!, Double(acc)!))
        }
        let path = writeFile(dir, "clean.csv", text)
        let fast = outcome(path, LogReaderOptions(), fast: true)
        assertSame(fast, outcome(path, LogReaderOptions(), fast: false), "clean")
        let (fixes, reader) = try readLog(path)
        XCTAssertEqual(fixes.count, expected.count)
        let wrong = zip(fixes, expected).filter { f, e in
            reader.devices.name(f.device) != e.0 || [f.time, f.lat, f.lon, f.accuracy].map(\.bitPattern) != [e.1, e.2, e.3, e.4].map(\.bitPattern)
        }
        XCTAssertEqual(wrong.count, 0, "first: \(String(describing: wrong.first))")
    }

    /// Devices first seen on rows the general path takes (quoted), many of them, so that the
    /// table's storage grows between fast rows: each device's later rows (fast, some repeated,
    /// some going back in time) are checked against its last fix exactly as the general path
    /// does. Counts against the log as generated.
    func testNewDevicesOnGeneralRowsKeepTheOrderCheck() {
        var g = SeededGenerator(seed: 9)
        var text = "device,time,lat,lon\n"
        var expectedDuplicates = 0, expectedBackwards = 0, expectedFixes = 0
        var lastTime: [Int: Int] = [:]
        for r in 0..<6_000 {
            let d = r < 3_000 && r % 2 == 0 ? r / 2 : Int(g.next() % UInt64(min(1_500, max(1, r / 2))))
            let quoted = lastTime[d] == nil
            let t = (lastTime[d] ?? 1_750_000_000) + Int(g.next() % 3) - (g.next() % 10 == 0 ? 5 : 0)
            let name = quoted ? "\"d\(d)\"" : "d\(d)"
            text += "\(name),\(t),1.5,2.5\n"
            if let l = lastTime[d], t <= l {
                if t < l { expectedBackwards += 1 } else { expectedDuplicates += 1 }
                continue
            }
            lastTime[d] = t
            expectedFixes += 1
        }
        let path = writeFile(dir, "growing.csv", text)
        let options = LogReaderOptions(skipInvalid: true)
        let fast = outcome(path, options, fast: true)
        assertSame(fast, outcome(path, options, fast: false), "growing")
        XCTAssertEqual(fast.fixes.count, expectedFixes)
        XCTAssertEqual(fast.skipped[.duplicateFix] ?? 0, expectedDuplicates)
        XCTAssertEqual(fast.skipped[.timeBackwards] ?? 0, expectedBackwards)
        XCTAssertGreaterThan(expectedDuplicates, 100)
        XCTAssertGreaterThan(expectedBackwards, 100)
    }
}
