/*
 * base64: the one encoder and decoder.  See base64.h.
 */
#include "base64.h"

static const char digits[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_encode(struct buf *out, const void *data, size_t len)
{
	const unsigned char *s = data;
	char q[4];

	for (size_t i = 0; i < len; i += 3) {
		size_t n = len - i < 3 ? len - i : 3;
		unsigned v = (unsigned)s[i] << 16;

		if (n > 1)
			v |= (unsigned)s[i + 1] << 8;
		if (n > 2)
			v |= s[i + 2];
		q[0] = digits[v >> 18 & 63];
		q[1] = digits[v >> 12 & 63];
		q[2] = n > 1 ? digits[v >> 6 & 63] : '=';
		q[3] = n > 2 ? digits[v & 63] : '=';
		if (buf_add(out, q, 4))
			return -1;
	}
	return 0;
}

static int digit_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int base64_decode(struct buf *out, const char *in, size_t len)
{
	unsigned acc = 0;
	int bits = 0, pad = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = in[i];
		int v;

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			if (++pad > 2)
				return -1;
			continue;
		}
		if (pad || (v = digit_value(c)) < 0)
			return -1;	/* data after padding, or not base64 */
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (buf_addch(out, (char)(acc >> bits & 0xff)))
				return -1;
		}
	}
	return 0;
}
