#ifndef C_TESSERA_PROJ_H
#define C_TESSERA_PROJ_H

// PROJ 9 (coordinate reference systems and their transformations), reached through a table of
// function pointers filled with dlopen/dlsym on first use, as CTesseraLCMS does for LittleCMS:
// only a process that serves a map maps PROJ and its SQLite database. The header is PROJ's own, so
// the prototypes cannot drift from its ABI (PROJ 9.1 is libproj.so.25).

#include <stddef.h>

#include "CTesseraLoader.h"
#include <proj.h>

#define TESSERA_PROJ_FUNCTIONS(X)                                                                  \
    X(proj_context_create) X(proj_context_destroy) X(proj_log_level) X(proj_context_errno)         \
    X(proj_context_errno_string) X(proj_create_crs_to_crs) X(proj_normalize_for_visualization)     \
    X(proj_destroy) X(proj_trans_generic) X(proj_trans_bounds) X(proj_errno_reset)                 \
    X(proj_context_set_enable_network)

TESSERA_TABLE(TesseraPROJ, tessera_proj_load, TESSERA_PROJ_FUNCTIONS(TESSERA_SLOT))

#endif
