import XCTest
@testable import GeometryKit

final class GeometryKitTestsPlaceholder: XCTestCase { func testBuilds() {} }
