/// A strict RFC 8259 JSON parser over UTF-8 bytes, with line and column in its errors.
///
/// Written for fence files and NDJSON lines: it keeps member order and number
/// literals (see `JSONValue`), accepts a leading UTF-8 byte-order mark, and
/// rejects everything RFC 8259 rejects (trailing commas, comments, NaN, lone surrogates).
public struct JSONParser {
    /// A JSON syntax error and where it is; the parse stops at the first one.
    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        /// 1-based line of the error (lines end at LF).
        public var line: Int
        /// 1-based column of the error, counted in Unicode scalars (UTF-8 sequences), not bytes.
        public var column: Int
        /// What is wrong, without the position (e.g. `unexpected '}', expected a member name in
        /// double quotes`).
        public var message: String
        /// `line L, column C: message`.
        public var description: String { "line \(line), column \(column): \(message)" }
    }

    private let bytes: [UInt8]
    private var i = 0
    private var depth = 0
    private static let maxDepth = 512

    /// Parses one JSON value from text: whitespace may surround it, nothing else may follow.
    /// - Throws: `JSONParser.SyntaxError` for empty input, anything RFC 8259 rejects, or
    ///   nesting deeper than 512 arrays and objects.
    /// - Complexity: O(n) in the length of the text.
    public static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses one JSON value from UTF-8 bytes (a leading byte-order mark is skipped):
    /// whitespace may surround it, nothing else may follow. Strings must be valid UTF-8.
    /// - Throws: `JSONParser.SyntaxError` for empty input, anything RFC 8259 rejects, or
    ///   nesting deeper than 512 arrays and objects.
    /// - Complexity: O(n) in the byte count.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var p = JSONParser(bytes: bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { p.i = 3 }
        p.skipWhitespace()
        guard p.i < bytes.count else { throw p.error("empty input, expected a JSON value") }
        let v = try p.value()
        p.skipWhitespace()
        guard p.i == bytes.count else { throw p.error("unexpected \(p.describeCurrent()) after the JSON value") }
        return v
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func position(_ at: Int) -> (Int, Int) {
        var line = 1, col = 1
        var k = 0
        while k < at && k < bytes.count {
            if bytes[k] == 0x0A { line += 1; col = 1 } else if (bytes[k] & 0xC0) != 0x80 { col += 1 }
            k += 1
        }
        return (line, col)
    }

    private func error(_ message: String, at: Int? = nil) -> SyntaxError {
        let (l, c) = position(at ?? i)
        return SyntaxError(line: l, column: c, message: message)
    }

    private func describeCurrent() -> String {
        guard i < bytes.count else { return "end of input" }
        let b = bytes[i]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        guard i < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func literal(_ word: String) throws(SyntaxError) {
        let start = i
        let w = word.utf8
        for b in w {
            guard i < bytes.count, bytes[i] == b else { throw error("invalid literal, expected '\(word)'", at: start) }
            i += 1
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        try enter(); defer { depth -= 1 }
        i += 1
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()), expected a member name in double quotes")
            }
            let key = try string()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()), expected ':' after member name")
            }
            i += 1
            skipWhitespace()
            let v = try value()
            members.append((key, v))
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input, expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("unexpected \(describeCurrent()), expected ',' or '}'")
        }
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        try enter(); defer { depth -= 1 }
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try value())
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input, expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("unexpected \(describeCurrent()), expected ',' or ']'")
        }
    }

    private mutating func number() throws(SyntaxError) -> String {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= 0x30 && bytes[k] <= 0x39 }
        guard isDigit(i) else { throw error("invalid number: expected a digit", at: i) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { throw error("invalid number: leading zero", at: start) }
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { throw error("invalid number: expected a digit after '.'", at: i) }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw error("invalid number: expected a digit in the exponent", at: i) }
            while isDigit(i) { i += 1 }
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    private mutating func string() throws(SyntaxError) -> String {
        let open = i
        i += 1
        var out: [UInt8] = []
        var runStart = i
        while true {
            guard i < bytes.count else { throw error("unterminated string", at: open) }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[runStart..<i])
                i += 1
                break
            }
            if b < 0x20 { throw error("unescaped control character in string") }
            if b == UInt8(ascii: "\\") {
                out.append(contentsOf: bytes[runStart..<i])
                i += 1
                guard i < bytes.count else { throw error("unterminated string", at: open) }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw error("lone high surrogate in \\u escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("lone low surrogate in \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'", at: i - 2)
                }
                runStart = i
                continue
            }
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: open)
        }
        return s
    }
}
