/// A JSON value that keeps what a round trip needs: object member order and
/// number literals exactly as written (so `1.50` stays `1.50`).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text, as it appeared in the source (validated JSON number syntax).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in source order. Duplicate keys are kept as written; lookups return the last (as JavaScript does).
    case object([(String, JSONValue)])

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

    /// Makes a number value from a Double (shortest round-tripping text; integers without `.0`).
    public static func number(_ d: Double) -> JSONValue {
        .number(JSONValue.format(d))
    }

    package static func format(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    public var doubleValue: Double? {
        if case .number(let s) = self { return Double(s) }
        return nil
    }
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }
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
