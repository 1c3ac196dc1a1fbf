@testable import GeofenceIndex
import XCTest
import GeofenceTestSupport

/// `PolygonTable.verticesInRange` (four vertices at a time as vectors, the rest one by one)
/// answers as a plain check of every vertex: longitude within ±540°, latitude within ±90°,
/// both finite, a last odd value taken as a longitude.
final class VertexRangeTests: XCTestCase {
    /// The plain check, vertex by vertex.
    static func reference(_ values: [Double]) -> Bool {
        var i = 0
        while i + 1 < values.count {
            let lon = values[i], lat = values[i + 1]
            if !(lon.isFinite && abs(lon) <= 540 && lat.isFinite && abs(lat) <= 90) { return false }
            i += 2
        }
        if i < values.count && !(values[i].isFinite && abs(values[i]) <= 540) { return false }
        return true
    }

    func testEveryPlaceAndLengthAgainstThePlainCheck() {
        var rng = SeededGenerator(seed: 41)
        // Values just inside, on, and just outside each bound, and the non-finite ones.
        let badLon: [Double] = [Double(540).nextUp, -(Double(540).nextUp), 1e300, .infinity, -.infinity, .nan]
        let badLat: [Double] = [Double(90).nextUp, -(Double(90).nextUp), 540, .infinity, .nan]
        let edgeLon: [Double] = [540, -540, 539.999, 0, -0.0]
        let edgeLat: [Double] = [90, -90, 89.999, 0]
        var checked = 0, rejected = 0
        for length in 0...41 {
            var base: [Double] = []
            for k in 0..<length {
                base.append(k % 2 == 0 ? (rng.chance(0.3) ? edgeLon.randomElement(using: &rng)! : rng.uniform(-540, 540))
                                       : (rng.chance(0.3) ? edgeLat.randomElement(using: &rng)! : rng.uniform(-90, 90)))
            }
            XCTAssertTrue(Self.reference(base), "length \(length)")
            let ok = base.withUnsafeBufferPointer { PolygonTable.verticesInRange($0) }
            XCTAssertTrue(ok, "in range, length \(length)")
            checked += 1
            // One bad value at every place, of every kind.
            for place in 0..<length {
                for bad in (place % 2 == 0 ? badLon : badLat) {
                    var values = base
                    values[place] = bad
                    let expected = Self.reference(values)
                    let got = values.withUnsafeBufferPointer { PolygonTable.verticesInRange($0) }
                    XCTAssertEqual(got, expected, "length \(length), place \(place), value \(bad)")
                    checked += 1
                    if !got { rejected += 1 }
                }
            }
        }
        // A latitude-sized bound misapplied to a longitude would show here: 540 is a valid
        // longitude but not a latitude.
        let swapped = [Double](repeating: 0, count: 16).enumerated().map { $0.offset == 9 ? 540 : $0.element }
        XCTAssertFalse(swapped.withUnsafeBufferPointer { PolygonTable.verticesInRange($0) })
        let lonOnly = [Double](repeating: 0, count: 16).enumerated().map { $0.offset == 8 ? 540 : $0.element }
        XCTAssertTrue(lonOnly.withUnsafeBufferPointer { PolygonTable.verticesInRange($0) })
        XCTAssertGreaterThan(checked, 3_000)
        XCTAssertGreaterThan(rejected, 2_500)
    }
}
