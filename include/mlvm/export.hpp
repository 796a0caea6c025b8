// MLVM_API marks what libmlvm.so exports. The library is built with hidden visibility, so
// only the public API (this folder) is visible to hosts; everything else stays internal and
// may change between releases without breaking them.
#pragma once

#if defined(_WIN32)
#define MLVM_API
#else
#define MLVM_API __attribute__((visibility("default")))
#endif
