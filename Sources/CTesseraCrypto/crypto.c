#include "CTesseraCrypto.h"

#include "CTesseraLoader.h"

#include <stdio.h>

typedef struct EVPMD EVPMD; // EVP_MD, opaque

static struct {
    const EVPMD *(*EVP_sha256)(void);
    int (*EVP_Digest)(const void *, size_t, unsigned char *, unsigned int *, const EVPMD *, void *);
    unsigned char *(*HMAC)(const EVPMD *, const void *, int, const unsigned char *, size_t, unsigned char *,
                           unsigned int *);
    int (*EVP_PBE_scrypt)(const char *, size_t, const unsigned char *, size_t, uint64_t, uint64_t, uint64_t, uint64_t,
                          unsigned char *, size_t);
    int (*RAND_bytes)(unsigned char *, int);
} libcrypto;
static const EVPMD *sha256;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void load(void) {
    // OpenSSL 3 (Debian 12), then 1.1.
    static const char *const openSSL3[] = {"libcrypto.so.3", NULL}, *const openSSL11[] = {"libcrypto.so.1.1", NULL};
    TESSERA_SYMBOLS(libcrypto, "EVP_sha256", "EVP_Digest", "HMAC", "EVP_PBE_scrypt", "RAND_bytes", );
    const char *cannotLoad = "cannot load libcrypto (install libssl3)";
    const char *lacks = "libcrypto lacks EVP_sha256, EVP_Digest, HMAC, EVP_PBE_scrypt or RAND_bytes";
    if (tessera_library_open(&library, openSSL3, RTLD_NOW, symbols, NULL, (void **)&libcrypto, cannotLoad, lacks) ||
        tessera_library_open(&library, openSSL11, RTLD_NOW, symbols, NULL, (void **)&libcrypto, cannotLoad, lacks))
        sha256 = libcrypto.EVP_sha256();
}

int tessera_sha256(const void *data, size_t length, uint8_t digest[32], char *message, size_t capacity) {
    if (!tessera_library_once(&library, load, message, capacity)) return -1;
    unsigned int size = 0;
    static const char empty[1];
    if (sha256 && libcrypto.EVP_Digest(data ? data : empty, length, digest, &size, sha256, NULL) == 1 && size == 32)
        return 0;
    if (message && capacity) snprintf(message, capacity, "SHA-256 failed");
    return -1;
}

int tessera_hmac_sha256(const void *key, size_t keyLength, const void *data, size_t length, uint8_t digest[32],
                        char *message, size_t capacity) {
    if (!tessera_library_once(&library, load, message, capacity)) return -1;
    unsigned int size = 0;
    static const unsigned char empty[1];
    if (sha256 && keyLength <= 0x7fffffff &&
        libcrypto.HMAC(sha256, key, (int)keyLength, data ? data : empty, length, digest, &size) && size == 32)
        return 0;
    if (message && capacity) snprintf(message, capacity, "HMAC-SHA256 failed");
    return -1;
}

int tessera_scrypt(const void *password, size_t passwordLength, const void *salt, size_t saltLength, unsigned logN,
                   unsigned r, unsigned p, uint8_t *key, size_t keyLength, char *message, size_t capacity) {
    if (!tessera_library_once(&library, load, message, capacity)) return -1;
    static const char empty[1];
    // 128·N·r bytes is what scrypt works in; allowed with room, and bounded by the caller's parameters.
    uint64_t n = (uint64_t)1 << logN, memory = 128 * n * r * 2 + (1 << 20);
    if (logN >= 1 && logN <= 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16 &&
        libcrypto.EVP_PBE_scrypt(password ? password : empty, passwordLength, salt ? salt : (const void *)empty,
                                 saltLength, n, r, p, memory, key, keyLength) == 1)
        return 0;
    if (message && capacity) snprintf(message, capacity, "scrypt failed");
    return -1;
}

int tessera_random_bytes(uint8_t *bytes, size_t count, char *message, size_t capacity) {
    if (!tessera_library_once(&library, load, message, capacity)) return -1;
    if (count <= 0x7fffffff && libcrypto.RAND_bytes(bytes, (int)count) == 1) return 0;
    if (message && capacity) snprintf(message, capacity, "no random bytes");
    return -1;
}
