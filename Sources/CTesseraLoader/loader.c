#include "CTesseraLoader.h"

#include <stdio.h>

bool tessera_library_open(TesseraLibrary *library, const char *const *sonames, int mode, const char *const *symbols,
                          const unsigned char *from, void **slots, const char *cannot_load, const char *lacks) {
    size_t count = 0;
    while (sonames[count]) count++;
    void *handles[count];
    library->loaded = false;
    for (size_t i = 0; i < count; i++) {
        if (!(handles[i] = dlopen(sonames[i], mode | RTLD_LOCAL))) {
            snprintf(library->reason, sizeof library->reason, cannot_load, sonames[i]);
            return false;
        }
    }
    for (size_t i = 0; symbols[i]; i++) {
        // The libraries it is looked for in: the one `from` names, or all of them in order.
        size_t first = from ? from[i] : 0, last = from ? from[i] : count - 1;
        slots[i] = NULL;
        for (size_t j = first; j <= last && !slots[i]; j++) slots[i] = dlsym(handles[j], symbols[i]);
        if (!slots[i]) {
            if (lacks) snprintf(library->reason, sizeof library->reason, lacks, symbols[i]);
            else snprintf(library->reason, sizeof library->reason, "%s lacks %s", sonames[last], symbols[i]);
            return false;
        }
    }
    library->loaded = true;
    return true;
}

bool tessera_library_once(TesseraLibrary *library, void (*load)(void), char *message, size_t capacity) {
    pthread_once(&library->once, load);
    if (!library->loaded && message && capacity) snprintf(message, capacity, "%s", library->reason);
    return library->loaded;
}
