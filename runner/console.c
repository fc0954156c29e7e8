/*
 * console: a guest's serial output within [runner] max_console bytes.
 *
 * A guest that floods its console (a debug print left in a loop) must not
 * eat the runner's memory or disk, and must not cost the job its verdict:
 * the suite's KTAP results and a panic come last.  So the first half of the
 * budget keeps the start as it came (the boot, the first warnings), the
 * second half is a ring over the latest output, and what the parsers and
 * the log see is the head, one line saying how much was cut, and the tail.
 */
#include "console.h"
#include "buf.h"
#include "ring.h"

#include <stdlib.h>
#include <string.h>

void console_init(struct console *c, size_t cap)
{
	memset(c, 0, sizeof(*c));
	if (cap < 2)
		cap = 2;
	buf_init(&c->head, cap / 2);
	ring_init(&c->tail, cap - cap / 2);
}

void console_add(void *arg, const char *data, size_t len)
{
	struct console *c = arg;
	size_t room = c->head.cap - c->head.len;

	c->total += len;
	if (!c->tail.len) {
		size_t n = len < room ? len : room;
		buf_add(&c->head, data, n);
		data += n;
		len -= n;
	}
	if (len)
		ring_add(&c->tail, data, len);
}

unsigned long long console_cut_bytes(const struct console *c)
{
	return c->total - c->head.len - c->tail.len;
}

void console_text(const struct console *c, struct buf *out)
{
	buf_add(out, c->head.ptr, c->head.len);
	if (console_cut_bytes(c))
		buf_addf(out, "\n[bugbridge: %llu bytes of console output cut here:"
			 " the guest wrote %llu, [runner] max_console keeps %zu]\n",
			 console_cut_bytes(c), c->total, c->head.cap + c->tail.cap);
	ring_text(&c->tail, out);
}

void console_release(struct console *c)
{
	buf_release(&c->head);
	ring_release(&c->tail);
}
