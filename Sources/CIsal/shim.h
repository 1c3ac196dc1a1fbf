#pragma once
// ISA-L's igzip: streaming DEFLATE/gzip decompression, about three times as fast as zlib's
// inflate; every gzip log is inflated with it (docs/logs.md#gzip).
#include <isa-l/igzip_lib.h>
