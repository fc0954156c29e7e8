/*
 * ring: the latest cap bytes of a stream, in a buffer allocated on first
 * use.  The tail half of a capped log (runner/console.c for the guest's
 * console, lib/child.c for a child's log): a flood keeps its end.
 */
#ifndef BB_RING_H
#define BB_RING_H

#include <stddef.h>
#include "buf.h"

struct ring {
	char *data;			/* NULL until the first byte */
	size_t cap, len, next;		/* len: bytes held (at most cap); next: where the next goes */
};
void ring_init(struct ring *r, size_t cap);
void ring_add(struct ring *r, const char *data, size_t len);
/* Append what is held, oldest first, to out. */
void ring_text(const struct ring *r, struct buf *out);
void ring_release(struct ring *r);

#endif
