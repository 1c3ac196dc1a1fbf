import XCTest
@testable import GeofenceEngine

final class GeofenceCLITestsPlaceholder: XCTestCase { func testBuilds() {} }
