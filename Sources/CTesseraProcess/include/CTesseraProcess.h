#ifndef C_TESSERA_PROCESS_H
#define C_TESSERA_PROCESS_H

// Process-wide settings a server makes once at start, which Swift cannot reach directly.

#include <stdbool.h>

/// Sets Swift concurrency's `swift_task_enqueueGlobal_hook` to `hook` (a thin Swift function of the
/// hook's type) if no hook is set yet; returns whether it was set. (swift-nio's own installer finds
/// the hook with dlsym, which a release binary with the runtime linked statically and no exported
/// symbols cannot answer; a link-time reference works with the static and the shared runtime.)
bool tessera_install_global_enqueue_hook(const void *_Nonnull hook);

/// glibc's `mallopt(M_ARENA_MAX, arenas)` and `mallopt(M_MMAP_THRESHOLD, mmap_threshold)`; returns
/// whether both were accepted (always false elsewhere). The arena limit binds only arenas made after
/// it: call it before the process starts threads. A fixed threshold (bytes) also turns off glibc's
/// sliding one, which would otherwise rise to the largest buffer freed and keep every later
/// composite and decoded tile of that size in the heap, where freeing it returns nothing.
bool tessera_tune_malloc(int arenas, int mmap_threshold);

#endif
