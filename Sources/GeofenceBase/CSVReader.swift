/// RFC 4180 CSV over UTF-8 bytes: quoted fields (with `""` escapes and embedded
/// newlines), LF or CRLF line ends, an optional UTF-8 byte-order mark, blank
/// lines skipped. Each record carries the line number it starts on.
public struct CSVReader {
    /// One record: its line and its fields in column order.
    public struct Record {
        /// 1-based physical line the record starts on.
        public var line: Int
        /// The field values in column order, quotes and `""` escapes removed; not trimmed.
        public var fields: [String]
    }

    /// A syntax error that stops the whole buffer: an unterminated quoted field, a
    /// character other than the delimiter or a line end after a closing quote, or a field
    /// that is not valid UTF-8.
    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        /// 1-based physical line of the error (for an unterminated quoted field, the line
        /// of its opening quote).
        public var line: Int
        /// What is wrong, without the line (e.g. `unterminated quoted field`).
        public var message: String
        /// `line N: message`.
        public var description: String { "line \(line): \(message)" }
    }

    /// The byte that separates fields (the quote character and the line ends are fixed).
    public let delimiter: UInt8

    /// A reader splitting fields at `delimiter`, a comma by default (an ASCII byte such as
    /// `;` or a tab; a quote, CR or LF would not parse).
    public init(delimiter: UInt8 = UInt8(ascii: ",")) { self.delimiter = delimiter }

    /// Parses a whole buffer into records.
    /// - Complexity: O(n) in the byte count.
    /// - Throws: `CSVReader.SyntaxError` at the first unterminated quoted field, character
    ///   after a closing quote that is not the delimiter or a line end, or field that is not
    ///   valid UTF-8 (no records are returned then).
    public func records(_ bytes: [UInt8]) throws(SyntaxError) -> [Record] {
        var out: [Record] = []
        var i = 0
        let n = bytes.count
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        var line = 1
        var fields: [String] = []
        var field: [UInt8] = []
        var recordLine = 1
        var atRecordStart = true
        var fieldStart = true

        func finishField() throws(SyntaxError) {
            guard let s = String(validating: field, as: UTF8.self) else {
                throw SyntaxError(line: line, message: "field \(fields.count + 1) is not valid UTF-8")
            }
            fields.append(s)
            field.removeAll(keepingCapacity: true)
        }

        while i < n {
            let b = bytes[i]
            if atRecordStart {
                recordLine = line
                if b == 0x0A { line += 1; i += 1; continue }                       // blank line
                if b == 0x0D, i + 1 < n, bytes[i + 1] == 0x0A { line += 1; i += 2; continue }
                atRecordStart = false
            }
            if fieldStart && b == UInt8(ascii: "\"") {
                // Quoted field.
                let openLine = line
                i += 1
                var closed = false
                while i < n {
                    let c = bytes[i]
                    if c == UInt8(ascii: "\"") {
                        if i + 1 < n, bytes[i + 1] == UInt8(ascii: "\"") { field.append(c); i += 2; continue }
                        i += 1; closed = true; break
                    }
                    if c == 0x0A { line += 1 }
                    field.append(c)
                    i += 1
                }
                guard closed else { throw SyntaxError(line: openLine, message: "unterminated quoted field") }
                fieldStart = false
                if i < n {
                    let c = bytes[i]
                    if c != delimiter && c != 0x0A && !(c == 0x0D && i + 1 < n && bytes[i + 1] == 0x0A) && !(c == 0x0D && i + 1 == n) {
                        throw SyntaxError(line: line, message: "unexpected character after closing quote in field \(fields.count + 1)")
                    }
                }
                continue
            }
            if b == delimiter {
                try finishField()
                fieldStart = true
                i += 1
                continue
            }
            if b == 0x0A || (b == 0x0D && (i + 1 == n || bytes[i + 1] == 0x0A)) {
                try finishField()
                out.append(Record(line: recordLine, fields: fields))
                fields.removeAll(keepingCapacity: true)
                i += (b == 0x0D && i + 1 < n) ? 2 : 1
                line += 1
                atRecordStart = true
                fieldStart = true
                continue
            }
            field.append(b)
            fieldStart = false
            i += 1
        }
        if !atRecordStart {
            try finishField()
            out.append(Record(line: recordLine, fields: fields))
        }
        return out
    }
}
