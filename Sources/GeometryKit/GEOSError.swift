/// A failure reported by GEOS itself. The text is GEOS's own message as delivered
/// to the context's error handler, e.g.
/// `"ParseException: Unknown type: 'POLYGN'"`.
public enum GEOSError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The text of the failure: GEOS's messages for the call joined by "; " (its notices when
    /// it sent no error), or, when GEOS said nothing, which C call failed.
    case library(String)

    /// GEOS's message.
    public var message: String {
        switch self {
        case .library(let text): return text
        }
    }

    /// "GEOS: " followed by the message.
    public var description: String { "GEOS: \(message)" }
}

/// Bad input that the caller can fix, detected before GEOS is asked.
public enum GeometryInputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The operation needs a non-empty geometry (bounds, bounding circle).
    case emptyGeometry(operation: String)
    /// `polygons()` met a geometry that is not a polygon, multipolygon or collection of them.
    case notPolygonal(typeName: String)
    /// Two geometries from different `GEOSContext`s were combined; contexts are per thread.
    case differentContexts
    /// A coordinate was NaN or infinite.
    case nonFiniteCoordinate(x: Double, y: Double)
    /// A text input contained a NUL character, which C would silently truncate at.
    case embeddedNUL
    /// More coordinates or parts than the C API can address (`UInt32.max`).
    case tooLarge(count: Int)

    /// A one-line explanation, e.g. "text contains a NUL character".
    public var description: String {
        switch self {
        case .emptyGeometry(let operation): return "\(operation) needs a non-empty geometry"
        case .notPolygonal(let typeName): return "expected Polygon or MultiPolygon, got \(typeName)"
        case .differentContexts: return "geometries belong to different GEOS contexts (one context per thread)"
        case .nonFiniteCoordinate(let x, let y): return "non-finite coordinate (\(x), \(y))"
        case .embeddedNUL: return "text contains a NUL character"
        case .tooLarge(let count): return "\(count) elements exceed the GEOS limit of \(UInt32.max)"
        }
    }
}
