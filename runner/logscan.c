/*
 * logscan: kernel problems in a console log, as failure signatures.
 *
 * A problem starts at a trigger line (table below).  Its signature is the
 * kind, a normalised title and the top stack frames after "Call Trace:",
 * hashed with sha256, so the same bug seen in two jobs (different
 * addresses, timestamps, pids, CPUs, line numbers) gets the same hash and
 * triage can group it.  Lines of one report that restate it ("Oops:" after
 * "BUG: unable to handle ...") do not start a second problem.  Pure: no
 * I/O, fuzzed.
 */
#include "logscan.h"
#include "buf.h"
#include "xalloc.h"
#include "sha256.h"
#include "hex.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 5
#define REPORT_LINES 80		/* how far a report's stack trace may lie */

struct trigger {
	const char *prefix;	/* at the start of the message */
	const char *kind;
	bool anywhere;		/* may appear inside the message */
};

/* Order matters: the first match wins. */
static const struct trigger triggers[] = {
	{ "BUG: KASAN: ", "kasan", false },
	{ "BUG: ", "bug", false },
	{ "kernel BUG at ", "bug", false },
	{ "Oops: ", "oops", false },
	{ "general protection fault", "oops", false },
	{ "WARNING: ", "warning", false },
	{ "INFO: task ", "hung", false },
	{ "Kernel panic - not syncing", "panic", false },
	{ "attempt to access beyond end of device", "eod", true },
};

/* Frames that say how the report was printed, not where the bug is. */
static const char *const boring_frames[] = {
	"dump_stack", "dump_stack_lvl", "show_stack", "__warn", "warn_slowpath_fmt",
	"report_bug", "handle_bug", "exc_invalid_op", "asm_exc_invalid_op",
	"kasan_report", "print_report", "__kasan_report", "kasan_check_range",
	"__asan_load1", "__asan_load2", "__asan_load4", "__asan_load8",
	"__asan_store1", "__asan_store2", "__asan_store4", "__asan_store8",
	"panic", "die", "oops_end", "page_fault_oops", "no_context",
	"exc_page_fault", "asm_exc_page_fault", "__die", "__die_body",
	"exc_general_protection", "asm_exc_general_protection",
	"check_hung_uninterruptible_tasks", "watchdog", NULL
};

void logscan_release(struct logscan_result *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n; i++) {
		free(r->items[i].kind);
		free(r->items[i].title);
		free(r->items[i].frames);
		free(r->items[i].first_line);
	}
	free(r->items);
	memset(r, 0, sizeof(*r));
}

/* Skip "[    1.234567] " and leading blanks. */
static const char *message(const char *line)
{
	const char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		const char *q = p + 1;
		while (*q == ' ' || isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (*q == ']') {
			p = q + 1;
			while (*p == ' ')
				p++;
		}
	}
	return p;
}

static bool is_hex(char c)
{
	return isxdigit((unsigned char)c);
}

/* "+0x1f/0x80" offsets go entirely. */
static size_t offset_len(const char *p)
{
	const char *q = p;

	if (strncmp(q, "+0x", 3))
		return 0;
	q += 3;
	while (is_hex(*q))
		q++;
	if (!strncmp(q, "/0x", 3)) {
		q += 3;
		while (is_hex(*q))
			q++;
	}
	return q - p;
}

