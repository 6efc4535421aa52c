#ifndef C_TESSERA_CRYPTO_H
#define C_TESSERA_CRYPTO_H

// SHA-256, HMAC-SHA256, scrypt and random bytes from the system's OpenSSL libcrypto, loaded with dlopen on first use.
//
// Why: the disk cache names files by the SHA-256 of their keys, and the S3 client signs requests
// with AWS Signature Version 4 (SHA-256 and HMAC-SHA256); the server's access control signs URLs
// and tokens (HMAC-SHA256) and keeps password hashes (scrypt). swift-crypto would do it, but its
// `Crypto` module imports all of Foundation on Linux, and a process that links Foundation pays
// about 4 MB of resident memory at start (CoreFoundation's initialisers and ICU), measured, even
// when it never hashes — every `tessera thumbnail` did. Loaded on demand, only processes that
// use a disk cache or object storage load libcrypto. EVP_Digest, EVP_sha256 and HMAC are OpenSSL's
// stable C ABI (1.1 and 3).

#include <stddef.h>
#include <stdint.h>

/// Writes the SHA-256 of `length` bytes at `data` into `digest`. Returns 0, or -1 when libcrypto
/// cannot be loaded or hashing fails; then `message` (at least 256 bytes, may be NULL) says why.
/// Thread-safe; loads once.
int tessera_sha256(const void *_Nullable data, size_t length, uint8_t digest[_Nonnull 32],
                   char *_Nullable message, size_t capacity);

/// Writes the HMAC-SHA256 of `length` bytes at `data` under the `keyLength`-byte `key` into
/// `digest`. Returns 0, or -1 as `tessera_sha256` does. Thread-safe; loads once.
int tessera_hmac_sha256(const void *_Nonnull key, size_t keyLength, const void *_Nullable data, size_t length,
                        uint8_t digest[_Nonnull 32], char *_Nullable message, size_t capacity);

/// Writes `keyLength` bytes of scrypt (RFC 7914) of the password under `salt`, with N = 2^logN, into
/// `key`. Returns 0, or -1 as `tessera_sha256` does (also for parameters out of range: logN 1–20,
/// r 1–32, p 1–16, which bound the memory to 256 MiB). For password hashes.
int tessera_scrypt(const void *_Nullable password, size_t passwordLength, const void *_Nullable salt, size_t saltLength,
                   unsigned logN, unsigned r, unsigned p, uint8_t *_Nonnull key, size_t keyLength,
                   char *_Nullable message, size_t capacity);

/// Fills `bytes` with `count` bytes from OpenSSL's cryptographically secure generator. Returns 0,
/// or -1 as `tessera_sha256` does.
int tessera_random_bytes(uint8_t *_Nonnull bytes, size_t count, char *_Nullable message, size_t capacity);

#endif
