/*
 * base64: standard base64 (RFC 4648, "+/" and "=" padding) over struct buf.
 * Bugzilla's attachment data, mail's encoded words and the guest's gcov
 * blocks all use it; this is the one codec.
 */
#ifndef BB_BASE64_H
#define BB_BASE64_H

#include <stddef.h>
#include "buf.h"

/* Append len bytes of data, encoded and padded, without line breaks. */
int base64_encode(struct buf *out, const void *data, size_t len);
/*
 * Append the bytes that in[0..len) encodes.  Whitespace is skipped and the
 * padding is optional; -1 on any other character, data after padding, more
 * than two '=' or out's cap (out may then hold part of the data).
 */
int base64_decode(struct buf *out, const char *in, size_t len);

#endif
