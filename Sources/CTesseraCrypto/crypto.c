#include "CTesseraCrypto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef struct EVPMD EVPMD; // EVP_MD, opaque

static int (*digest_function)(const void *, size_t, unsigned char *, unsigned int *, const EVPMD *, void *);
static unsigned char *(*hmac_function)(const EVPMD *, const void *, int, const unsigned char *, size_t, unsigned char *,
                                       unsigned int *);
static const EVPMD *sha256;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // OpenSSL 3 (Debian 12), then 1.1.
    const char *names[] = {"libcrypto.so.3", "libcrypto.so.1.1"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "cannot load libcrypto (install libssl3)");
        return;
    }
    const EVPMD *(*sha256_function)(void) = (const EVPMD *(*)(void))dlsym(library, "EVP_sha256");
    *(void **)&digest_function = dlsym(library, "EVP_Digest");
    *(void **)&hmac_function = dlsym(library, "HMAC");
    if (!sha256_function || !digest_function || !hmac_function) {
        snprintf(failure, sizeof failure, "libcrypto lacks EVP_sha256, EVP_Digest or HMAC");
        digest_function = NULL;
        hmac_function = NULL;
        return;
    }
    sha256 = sha256_function();
}

int tessera_sha256(const void *data, size_t length, uint8_t digest[32], char *message, size_t capacity) {
    pthread_once(&once, load);
    unsigned int size = 0;
    static const char empty[1];
    if (digest_function && sha256 && digest_function(data ? data : empty, length, digest, &size, sha256, NULL) == 1 && size == 32)
        return 0;
    if (message && capacity) snprintf(message, capacity, "%s", digest_function ? "SHA-256 failed" : failure);
    return -1;
}

int tessera_hmac_sha256(const void *key, size_t keyLength, const void *data, size_t length, uint8_t digest[32],
                        char *message, size_t capacity) {
    pthread_once(&once, load);
    unsigned int size = 0;
    static const unsigned char empty[1];
    if (hmac_function && sha256 && keyLength <= 0x7fffffff &&
        hmac_function(sha256, key, (int)keyLength, data ? data : empty, length, digest, &size) && size == 32)
        return 0;
    if (message && capacity) snprintf(message, capacity, "%s", hmac_function ? "HMAC-SHA256 failed" : failure);
    return -1;
}
