import XCTest
@testable import FenceIndex

final class FenceIndexTestsPlaceholder: XCTestCase { func testBuilds() {} }
