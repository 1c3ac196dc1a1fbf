import GeofenceBase
import GeofenceIndex

/// A few chosen fence properties, per slot, for event records (`--event-properties`,
/// docs/evaluation.md#event-records): only those properties are kept, as their JSON text in
/// one byte buffer, so a million fences with a short `name` cost a few tens of megabytes and
/// no object per value.
public struct FenceProperties: Sendable {
    /// The chosen property names, in the order the records list them.
    public let names: [String]
    /// Per (slot, name), at `slot * names.count + k`: 0 absent, 1 a string (its UTF-8 bytes),
    /// 2 another JSON value (its JSON text).
    let kinds: [UInt8]
    /// End offsets in `bytes` per (slot, name); the start is the previous end.
    let ends: [UInt32]
    let bytes: [UInt8]

    /// The properties `names` of each fence, in slot order (the fences as compiled).
    /// - Precondition: the text of the chosen properties is under 4 GiB in all.
    /// - Complexity: O(fences × properties per fence).
    public init(names: [String], fences: [Fence]) {
        self.names = names
        var kinds: [UInt8] = [], ends: [UInt32] = [], bytes: [UInt8] = []
        kinds.reserveCapacity(fences.count * names.count)
        ends.reserveCapacity(fences.count * names.count)
        for f in fences {
            for name in names {
                switch f.properties.first(where: { $0.0 == name })?.1 {
                case nil, .null?:
                    kinds.append(0)
                case .string(let s)?:
                    kinds.append(1); bytes.append(contentsOf: s.utf8)
                case let v?:
                    kinds.append(2); bytes.append(contentsOf: JSONWriter.string(v).utf8)
                }
                precondition(bytes.count <= Int(UInt32.max), "chosen fence properties over 4 GiB")
                ends.append(UInt32(bytes.count))
            }
        }
        self.kinds = kinds; self.ends = ends; self.bytes = bytes
    }

    /// The names among `names` that no fence has (a likely misspelling).
    public var missingNames: [String] {
        names.indices.filter { k in stride(from: k, to: kinds.count, by: names.count).allSatisfy { kinds[$0] == 0 } }.map { names[$0] }
    }

    /// The text of property `k` of a slot and whether it is a string (else JSON text); nil when absent.
    func value(slot: Int32, _ k: Int) -> (text: String, isString: Bool)? {
        let i = Int(slot) * names.count + k
        guard kinds[i] != 0 else { return nil }
        let start = i == 0 ? 0 : Int(ends[i - 1])
        return (String(decoding: bytes[start..<Int(ends[i])], as: UTF8.self), kinds[i] == 1)
    }
}
