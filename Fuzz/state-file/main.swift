// libFuzzer target: saved evaluation states (Fuzz/README.md).
import FuzzSupport
import GeofenceKit

fuzzMain { data, count in
    // The input is the body; a valid checksum is appended so that the fuzzer reaches the
    // fields behind it (a random checksum would stop every input at the first check).
    var bytes = fuzzBytes(data, count)
    var h = SHA256()
    h.update(bytes)
    bytes += h.finalize()
    if let state = try? EvaluationState(decoding: bytes, path: "fuzz.gfstate") {
        // What decodes re-encodes to the same bytes.
        precondition(state.encoded() == bytes, "a decoded state re-encodes differently")
    }
    return 0
}
