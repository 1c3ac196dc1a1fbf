import GeofenceBase
import GeofenceIndex

/// A problem with one fence in an input file, named by location and reason.
public struct FenceProblem: Hashable, Sendable, CustomStringConvertible {
    /// The reason, as docs/fences.md#validation lists them; the raw value is the text printed
    /// (`invalid polygon`), ``code`` the stable code.
    public enum Kind: String, Sendable, CaseIterable {
        /// No usable identifier: no Feature `id` or `properties.id` (string or number), or an
        /// empty one; CSV: an empty `id` field.
        case missingIdentifier = "missing identifier"
        /// The identifier is already defined in this file or an earlier one of the set.
        case duplicateIdentifier = "duplicate identifier"
        /// `geometry` is absent or `null`.
        case missingGeometry = "missing geometry"
        /// A geometry type other than Point, Polygon or MultiPolygon.
        case unsupportedGeometry = "unsupported geometry"
        /// A feature or geometry of the wrong shape (not an object, no `type` or `coordinates`,
        /// a position that is not `[lon, lat]`, no rings); CSV: wrong field count or a `lat` /
        /// `lon` that is not a number; also a polygon GEOS cannot build.
        case malformedGeometry = "malformed geometry"
        /// A Point without `properties.radius`; CSV: an empty `radius`.
        case missingRadius = "missing radius"
        /// A radius that is not a number, not finite, or ≤ 0 metres.
        case invalidRadius = "invalid radius"
        /// Latitude outside [-90, 90] or longitude outside [-180, 180] (repairable, by
        /// clamping, only within 1e-9°).
        case coordinateOutOfRange = "coordinate out of range"
        /// A ring of 3 or more positions whose first and last differ (repairable: closed).
        case unclosedRing = "unclosed ring"
        /// A ring with fewer than 4 positions once closed.
        case tooFewPoints = "ring with too few points"
        /// Two consecutive ring positions more than 180° apart in longitude.
        case crossesAntimeridian = "crosses the antimeridian"
        /// GEOS finds the polygon invalid (repairable with `GEOSMakeValid`); also a repair
        /// that failed or left no area.
        case invalidPolygon = "invalid polygon"
        /// An option property (`notifyOnEntry`, `notifyOnExit`, `repeats`, `dwell`, `note`)
        /// with a value of the wrong type.
        case invalidOption = "invalid option"
        /// The ``FenceLoader/reproject`` function failed on a position.
        case reprojection = "reprojection failed"

        /// A stable code for the kind (`invalid_polygon`), as `InputError.Kind.invalidRecord` carries it.
        public var code: String { String(rawValue.map { $0 == " " ? "_" : $0 }) }
    }

    /// The file and the 1-based CSV line or 0-based GeoJSON feature index.
    public var location: SourceLocation
    /// The fence's identifier when known; nil for ``Kind/missingIdentifier`` and for a GeoJSON
    /// feature rejected before its identifier is read. For a CSV row with the wrong number of
    /// fields it is the row's first field.
    public var fenceID: String?
    /// The reason.
    public var kind: Kind
    /// What is wrong, without the location.
    public var message: String
    /// `--repair` can fix it (closing a ring, clamping a coordinate, GEOSMakeValid).
    public var repairable: Bool

    /// A problem of `kind` at `location`, for the fence `fence` when known.
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

/// A warning that matters when the fence goes to a phone (docs/fences.md#phone-warnings).
/// Warnings never make a fence invalid.
public struct FenceWarning: Hashable, Sendable, CustomStringConvertible {
    /// The kind of warning; the raw value is the text printed.
    public enum Kind: String, Sendable, CaseIterable {
        /// A circle radius under ``PhoneLimits/minRadius``.
        case smallRadius = "radius under the reliable minimum"
        /// A circle radius over ``PhoneLimits/maxRadius``.
        case largeRadius = "radius over the platform maximum"
        /// A polygon, which a phone can only monitor as its ``EnclosingCircle`` (every polygon
        /// gets one).
        case polygonAsCircle = "polygon monitored as its enclosing circle"
    }
    /// Where the fence is defined.
    public var location: SourceLocation
    /// The fence's identifier.
    public var fenceID: String
    /// The kind of warning.
    public var kind: Kind
    /// What the warning says, with the numbers (radius, limit, circle), without the location.
    public var message: String
    /// `location (id "x"): message`.
    public var description: String { "\(location) (id \"\(fenceID)\"): \(message)" }
}
