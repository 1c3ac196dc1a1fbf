/// Compact JSON serialisation of `JSONValue` (RFC 8259), preserving member order
/// and number literals.
public enum JSONWriter {
    public static func string(_ v: JSONValue) -> String {
        var out = ""
        write(v, to: &out)
        return out
    }

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

    public static func writeString(_ s: String, to out: inout String) {
        out += "\""
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
