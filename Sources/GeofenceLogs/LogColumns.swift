import GeofenceBase

/// Which CSV columns (and NDJSON keys) hold the parts of a fix (docs/logs.md#columns).
///
/// A role named explicitly (``parse(_:)``, or a non-default name given to ``init(device:time:lat:lon:accuracy:)``)
/// matches that name exactly, else ASCII case-insensitively when that is unambiguous. A role
/// left at its default is looked up among its ``synonyms`` in order, case-insensitively, in
/// the columns no explicit role took: `user_id,timestamp,latitude,longitude,horizontal_accuracy`
/// needs no mapping. `accuracy` is the only optional role (0 when absent or empty).
public struct LogColumns: Hashable, Sendable {
    /// The column (key) holding the device id; default `device`.
    public var device: String { didSet { explicit[0] = true } }
    /// The column (key) holding the time (docs/logs.md#times); default `time`.
    public var time: String { didSet { explicit[1] = true } }
    /// The column (key) holding the latitude in degrees; default `lat`.
    public var lat: String { didSet { explicit[2] = true } }
    /// The column (key) holding the longitude in degrees; default `lon`.
    public var lon: String { didSet { explicit[3] = true } }
    /// The column (key) holding the horizontal accuracy in metres; default `accuracy`. The
    /// only optional column: when absent, every fix has accuracy 0.
    public var accuracy: String { didSet { explicit[4] = true } }
    /// Per role: named explicitly (matched by that name only) or left to the synonyms.
    var explicit: [Bool] = [false, false, false, false, false]

    /// Column names for each role; a role given a name other than its default is explicit
    /// (matched by that name only), the others are found by their ``synonyms``.
    public init(device: String = "device", time: String = "time", lat: String = "lat",
                lon: String = "lon", accuracy: String = "accuracy") {
        self.device = device
        self.time = time
        self.lat = lat
        self.lon = lon
        self.accuracy = accuracy
        explicit = zip(names, Self.roleNames).map { $0 != $1 }
    }

    /// The default names: `device`, `time`, `lat`, `lon`, `accuracy`.
    public static let `default` = LogColumns()

    /// The roles, in order: `device`, `time`, `lat`, `lon`, `accuracy` (also the default names).
    public static let roleNames = ["device", "time", "lat", "lon", "accuracy"]

    /// The names each role is recognised by when not named explicitly, in order of preference
    /// (compared ASCII case-insensitively): docs/logs.md#columns lists them.
    public static let synonyms: [[String]] = [
        ["device", "device_id", "deviceid", "user_id", "userid", "uid", "user", "mmsi", "icao24", "imei", "vehicle_id", "tracker_id"],
        ["time", "timestamp", "ts", "datetime", "date_time", "basedatetime", "time_utc", "recorded_at"],
        ["lat", "latitude", "y"],
        ["lon", "lng", "long", "longitude", "x"],
        ["accuracy", "horizontal_accuracy", "horizontalaccuracy", "h_accuracy", "hacc", "accuracy_m", "acc"],
    ]

    /// What each role holds, for messages.
    static let roleDescriptions = ["device", "time", "latitude", "longitude", "accuracy"]

    /// The names in role order: device, time, lat, lon, accuracy.
    var names: [String] { [device, time, lat, lon, accuracy] }

    /// Parses a column spec (the CLI's `--columns` value): comma-separated `role=name` pairs, roles
    /// among `device`, `time`, `lat`, `lon`, `accuracy`; the roles given are explicit, the
    /// others are found by their synonyms. Example: `device=mmsi,time=ts,lat=LAT,lon=LON`.
    /// - Throws: `GeofenceError.invalidArgument` (parameter `columns`) naming the bad pair: a
    ///   pair without `=`, an empty name, an unknown role, a role given twice, or one column
    ///   named for two roles.
    /// - Complexity: O(length of `spec`).
    public static func parse(_ spec: String) throws(GeofenceError) -> LogColumns {
        var columns = LogColumns()
        var seen: [String: String] = [:]
        for pair in spec.split(separator: ",", omittingEmptySubsequences: false) {
            guard let eq = pair.firstIndex(of: "=") else {
                throw .argument("columns", "\"\(pair)\" is not role=name (roles: device, time, lat, lon, accuracy)")
            }
            let role = pair[..<eq].trimmingASCIISpaces(), name = pair[pair.index(after: eq)...].trimmingASCIISpaces()
            guard !name.isEmpty else { throw .argument("columns", "empty column name for \"\(role)\"") }
            guard seen[role] == nil else { throw .argument("columns", "\"\(role)\" given twice") }
            if let other = seen.first(where: { $0.value == name })?.key {
                throw .argument("columns", "column \"\(name)\" named for both \"\(other)\" and \"\(role)\"; one column holds one part of a fix")
            }
            seen[role] = name
            switch role {
            case "device": columns.device = name
            case "time": columns.time = name
            case "lat": columns.lat = name
            case "lon": columns.lon = name
            case "accuracy": columns.accuracy = name
            default:
                throw .argument("columns", "unknown role \"\(role)\" (roles: device, time, lat, lon, accuracy)")
            }
        }
        return columns
    }

