/*
 * digest_text: reading a digest's text back, as mail/digest_build.c wrote
 * it, to leave out what has become private since it was sent.
 *
 * The text is lines.  An item is a line that starts with "#<bug> " (a bug,
 * or a result on a bug: "#<bug> job <job>: ...") or with "job <job>:" (a
 * result on no bug), and the lines after it indented by four spaces (its
 * URL).  Every other line (the header, section titles, rules, "... and N
 * more", the stats, the signature) belongs to no item.  Tracker text in an
 * item never holds a line break (mail_clean_text), so no summary can start
 * a line that passes for another item.  digest_build.c must keep writing
 * items this way.
 */
#ifndef BB_DIGEST_TEXT_H
#define BB_DIGEST_TEXT_H

#include <stdbool.h>
#include "buf.h"

struct digest_item {
	long long bug, job;	/* 0: none */
};

/* Whether to leave an item out; ctx is digest_text_filter's. */
typedef bool digest_hide_fn(const struct digest_item *item, void *ctx);

/*
 * Append text to out without the items hide() wants left out; the number
 * of items left out.
 */
int digest_text_filter(const char *text, digest_hide_fn *hide, void *ctx, struct buf *out);

#endif