void logscan_normalise(const char *line, struct buf *out)
{
	const char *p = message(line);

	while (*p) {
		size_t n = offset_len(p);
		if (n) {
			p += n;
		} else if (p[0] == '0' && p[1] == 'x' && is_hex(p[2])) {
			buf_addstr(out, "0x?");
			for (p += 2; is_hex(*p); p++)
				;
		} else if (is_hex(*p) && (p == line || !isalnum((unsigned char)p[-1]))) {
			/* a bare address: 8+ hex digits with at least one digit */
			const char *q = p;
			bool digit = false;
			while (is_hex(*q)) {
				digit |= isdigit((unsigned char)*q);
				q++;
			}
			if (q - p >= 8 && digit && !isalnum((unsigned char)*q)) {
				buf_addch(out, '?');
				p = q;
			} else {
				buf_add(out, p, q - p);
				p = q;
			}
		} else if (!strncmp(p, "CPU: ", 5) || !strncmp(p, "PID: ", 5) ||
			   !strncmp(p, "pid ", 4) || !strncmp(p, "cpu ", 4)) {
			const char *q = strchr(p, ' ') + 1;
			buf_add(out, p, q - p);
			if (isdigit((unsigned char)*q)) {
				buf_addch(out, 'N');
				while (isdigit((unsigned char)*q))
					q++;
			}
			p = q;
		} else if (*p == ':' && isdigit((unsigned char)p[1]) && p > line &&
			   (isalpha((unsigned char)p[-1]) || p[-1] == 'c' || p[-1] == 'h')) {
			/* "file.c:123" and "comm:123": line numbers and pids */
			for (p++; isdigit((unsigned char)*p); p++)
				;
		} else {
			buf_addch(out, *p++);
		}
	}
	buf_trim(out);
}

static const struct trigger *match(const char *msg)
{
	for (size_t i = 0; i < sizeof(triggers) / sizeof(*triggers); i++) {
		const struct trigger *t = &triggers[i];
		if (!strncmp(msg, t->prefix, strlen(t->prefix)) ||
		    (t->anywhere && strstr(msg, t->prefix)))
			return t;
	}
	return NULL;
}

/* "WARNING: CPU: 0 PID: 1 at drivers/x.c:12 fn+0x1/0x2" -> "WARNING in fn". */
static void make_title(const struct trigger *t, const char *msg, struct buf *title)
{
	struct buf norm = BUF_INIT;

	logscan_normalise(msg, &norm);
	if (!strcmp(t->kind, "warning")) {
		const char *at = strstr(norm.ptr, " at ");
		const char *fn = at ? strchr(at + 4, ' ') : NULL;
		if (fn) {
			const char *e = fn + 1;
			while (*e && !isspace((unsigned char)*e))
				e++;
			buf_addf(title, "WARNING in %.*s", (int)(e - fn - 1), fn + 1);
		} else {
			buf_addstr(title, norm.ptr);
		}
	} else if (!strcmp(t->kind, "eod")) {
		buf_addstr(title, t->prefix);
	} else if (!strcmp(t->kind, "hung")) {
		/* "INFO: task bbsuite blocked for more than 20 seconds." */
		buf_addstr(title, norm.ptr);
	} else {
		buf_addstr(title, norm.ptr);
	}
	buf_release(&norm);
}

static bool boring(const char *fn)
{
	for (int i = 0; boring_frames[i]; i++)
		if (!strcmp(fn, boring_frames[i]))
			return true;
	return false;
}

/* One line of a trace: "  ? fn+0x1/0x2" or " fn+0x1/0x2 [mod]". */
static bool frame_name(const char *msg, struct buf *fn)
{
	const char *p = msg, *plus;

	if (p[0] == '?' && p[1] == ' ')
		return false;	/* unreliable */
	plus = strstr(p, "+0x");
	if (!plus || plus == p)
		return false;
	for (const char *q = p; q < plus; q++)
		if (!(isalnum((unsigned char)*q) || *q == '_' || *q == '.'))
			return false;
	buf_add(fn, p, plus - p);
	return true;
}

/* Collect frames after "Call Trace:" within the next lines of the report. */
static void collect_frames(char **lines, int nlines, int from, struct buf *frames)
{
	int n = 0, i = from;
	bool in_trace = false;
	struct buf fn = BUF_INIT;

	for (; i < nlines && i < from + REPORT_LINES && n < MAX_FRAMES; i++) {
		const char *msg = message(lines[i]);
		if (!in_trace) {
			if (!strncmp(msg, "Call Trace:", 11))
				in_trace = true;
			continue;
		}
		if (msg[0] == '<' || (msg[0] == '?' && msg[1] == ' '))
			continue;	/* <TASK>, <IRQ>, unreliable frames */
		buf_reset(&fn);
		if (!frame_name(msg, &fn))
			break;
		if (boring(fn.ptr))
			continue;
		if (frames->len)
			buf_addch(frames, '\n');
		buf_addstr(frames, fn.ptr);
		n++;
	}
	buf_release(&fn);
}

