/*
 * console: the guest's console kept within [runner] max_console: its head,
 * a line saying how much was cut, its tail.
 */
#ifndef BB_CONSOLE_H
#define BB_CONSOLE_H

#include <stddef.h>
#include "buf.h"
#include "ring.h"

struct console {
	struct buf head;		/* the first max_console/2 bytes */
	struct ring tail;		/* the latest max_console/2 */
	unsigned long long total;	/* bytes the guest wrote */
};
void console_init(struct console *c, size_t cap);
/* A child.h output callback (arg: the struct console). */
void console_add(void *arg, const char *data, size_t len);
/* Bytes that were neither in the head nor in the tail. */
unsigned long long console_cut_bytes(const struct console *c);
/* Head, a line saying how much was cut (if any), tail. */
void console_text(const struct console *c, struct buf *out);
void console_release(struct console *c);

#endif
