#ifndef C_TESSERA_PROCESS_H
#define C_TESSERA_PROCESS_H

// Process-wide settings a server makes once at start, which Swift cannot reach directly.

#include <stdbool.h>

/// Sets Swift concurrency's `swift_task_enqueueGlobal_hook` to `hook` (a thin Swift function of the
/// hook's type) if no hook is set yet; returns whether it was set. (swift-nio's own installer finds
/// the hook with dlsym, which a release binary with the runtime linked statically and no exported
/// symbols cannot answer; a link-time reference works with the static and the shared runtime.)
bool tessera_install_global_enqueue_hook(const void *_Nonnull hook);

/// glibc's `mallopt(M_ARENA_MAX, count)`; returns whether it was accepted (always false elsewhere).
/// It binds only arenas made after it: call it before the process starts threads.
bool tessera_limit_malloc_arenas(int count);

#endif
