#include "CFuzzerDriver.h"

// libFuzzer's entry point for programs that have a main of their own (compiler-rt's
// FuzzerInterface.h; in every libFuzzer since LLVM 11). A SwiftPM executable always has its own
// main, linked over the one libFuzzer brings, so each harness starts libFuzzer through this.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

static tessera_fuzz_test_one_input harness;

// libFuzzer's own main (linked in, though never run) refers to this symbol, so it is defined here,
// handing each input to the harness that the running process registered.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return harness(data, size);
}

int tessera_fuzz_run(int argc, char **argv, tessera_fuzz_test_one_input test_one_input) {
    harness = test_one_input;
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
