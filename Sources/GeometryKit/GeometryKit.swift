// GeometryKit
