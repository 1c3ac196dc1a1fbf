import CIsal
import Glibc

/// One gzip stream inflated with ISA-L's igzip (docs/logs.md#gzip): the members of a file one
/// after the other, each one's header parsed and its CRC-32 and length checked at its end.
///
/// The header is parsed here (``MemberHeader``), byte by byte as the input comes, and igzip
/// inflates what follows it and checks the trailer: igzip's own header parsing loses the
/// header's flags when the header is split between two inputs (it keeps them in a structure
/// it makes afresh at each call, so a member after a split header read a file name or a
/// comment that was not there, depending on whatever the stack held: `cat a.gz b.gz` read with
/// small chunks failed, or not, with the time the members were written).
///
/// The caller feeds input (``setInput(_:_:)``) and asks for output (``inflate(into:max:)``);
/// at a member's end it starts the next one (``nextMember()``) with the input not yet taken.
/// Failures are ``GzipError``s in zlib's wording, which the docs quote: `incorrect header
/// check`, `incorrect data check`, `invalid block type`, ...; a stream cut short is the
/// caller's to say (`unexpected end of file`), since only it knows the input ended. The log
/// readers and the fence loader inflate with it.
package final class GzipStream {
    private let state: UnsafeMutablePointer<inflate_state>
    /// The member's header as far as it has come (complete: igzip inflates the rest).
    private var header = MemberHeader()

    package init() {
        state = .allocate(capacity: 1)
        start()
    }

    deinit { state.deallocate() }

    private func start() {
        // Sets up the state for a new stream (no allocation, no failure).
        isal_inflate_init(state)
        // Deflate data then the gzip trailer, checked (the header is parsed here).
        state.pointee.crc_flag = UInt32(ISAL_GZIP_NO_HDR_VER)
        header = MemberHeader()
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
        if !header.isComplete {
            // The header first, from whatever input there is: bytes that are not one are an
            // error as soon as they are seen (after a member, the magic's first byte alone).
            let n = Int(state.pointee.avail_in)
            guard n > 0 else { return (0, false) }
            let taken = try header.take(state.pointee.next_in, n)
            state.pointee.next_in += taken
            state.pointee.avail_in -= UInt32(taken)
            guard header.isComplete else { return (0, false) }
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

/// A gzip member's header (RFC 1952, 2.3), read as its bytes come: ID1 ID2 CM FLG, MTIME, XFL,
/// OS, then as FLG says an extra field (its 2-byte length first), a file name and a comment
/// (each ended by a zero byte) and the header's CRC-16 (the low half of the CRC-32 of the
/// bytes before it). Nothing of it is kept but what the next byte needs.
struct MemberHeader {
    /// What the next bytes are.
    private enum Part { case fixed, extraLength, extra, name, comment, crc, done }
    private var part = Part.fixed
    /// Bytes of the fixed part, the extra field's length or the CRC-16 read so far (`count`
    /// of them in `bytes`), or of the extra field still to skip.
    private var count = 0
    private var bytes: UInt64 = 0
    private var flags: UInt8 = 0
    /// CRC-32 of the header's bytes so far (checked against the CRC-16 when FLG asks for it).
    private var crc: UInt32 = 0

    var isComplete: Bool { part == .done }

    /// Reads header bytes from `p[0..<n]` (n > 0): how many were taken (all of them, or up to
    /// the header's end).
    /// - Throws: ``GzipError`` in zlib's words: `incorrect header check` (not gzip's magic),
    ///   `unknown compression method`, `unknown header flags set`, `header crc mismatch`.
    mutating func take(_ p: UnsafePointer<UInt8>, _ n: Int) throws(GzipError) -> Int {
        var i = 0
        while i < n && part != .done {
            let from = i, covered = part != .crc
            switch part {
            case .fixed:
                // The magic is checked byte by byte: a stray byte after a member is an error at once.
                let b = p[i]
                if count == 0 && b != 0x1F || count == 1 && b != 0x8B { throw GzipError("incorrect header check") }
                if count == 2 && b != 8 { throw GzipError("unknown compression method") }
                if count == 3 {
                    if b & 0xE0 != 0 { throw GzipError("unknown header flags set") }
                    flags = b
                }
                count += 1
                i += 1
                if count == 10 { advance(from: .fixed) }
            case .extraLength, .crc:
                bytes |= UInt64(p[i]) << (8 * count)
                count += 1
                i += 1
                guard count == 2 else { break }
                if part == .crc {
                    guard UInt16(truncatingIfNeeded: bytes) == UInt16(truncatingIfNeeded: crc) else {
                        throw GzipError("header crc mismatch")
                    }
                    part = .done
                } else {
                    count = Int(bytes)
                    part = .extra
                    if count == 0 { advance(from: .extra) }
                }
            case .extra:
                let k = Swift.min(count, n - i)
                count -= k
                i += k
                if count == 0 { advance(from: .extra) }
            case .name, .comment:
                // Up to and with the zero byte that ends it.
                if let z = memchr(p + i, 0, n - i) {
                    i = UnsafeRawPointer(p).distance(to: UnsafeRawPointer(z)) + 1
                    advance(from: part)
                } else {
                    i = n
                }
            case .done:
                break
            }
            if covered && i > from { crc = crc32_gzip_refl(crc, p + from, UInt64(i - from)) }
        }
        return i
    }

    /// The part after `done` (the fixed part, the extra field, the name or the comment): the
    /// next optional one in the header's order that FLG has (FEXTRA 4, FNAME 8, FCOMMENT 16,
    /// FHCRC 2), or the end.
    private mutating func advance(from done: Part) {
        count = 0
        bytes = 0
        var past = done
        if past == .fixed {
            if flags & 4 != 0 { part = .extraLength; return }
            past = .extra
        }
        if past == .extra {
            if flags & 8 != 0 { part = .name; return }
            past = .name
        }
        if past == .name && flags & 16 != 0 { part = .comment; return }
        part = flags & 2 != 0 ? .crc : .done
    }
}

/// What is wrong with a gzip stream, in zlib's words (``GzipStream``).
package struct GzipError: Error {
    package let message: String
    package init(_ message: String) { self.message = message }
}
