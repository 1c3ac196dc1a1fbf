import GeofenceBase
import GeofenceIndex

/// A problem with one fence in an input file, named by location and reason.
public struct FenceProblem: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case missingIdentifier = "missing identifier"
        case duplicateIdentifier = "duplicate identifier"
        case missingGeometry = "missing geometry"
        case unsupportedGeometry = "unsupported geometry"
        case malformedGeometry = "malformed geometry"
        case missingRadius = "missing radius"
        case invalidRadius = "invalid radius"
        case coordinateOutOfRange = "coordinate out of range"
        case unclosedRing = "unclosed ring"
        case tooFewPoints = "ring with too few points"
        case crossesAntimeridian = "crosses the antimeridian"
        case invalidPolygon = "invalid polygon"
        case invalidOption = "invalid option"
        case reprojection = "reprojection failed"

        /// A stable code for the kind (`invalid_polygon`), as `InputError.Kind.invalidRecord` carries it.
        public var code: String { String(rawValue.map { $0 == " " ? "_" : $0 }) }
    }

    public var location: SourceLocation
    public var fenceID: String?
    public var kind: Kind
    public var message: String
    /// `--repair` can fix it (closing a ring, GEOSMakeValid).
    public var repairable: Bool

    public init(_ kind: Kind, _ message: String, at location: SourceLocation, fence: String? = nil, repairable: Bool = false) {
        self.kind = kind; self.message = message; self.location = location; self.fenceID = fence; self.repairable = repairable
    }

    /// `file: feature 3 (id "x"): message` or `file:12 (id "x"): message`.
    public var description: String {
        var s = location.description
        if let fenceID { s += " (id \"\(fenceID)\")" }
        return s + ": " + message
    }
}

/// A warning that matters when the fence goes to a phone.
public struct FenceWarning: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case smallRadius = "radius under the reliable minimum"
        case largeRadius = "radius over the platform maximum"
        case polygonAsCircle = "polygon monitored as its enclosing circle"
    }
    public var location: SourceLocation
    public var fenceID: String
    public var kind: Kind
    public var message: String
    public var description: String { "\(location) (id \"\(fenceID)\"): \(message)" }
}
