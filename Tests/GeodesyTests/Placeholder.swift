import XCTest
@testable import Geodesy

final class GeodesyTestsPlaceholder: XCTestCase { func testBuilds() {} }
