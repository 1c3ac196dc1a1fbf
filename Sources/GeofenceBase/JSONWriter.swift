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
        out += "\""
        // Most strings (identifiers, names) need no escape: appended whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
