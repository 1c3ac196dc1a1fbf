/// A JSON value that keeps what a round trip needs: object member order and
/// number literals exactly as written (so `1.50` stays `1.50`).
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// The number's literal text, as it appeared in the source (validated JSON number syntax).
    case number(String)
    /// A string, escapes decoded.
    case string(String)
    /// An array, elements in order.
    case array([JSONValue])
    /// Members in source order. Duplicate keys are kept as written; lookups return the last (as JavaScript does).
    case object([(String, JSONValue)])

    /// Structural equality. Numbers compare by literal text (`1.0` and `1.00` differ),
    /// objects member by member in order (the same members in another order differ).
    /// - Complexity: O(n) in the size of the values.
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// Hashes what `==` compares: numbers by literal text, object members in order.
    /// - Complexity: O(n) in the size of the value.
    public func hash(into h: inout Hasher) {
        switch self {
        case .null: h.combine(0)
        case .bool(let b): h.combine(1); h.combine(b)
        case .number(let n): h.combine(2); h.combine(n)
        case .string(let s): h.combine(3); h.combine(s)
        case .array(let a): h.combine(4); h.combine(a)
        case .object(let o): h.combine(5); for (k, v) in o { h.combine(k); h.combine(v) }
        }
    }

    /// Makes a number value from a Double (shortest round-tripping text; integers without `.0`);
    /// NaN and infinities, which JSON cannot hold, become `null`.
    public static func number(_ d: Double) -> JSONValue {
        d.isFinite ? .number(JSONValue.format(d)) : .null
    }

    package static func format(_ d: Double) -> String {
        var bytes: [UInt8] = []
        format(d, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``format(_:)``, appended to `out` as UTF-8 bytes (an integral value's digits written
    /// directly, no `String` made).
    package static func format(_ d: Double, into out: inout [UInt8]) {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 {
            out.append(decimal: Int64(d))
        } else {
            out.append(text: d.description)
        }
    }

    /// The value of member `key` of an object (the last one when the key is repeated);
    /// nil when there is no such member or this is not an object.
    /// - Complexity: O(members).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    /// A number as the nearest `Double` (a literal beyond its range gives ±infinity);
    /// nil for every other type (a string holding digits included).
    /// - Complexity: O(length of the literal).
    public var doubleValue: Double? {
        if case .number(let s) = self { return Double(s) }
        return nil
    }
    /// The decoded text of a string; nil for every other type.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    /// The value of a boolean; nil for every other type (the string `"true"` included).
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    /// The elements of an array; nil for every other type.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    /// The members of an object in source order, repeated keys kept; nil for every other type.
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }
    /// Whether this is `null` (an absent member is a nil `subscript` result, not `null`).
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// JSON type name for error messages ("a string", "a number", ...).
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