    /// Why a header (or an NDJSON object's keys) cannot give every required role a column.
    struct Unresolved: Error {
        var message: String
    }

    /// The column of each role among `header` (nil: accuracy absent). Explicit roles first, by
    /// their name; then the others by their synonyms among the columns left, in order of
    /// preference. A role matched by two columns (`Lat` and `lat`) is an error; so is a missing
    /// required role, whose message lists the names tried and suggests a `--columns` line.
    /// - Complexity: O(roles × synonyms × columns).
    func resolve(_ header: [String]) -> Result<[Int?], Unresolved> {
        var chosen: [Int?] = [nil, nil, nil, nil, nil]
        var taken = Set<Int>()
        let lower = header.map { $0.lowercased() }
        for role in 0..<5 where explicit[role] {
            let wanted = names[role]
            var matches = header.indices.filter { header[$0] == wanted }
            if matches.isEmpty { matches = header.indices.filter { lower[$0] == wanted.lowercased() } }
            if matches.count > 1 {
                return .failure(Unresolved(message: "column \"\(wanted)\" appears \(matches.count) times in the header"))
            }
            guard let index = matches.first else {
                return .failure(Unresolved(message: "missing column \"\(wanted)\" (--columns \(Self.roleNames[role])=\(wanted)) in the header (columns: \(header.joined(separator: ", ")))"))
            }
            chosen[role] = index
            taken.insert(index)
        }
        for role in 0..<5 where !explicit[role] {
            for name in Self.synonyms[role] {
                var matches = header.indices.filter { !taken.contains($0) && lower[$0] == name }
                let exact = matches.filter { header[$0] == name }
                if exact.count > 1 {
                    return .failure(Unresolved(message: "column \"\(name)\" appears \(exact.count) times in the header"))
                }
                if matches.count > 1, exact.count == 1 { matches = exact }
                if matches.count > 1 {
                    return .failure(Unresolved(message: "column \"\(header[matches[0]])\" appears \(matches.count) times in the header (ASCII case ignored)"))
                }
                if let index = matches.first { chosen[role] = index; taken.insert(index); break }
            }
        }
        guard let missing = (0..<4).first(where: { chosen[$0] == nil }) else { return .success(chosen) }
        // Suggest a mapping: the columns found, then the unclaimed ones, in header order, for
        // the roles still missing.
        var free = header.indices.filter { !taken.contains($0) }.makeIterator()
        let pairs = (0..<4).map { role -> String in
            let column = chosen[role] ?? free.next()
            return "\(Self.roleNames[role])=\(column.map { header[$0] } ?? "NAME")"
        }
        var message = "no \(Self.roleDescriptions[missing]) column in the header (columns: \(header.joined(separator: ", ")))"
        let defaultName = Self.roleNames[missing]
        if let owner = (0..<5).first(where: { explicit[$0] && names[$0].lowercased() == defaultName }) {
            message += "; \"\(names[owner])\" is the \(Self.roleDescriptions[owner]) column (--columns \(Self.roleNames[owner])=\(names[owner]))"
        } else {
            message += "; names recognised: \(Self.synonyms[missing].joined(separator: ", "))"
        }
        message += "; name the columns with --columns, e.g. --columns \(pairs.joined(separator: ","))"
        return .failure(Unresolved(message: message))
    }
}

extension Substring {
    fileprivate func trimmingASCIISpaces() -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
