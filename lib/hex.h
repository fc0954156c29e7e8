#ifndef BB_HEX_H
#define BB_HEX_H

/* The value of one hex digit, or -1: percent-decoding (the stand-in's
 * query strings) and LAVA's escaped log lines both need it. */
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
