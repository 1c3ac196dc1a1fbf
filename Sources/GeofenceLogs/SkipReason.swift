import GeofenceBase

/// Why a row of a location log is bad input (docs/errors.md). Strict reading stops at the first;
/// with ``LogReaderOptions/skipInvalid`` the row is skipped and counted under its reason.
/// The raw values are stable names for summaries and JSON output.
public enum SkipReason: String, CaseIterable, Sendable, Comparable {
    /// Latitude, longitude or accuracy is not a number (`latitude "abc" is not a number`).
    case badNumber = "bad_number"
    /// The time is neither ISO 8601 nor Unix seconds, or is empty.
    case badTime = "bad_time"
    /// A value is NaN or infinite (`nan`, `inf`, `1e400`).
    case notFinite = "not_finite"
    /// Latitude outside [-90, 90].
    case latitudeOutOfRange = "latitude_out_of_range"
    /// Longitude outside [-180, 180].
    case longitudeOutOfRange = "longitude_out_of_range"
    /// Accuracy below zero.
    case negativeAccuracy = "negative_accuracy"
    /// The device id is empty (or only blanks).
    case emptyDevice = "empty_device"
    /// A CSV row with fewer fields than the header (not the last line; see `truncatedLastLine`).
    case tooFewFields = "too_few_fields"
    /// A CSV row with more fields than the header.
    case tooManyFields = "too_many_fields"
    /// An NDJSON object without (or with `null` for) a required key; a GPX point without `lat`/`lon`.
    case missingField = "missing_field"
    /// A GPX point without `<time>`.
    case missingTime = "missing_time"
    /// A row that is not well formed: unterminated quoted CSV field, invalid JSON, a value of
    /// the wrong JSON type, a device id that is not UTF-8.
    case malformedRow = "malformed_row"
    /// The last line has no newline and is incomplete: a CSV row with fewer fields than the
    /// header, an NDJSON object that is not closed, a GPX file that ends inside an element.
    case truncatedLastLine = "truncated_last_line"
    /// A fix earlier than the previous fix of the same device.
    case timeBackwards = "time_backwards"
    /// Same device, same time, same latitude and longitude as the device's previous fix.
    case duplicateFix = "duplicate_fix"

    /// Orders reasons by raw value (alphabetically), for summaries in a stable order.
    public static func < (a: SkipReason, b: SkipReason) -> Bool { a.rawValue < b.rawValue }
}
