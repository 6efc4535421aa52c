// An LD_AUDIT module for MissingLibraryTests: the dynamic loader asks it where to look for each
// library, and it answers "nowhere" for every name that starts with one of the ':'-separated
// prefixes in TESSERA_HIDE_LIBRARIES, as if that library were not installed.
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>

unsigned int la_version(unsigned int version) { return version; }

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag) {
    (void)cookie, (void)flag;
    const char *hidden = getenv("TESSERA_HIDE_LIBRARIES");
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (const char *prefix = hidden; prefix && *prefix;) {
        const char *end = strchr(prefix, ':');
        size_t length = end ? (size_t)(end - prefix) : strlen(prefix);
        if (length > 0 && strncmp(base, prefix, length) == 0) return NULL;
        prefix += length + (end ? 1 : 0);
    }
    return (char *)name;
}
