/*
 * sha256: a small, dependency-free SHA-256 (FIPS 180-4).
 *
 * Used for content hashes of patches and attachments (the identity of a
 * candidate), never for security decisions, so speed is not the point and
 * a 200-line implementation beats another library dependency.
 *
 *   struct sha256 ctx;
 *   sha256_init(&ctx);
 *   sha256_update(&ctx, data, len);   // any number of times
 *   sha256_final(&ctx, digest);       // 32 bytes
 *
 * sha256_hex() is the one-shot form giving 64 lowercase hex digits + NUL.
 */
#ifndef BB_SHA256_H
#define BB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN 65	/* 64 digits and the NUL */

struct sha256 {
	uint32_t h[8];
	uint64_t total;		/* bytes hashed so far */
	unsigned char block[64];
	size_t fill;		/* bytes waiting in block */
};

void sha256_init(struct sha256 *ctx);
void sha256_update(struct sha256 *ctx, const void *data, size_t len);
void sha256_final(struct sha256 *ctx, unsigned char digest[SHA256_LEN]);
/* Hash data in one go; hex gets 64 lowercase digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN]);

#endif
