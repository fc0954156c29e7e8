/*
 * digest_text: a digest's text without some of its items (digest_text.h).
 */
#include "digest_text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "<prefix><digits><end>" at *p: the number (> 0), *p past it; else 0. */
static long long number_at(const char **p, const char *prefix, char end)
{
	size_t n = strlen(prefix);
	const char *s = *p + n;
	char *stop;
	long long v;

	if (strncmp(*p, prefix, n) || !isdigit((unsigned char)*s))
		return 0;
	v = strtoll(s, &stop, 10);
	if (*stop != end || v <= 0)
		return 0;
	*p = stop + 1;
	return v;
}

/* Is the line at p an item's first line?  Its bug and job into *it. */
static bool item_line(const char *p, struct digest_item *it)
{
	it->bug = number_at(&p, "#", ' ');
	it->job = number_at(&p, "job ", ':');
	return it->bug || it->job;
}

int digest_text_filter(const char *text, digest_hide_fn *hide, void *ctx, struct buf *out)
{
	bool hiding = false;
	int hidden = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		struct digest_item it;

		if (item_line(p, &it)) {
			hiding = hide(&it, ctx);
			hidden += hiding;
		} else if (strncmp(p, "    ", 4)) {
			hiding = false;		/* not an item's, nor its URL */
		}
		if (!hiding)
			buf_add(out, p, len);
		p += len;
	}
	return hidden;
}
