// libFuzzer target: location log, gpx (Fuzz/README.md).
import FuzzSupport

fuzzMain { data, count in fuzzLog(.gpx, data, count) }
