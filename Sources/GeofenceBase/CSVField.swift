/// Writing one CSV field (RFC 4180): quoted when it holds a comma, a double quote, a
/// carriage return or a line feed, or starts or ends with a space; quotes doubled inside.
/// The test is on UTF-8 bytes: `"\r\n"` is one Swift `Character`, and a check by
/// `Character` would miss both of its bytes.
package enum CSVField {
    /// The field as it goes into a CSV row.
    /// - Complexity: O(length of `s`).
    package static func encode(_ s: String) -> String {
        let u = s.utf8
        let needs = u.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
            || u.first == 0x20 || u.last == 0x20
        guard needs else { return s }
        var out = "\""
        for part in s.utf8.split(separator: UInt8(ascii: "\""), omittingEmptySubsequences: false).enumerated() {
            if part.offset > 0 { out += "\"\"" }
            out += String(decoding: part.element, as: UTF8.self)
        }
        return out + "\""
    }
}
