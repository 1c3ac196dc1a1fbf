// libFuzzer target: location log, csv (Fuzz/README.md).
import FuzzSupport

fuzzMain { data, count in fuzzLog(.csv, data, count) }
