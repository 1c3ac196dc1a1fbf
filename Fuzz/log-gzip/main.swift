// libFuzzer target: location log through the gzip framing (Fuzz/README.md); the seeds are
// gzip streams, the reader detects the compression from the bytes.
import FuzzSupport

fuzzMain { data, count in fuzzLog(.csv, data, count) }
