#ifndef TESSERA_FUZZER_DRIVER_H
#define TESSERA_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// One fuzz input: libFuzzer's `LLVMFuzzerTestOneInput`. Returns 0, or -1 for an input that should
/// not enter the corpus (one that is not of the harness's format).
typedef int (*tessera_fuzz_test_one_input)(const uint8_t *data, size_t size);

/// Runs libFuzzer with the process's arguments over `test_one_input` and returns its exit status.
int tessera_fuzz_run(int argc, char **argv, tessera_fuzz_test_one_input test_one_input);

#endif