static void add_problem(struct logscan_result *r, const char *kind, const char *title,
			const char *frames, const char *raw)
{
	struct sha256 ctx;
	unsigned char d[SHA256_LEN];
	struct logscan_problem *p;
	char hex[65];

	sha256_init(&ctx);
	sha256_update(&ctx, kind, strlen(kind) + 1);
	sha256_update(&ctx, title, strlen(title) + 1);
	sha256_update(&ctx, frames, strlen(frames));
	sha256_final(&ctx, d);
	hex_encode(hex, d, SHA256_LEN);
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].hash, hex)) {
			r->items[i].count++;
			return;
		}
	r->items = xrealloc(r->items, (r->n + 1) * sizeof(*r->items));
	p = &r->items[r->n++];
	p->kind = xstrdup(kind);
	p->title = xstrdup(title);
	p->frames = xstrdup(frames);
	memcpy(p->hash, hex, sizeof(hex));
	p->count = 1;
	p->first_line = xstrndup(message(raw), 300);
}

/* A quoted line has no stack: it counts towards a problem of the same title. */
static void add_quoted(struct logscan_result *r, const struct trigger *t, const char *msg,
		       const char *raw)
{
	struct buf title = BUF_INIT;

	make_title(t, msg, &title);
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->items[i].kind, t->kind) && !strcmp(r->items[i].title, title.ptr)) {
			r->items[i].count++;
			buf_release(&title);
			return;
		}
	add_problem(r, t->kind, title.ptr, "", raw);
	buf_release(&title);
}

static char **split_lines(const char *text, size_t len, int *n)
{
	char **lines = NULL;
	int count = 0, alloc = 0;
	size_t i = 0;

	while (i < len) {
		size_t s = i, e;
		while (i < len && text[i] != '\n')
			i++;
		e = i++;
		if (e > s && text[e - 1] == '\r')
			e--;
		if (count == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			lines = xrealloc(lines, alloc * sizeof(*lines));
		}
		lines[count] = xstrndup(text + s, e - s);
		/* a NUL inside a line ends it: console garbage */
		count++;
	}
	*n = count;
	return lines;
}

int logscan(const char *text, size_t len, struct logscan_result *out)
{
	struct buf title = BUF_INIT, frames = BUF_INIT;
	int nlines, report_end = -1;
	const char *report_kind = NULL;
	char **lines = split_lines(text, len, &nlines);

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < nlines; i++) {
		const char *msg = message(lines[i]);
		const struct trigger *t;
		bool quoted = false;

		/*
		 * bbsuite quiets the console while it runs and quotes the kernel's
		 * bad lines as "# kernel: ..." diagnostics instead; other KTAP lines
		 * may name the messages it looks for, and are not kernel output.
		 */
		if (!strncmp(msg, "# kernel: ", 10)) {
			msg = message(msg + 10);
			quoted = true;
		} else if (msg[0] == '#' || !strncmp(msg, "ok ", 3) || !strncmp(msg, "not ok ", 7)) {
			continue;
		}
		t = match(msg);
		if (!t)
			continue;
		if (quoted) {
			add_quoted(out, t, msg, lines[i]);
			continue;
		}
		if (!strcmp(t->kind, "panic"))
			out->panicked = true;
		/* "Oops:" and the panic a BUG/KASAN/oops=panic leads to restate it. */
		if (report_kind && i <= report_end && strcmp(report_kind, "warning") &&
		    strcmp(report_kind, "hung") &&
		    (!strcmp(t->kind, "oops") || !strcmp(t->kind, "panic")))
			continue;
		buf_reset(&title);
		buf_reset(&frames);
		make_title(t, msg, &title);
		collect_frames(lines, nlines, i + 1, &frames);
		add_problem(out, t->kind, title.ptr, frames.ptr, lines[i]);
		if (strcmp(t->kind, "eod")) {
			report_kind = t->kind;
			report_end = i + REPORT_LINES;
		}
	}
	for (int i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	buf_release(&title);
	buf_release(&frames);
	return 0;
}
