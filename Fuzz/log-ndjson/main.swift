// libFuzzer target: location log, ndjson (Fuzz/README.md).
import FuzzSupport

fuzzMain { data, count in fuzzLog(.ndjson, data, count) }
