/*
 * ring: a fixed buffer over the latest bytes of a stream.
 */
#include "ring.h"
#include "buf.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void ring_init(struct ring *r, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->cap = cap ? cap : 1;
}

void ring_add(struct ring *r, const char *data, size_t len)
{
	if (!r->data)
		r->data = xmalloc(r->cap);
	if (len >= r->cap) {
		memcpy(r->data, data + len - r->cap, r->cap);
		r->len = r->cap;
		r->next = 0;
		return;
	}
	while (len) {
		size_t room = r->cap - r->next, n = len < room ? len : room;
		memcpy(r->data + r->next, data, n);
		r->next = (r->next + n) % r->cap;
		r->len = r->len + n < r->cap ? r->len + n : r->cap;
		data += n;
		len -= n;
	}
}

void ring_text(const struct ring *r, struct buf *out)
{
	size_t start = r->len < r->cap ? 0 : r->next;

	if (!r->len)
		return;
	buf_add(out, r->data + start, r->len - start);
	if (start)
		buf_add(out, r->data, start);
}

void ring_release(struct ring *r)
{
	free(r->data);
	r->data = NULL;
	r->len = r->next = 0;
}
