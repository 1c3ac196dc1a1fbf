#pragma once
// ISA-L's igzip: streaming DEFLATE/gzip decompression, about three times as fast as zlib's
// inflate; every gzip log is inflated with it (docs/logs.md#gzip).
#include <isa-l/igzip_lib.h>
// The CRC-32 of a gzip header's bytes, for its CRC-16 (GzipStream parses the header itself).
#include <isa-l/crc.h>
