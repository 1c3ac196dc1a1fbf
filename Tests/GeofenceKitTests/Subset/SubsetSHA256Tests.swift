import XCTest
import GeofenceTestSupport
import GeofenceKit
@testable import GeofenceBase
@testable import GeofenceIndex
@testable import GeofenceLogs
@testable import GeofenceFences
@testable import GeofenceEvaluation
@testable import GeofencePlanning
@testable import GeofenceSimulation
@testable import GeofenceSubsets

/// FIPS 180-2 test vectors (appendix B) and chunked updates.
final class SubsetSHA256Tests: XCTestCase {
    func testVectors() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // 896-bit message of FIPS 180-2 (two blocks after padding).
        XCTAssertEqual(SHA256.hex(Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8)),
                       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    func testChunkedUpdatesMatchOneShot() {
        var rng = SeededGenerator(seed: 5)
        let bytes = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let whole = SHA256.hex(bytes)
        for cut in [0, 1, 55, 56, 63, 64, 65, 127, 128, 999] {
            var s = SHA256()
            s.update(bytes[..<cut])
            s.update(bytes[cut...])
            XCTAssertEqual(s.finalizeHex(), whole, "cut at \(cut)")
        }
        // Padding edges: lengths around the 56-byte boundary.
        for n in 54...66 {
            var a = SHA256(); a.update(Array(bytes.prefix(n)))
            var b = SHA256(); for x in bytes.prefix(n) { b.update([x]) }
            XCTAssertEqual(a.finalizeHex(), b.finalizeHex(), "length \(n)")
        }
    }
}
