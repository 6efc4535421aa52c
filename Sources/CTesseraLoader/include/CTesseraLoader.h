#ifndef C_TESSERA_LOADER_H
#define C_TESSERA_LOADER_H

// The one dlopen loader behind the C targets that reach a system library through a table of
// function pointers filled on first use rather than by the linker (CTesseraAV, CTesseraHeif,
// CTesseraCairo, CTesseraSVG, CTesseraPDF, CTesseraTIFF, CTesseraJP2, CTesseraJXL, CTesseraCrypto,
// CTesseraLCMS, CTesseraQuant, CTesseraOpenSlide, CTesseraPROJ, CTesseraDeflate; each header says why its library is not linked).
// Each of those keeps its own sonames, symbol list and reason strings; the macros below are what
// they all write alike.

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#pragma clang assume_nonnull begin

/// One library's loading: done once, and why it failed if it did.
typedef struct TesseraLibrary {
    pthread_once_t once;
    bool loaded;
    char reason[256];
} TesseraLibrary;

#define TESSERA_LIBRARY_INIT {PTHREAD_ONCE_INIT, false, ""}

/// For a table's X-macro of bare function names: each name as a string, for `symbols`.
#define TESSERA_SYMBOL(name) #name,

/// For a table's X-macro of bare function names: each name's slot in the table's struct, with the
/// library header's own prototype, so that the table cannot drift from the ABI it was built against.
#define TESSERA_SLOT(name) __typeof__(&name) _Nonnull name;

/// In a library's header: the table's struct `Type`, of the slots the rest of the arguments declare
/// (its X-macro of functions given `TESSERA_SLOT`), and its public loader `load`: the loaded table,
/// or NULL when a library or a symbol is missing, and then `message` (at least 256 bytes) names
/// what was missing. Loads once; later calls return the same table. Thread-safe.
#define TESSERA_TABLE(Type, load, ...)                                                               \
    typedef struct Type {                                                                            \
        __VA_ARGS__                                                                                  \
    } Type;                                                                                          \
    const Type *_Nullable load(char *_Nullable message, size_t capacity);

/// In a `load` function: `symbols`, the names listed after `slots` (each followed by a comma) and a
/// NULL, checked at compile time to be one for each pointer in `slots` (the table they fill).
#define TESSERA_SYMBOLS(slots, ...)                                                                  \
    static const char *const symbols[] = {__VA_ARGS__ NULL};                                         \
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof(slots) / sizeof(void *) + 1,             \
                   "a symbol for each slot")

/// Declares a table's loading (`library`, and the `load` function the file defines next, which
/// calls `tessera_library_open`) and defines the public `function`: the table at `result` once
/// loaded, or NULL with the reason in `message` (see `tessera_library_once`).
#define TESSERA_LOADER(Type, function, result)                                                       \
    static TesseraLibrary library = TESSERA_LIBRARY_INIT;                                            \
    static void load(void);                                                                          \
    const Type *_Nullable function(char *_Nullable message, size_t capacity) {                       \
        return tessera_library_once(&library, load, message, capacity) ? (result) : NULL;             \
    }

/// Opens the NULL-terminated `sonames` (at least one) in order with dlopen(mode | RTLD_LOCAL),
/// dependencies first so that each finds those it needs already in the process; then fills
/// `slots[i]` (a table of function pointers, one a symbol) with the address of the NULL-terminated
/// `symbols[i]`, taken from the library `from[i]` indexes in `sonames` or, where `from` is NULL,
/// from the first library that has it. Sets `library->loaded`; or, at the first soname that does
/// not open or symbol that is missing, stops and writes `library->reason` from the printf formats
/// `cannot_load`, given the soname, or `lacks`, given the symbol (`lacks` NULL: "<soname> lacks
/// <symbol>", naming the library it was looked for in, the last one where `from` is NULL).
/// Returns `library->loaded`.
bool tessera_library_open(TesseraLibrary *library, const char *_Nullable const *_Nonnull sonames, int mode,
                          const char *_Nullable const *_Nonnull symbols, const unsigned char *_Nullable from,
                          void *_Nullable *_Nonnull slots, const char *cannot_load, const char *_Nullable lacks);

/// Calls `load` (which calls `tessera_library_open`) the first time, once, whichever thread asks;
/// then returns `library->loaded`, and when it is false writes the reason into `message`
/// (`capacity` bytes, truncated to fit) unless that is NULL. Thread-safe.
bool tessera_library_once(TesseraLibrary *library, void (*load)(void), char *_Nullable message, size_t capacity);

#pragma clang assume_nonnull end

#endif
