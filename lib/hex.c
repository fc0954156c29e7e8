/*
 * hex: see hex.h.
 */
#include "hex.h"

void hex_encode(char *out, const void *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *d = data;

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * len] = '\0';
}
