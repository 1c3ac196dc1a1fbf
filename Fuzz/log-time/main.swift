// libFuzzer target: fix times, ISO 8601 and Unix seconds (Fuzz/README.md).
import FuzzSupport
import GeofenceKit

fuzzMain { data, count in
    let text = String(decoding: fuzzBytes(data, count), as: UTF8.self)
    if let t = LogTime.parse(text), t >= LogTime.earliest, t <= LogTime.latest {
        // Every time a reader accepts can be written back.
        _ = EventWriter.iso8601(t)
        _ = LogTime.format(t)
    }
    return 0
}
