/*
 * hex: hex digits both ways.  hex_encode() is the one way a digest, a
 * nonce or a token becomes text (lowercase); hexval() reads one digit
 * (percent-decoding in the stand-in's query strings, LAVA's escaped log
 * lines).
 */
#ifndef BB_HEX_H
#define BB_HEX_H

#include <stddef.h>

/* out gets 2 * len lowercase digits and a NUL (2 * len + 1 bytes). */
void hex_encode(char *out, const void *data, size_t len);

/* The value of one hex digit, or -1. */
static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
