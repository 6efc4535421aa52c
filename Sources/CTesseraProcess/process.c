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

bool tessera_limit_malloc_arenas(int count) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, count) == 1;
#else
    (void)count;
    return false;
#endif
}
