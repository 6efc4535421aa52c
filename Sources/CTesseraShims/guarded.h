#ifndef TESSERA_GUARDED_H
#define TESSERA_GUARDED_H

#include <setjmp.h>

// Runs `statement` under setjmp on the wrapper's `recovery` buffer: when the library's error
// handler longjmps there, the wrapper function returns -1 (the message is already copied into the
// wrapper); otherwise 0. Must be the whole body of a function returning int.
#define GUARDED(wrapper, statement)            \
    do {                                       \
        if (setjmp((wrapper)->recovery)) {     \
            return -1;                         \
        }                                      \
        statement;                             \
        return 0;                              \
    } while (0)

#endif
