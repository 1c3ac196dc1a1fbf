/// Compact JSON serialisation of `JSONValue` (RFC 8259), preserving member order
/// and number literals.
public enum JSONWriter {
    /// The compact JSON text of `v`: no whitespace, members in order, numbers as their
    /// literal text (not validated: a `.number` holding other text is written as it is).
    /// - Complexity: O(n) in the size of the output.
    public static func string(_ v: JSONValue) -> String {
        var out = ""
        write(v, to: &out)
        return out
    }

    /// Appends the compact JSON text of `v` to `out` (see `string(_:)`).
    /// - Complexity: O(n) in the size of the output.
    public static func write(_ v: JSONValue, to out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (k, x) in a.enumerated() {
                if k > 0 { out += "," }
                write(x, to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (k, (key, x)) in o.enumerated() {
                if k > 0 { out += "," }
                writeString(key, to: &out)
                out += ":"
                write(x, to: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal: the quote and the backslash escaped, `\n`,
    /// `\r`, `\t`, `\b`, `\f` for those characters, `\u00XX` for the other controls below
    /// U+0020; every other character (non-ASCII included) as UTF-8.
    /// - Complexity: O(n) in the length of `s`.
    public static func writeString(_ s: String, to out: inout String) {
        var bytes: [UInt8] = []
        writeString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// ``writeString(_:to:)`` as UTF-8 bytes appended to `out`.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { u in
            out.append(UInt8(ascii: "\""))
            var from = 0
            for (i, c) in u.enumerated() where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: u[from..<i]))
                from = i + 1
                switch c {
                case UInt8(ascii: "\""): out.append(literal: "\\\"")
                case UInt8(ascii: "\\"): out.append(literal: "\\\\")
                case 0x0A: out.append(literal: "\\n")
                case 0x0D: out.append(literal: "\\r")
                case 0x09: out.append(literal: "\\t")
                case 0x08: out.append(literal: "\\b")
                case 0x0C: out.append(literal: "\\f")
                default:
                    // \u00XX, lowercase hex: the control bytes are below 0x20.
                    let hex: StaticString = "0123456789abcdef"
                    out.append(literal: "\\u00")
                    out.append(hex.utf8Start[Int(c >> 4)])
                    out.append(hex.utf8Start[Int(c & 15)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: u[from...]))
            out.append(UInt8(ascii: "\""))
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `s`.
    @inlinable
    public mutating func append(text s: String) {
        var s = s
        s.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends the UTF-8 bytes of a literal.
    @inlinable
    public mutating func append(literal s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends the decimal digits of `v` (a `-` first when negative).
    public mutating func append(decimal v: Int64) {
        if v < 0 { append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var room: (UInt64, UInt64, UInt64) = (0, 0, 0)      // 24 bytes, filled right to left
        Swift.withUnsafeMutableBytes(of: &room) { b in
            var n = 0
            repeat {
                n += 1
                b[24 - n] = UInt8(ascii: "0") &+ UInt8(m % 10)
                m /= 10
            } while m > 0
            append(contentsOf: UnsafeRawBufferPointer(rebasing: b[(24 - n)...]))
        }
    }
}
