/*
 * check: the lines of `bugbridge config check`.  See check.h.
 */
#include "check.h"
#include "buf.h"
#include "redact.h"

#include <stdarg.h>

void check_line(struct check *c, enum check_status s, const char *what, const char *fmt, ...)
{
	static const char *const names[] = { "ok", "warn", "FAIL", "skip" };
	struct buf line = BUF_INIT;
	va_list ap;

	buf_addf(&line, "%-5s %s: ", names[s], what);
	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	redact_buf(&line);
	fprintf(c->out, "%s\n", line.ptr);
	fflush(c->out);
	buf_release(&line);
	if (s == CHECK_FAIL)
		c->failed++;
	else if (s == CHECK_WARN)
		c->warned++;
	else if (s == CHECK_OK)
		c->passed++;
}
