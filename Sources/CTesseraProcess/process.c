#include "CTesseraProcess.h"

#include <stddef.h>
#include <stdlib.h>  // defines __GLIBC__ on glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// The runtime's variable (swift/Runtime/Concurrency.h); its exact function-pointer type does not
// matter here, only its width.
extern void *swift_task_enqueueGlobal_hook;

bool tessera_install_global_enqueue_hook(const void *hook) {
    void *expected = NULL;
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, (void *)hook, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

bool tessera_tune_malloc(int arenas, int mmap_threshold) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, arenas) == 1 && mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1;
#else
    (void)arenas;
    (void)mmap_threshold;
    return false;
#endif
}
