import CIsal

/// One gzip stream inflated with ISA-L's igzip (docs/logs.md#gzip): the members of a file one
/// after the other, each one's header parsed and its CRC-32 and length checked at its end.
///
/// The caller feeds input (``setInput(_:_:)``) and asks for output (``inflate(into:max:)``);
/// at a member's end it starts the next one (``nextMember()``) with the input not yet taken.
/// Failures are ``GzipError``s in zlib's wording, which the docs quote: `incorrect header
/// check`, `incorrect data check`, `invalid block type`, ...; a stream cut short is the
/// caller's to say (`unexpected end of file`), since only it knows the input ended. The log
/// readers and the fence loader inflate with it.
package final class GzipStream {
    private let state: UnsafeMutablePointer<inflate_state>
    /// No byte of the member's header has been checked yet (see ``inflate(into:max:)``).
    private var atMemberStart = true

    package init() {
        state = .allocate(capacity: 1)
        start()
    }

    deinit { state.deallocate() }

    private func start() {
        // Sets up the state for a new stream (no allocation, no failure).
        isal_inflate_init(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
        atMemberStart = true
    }

    /// Input bytes given and not yet taken.
    package var availableInput: Int { Int(state.pointee.avail_in) }

    /// The next input: `p[0..<n]` (taken from `p` onwards; the bytes must stay until taken).
    package func setInput(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) {
        state.pointee.next_in = p
        state.pointee.avail_in = UInt32(n)
    }

    /// Starts the next member after one ended, with the input not yet taken.
    package func nextMember() {
        let p = state.pointee.next_in, n = state.pointee.avail_in
        start()
        state.pointee.next_in = p
        state.pointee.avail_in = n
    }

    /// Inflates into `p[0..<max]`: the bytes made, and whether the member ended with them
    /// (its trailer read and checked). `(0, false)` when it needs more input.
    /// - Throws: ``GzipError`` for a stream it cannot inflate (the bytes of the failing call
    ///   are dropped: decoded garbage, most likely).
    package func inflate(into p: UnsafeMutablePointer<UInt8>, max: Int) throws(GzipError) -> (count: Int, memberEnded: Bool) {
        if atMemberStart && state.pointee.avail_in > 0 {
            // Bytes after a member that do not start with gzip's magic are an error at once, as
            // zlib says it (ISA-L would wait for a whole header first: a short tail would end
            // as "unexpected end of file").
            let head = state.pointee.next_in!
            // (A lone first byte is left to ISA-L, which checks the second when it comes.)
            guard head[0] == 0x1F && (state.pointee.avail_in == 1 || head[1] == 0x8B) else { throw GzipError("incorrect header check") }
            atMemberStart = false
        }
        let room = UInt32(clamping: max)
        let inputBefore = state.pointee.avail_in
        state.pointee.next_out = p
        state.pointee.avail_out = room
        // Returns ISAL_DECOMP_OK (it stopped because the input ran out, the output is full, or
        // the member ended), or a negative error: ISAL_INVALID_BLOCK, _SYMBOL, _LOOKBACK,
        // _WRAPPER, ISAL_UNSUPPORTED_METHOD, ISAL_INCORRECT_CHECKSUM (CRC-32 or length).
        let r = isal_inflate(state)
        guard r == ISAL_DECOMP_OK else { throw GzipError(Self.message(r)) }
        let produced = Int(room - state.pointee.avail_out)
        let ended = state.pointee.block_state == ISAL_BLOCK_FINISH
        if produced == 0 && !ended && state.pointee.avail_in != 0 && state.pointee.avail_in == inputBefore && room > 0 {
            throw GzipError("no progress")
        }
        return (produced, ended)
    }

    /// zlib's words for ISA-L's errors (those the docs and users know from gzip itself).
    package static func message(_ r: Int32) -> String {
        switch r {
        case ISAL_INVALID_WRAPPER: return "incorrect header check"
        case ISAL_UNSUPPORTED_METHOD: return "unknown compression method"
        case ISAL_INCORRECT_CHECKSUM: return "incorrect data check"
        case ISAL_INVALID_BLOCK: return "invalid block type"
        case ISAL_INVALID_SYMBOL: return "invalid code"
        case ISAL_INVALID_LOOKBACK: return "invalid distance too far back"
        case ISAL_NEED_DICT: return "needs a preset dictionary"
        default: return "inflate error \(r)"
        }
    }
}

/// What is wrong with a gzip stream, in zlib's words (``GzipStream``).
package struct GzipError: Error {
    package let message: String
    package init(_ message: String) { self.message = message }
}
