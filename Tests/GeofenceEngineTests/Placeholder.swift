import XCTest
@testable import GeofenceEngine

final class GeofenceEngineTestsPlaceholder: XCTestCase { func testBuilds() {} }
