/*
 * ktap: read KTAP results out of a guest's serial console.
 *
 * The console is not a clean KTAP stream: kernel messages come between the
 * suite's lines, lines end in \r\n, and a guest that panics stops mid-way.
 * So the parser is line-based and forgiving, like the kernel's own
 * kunit_parser.py: it looks for "KTAP version N", the plan "1..N", result
 * lines "ok N name" / "not ok N name # reason" (a "# SKIP" directive makes a
 * skip), and "# " diagnostic lines, which belong to the next result.
 * Indented lines (nested subtests) are ignored: only top-level results count.
 * Anything else is not ours and is skipped.  Pure: no I/O, fuzzed.
 */
#include "ktap.h"
#include "buf.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *ktap_status_name(enum ktap_status s)
{
	switch (s) {
	case KTAP_PASS: return "pass";
	case KTAP_FAIL: return "fail";
	default: return "skip";
	}
}

void ktap_release(struct ktap_result *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->ntests; i++) {
		free(r->tests[i].name);
		free(r->tests[i].reason);
		free(r->tests[i].diag);
	}
	free(r->tests);
	memset(r, 0, sizeof(*r));
	r->planned = -1;
}

/* Parse a decimal number at *p (at most 9 digits); -1 if none. */
static int number(const char **p)
{
	int n = 0, digits = 0;

	while (isdigit((unsigned char)**p) && digits < 9) {
		n = n * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	return digits ? n : -1;
}

static char *dup_range(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(s, e - s);
}

static int add_result(struct ktap_result *r, const char *line, bool ok, struct buf *diag)
{
	const char *p = line, *hash, *end = line + strlen(line);
	struct ktap_test *t;
	int num = number(&p);

	if (num < 0 || (*p && *p != ' '))
		return 0;
	while (*p == ' ')
		p++;
	if (*p == '-' && p[1] == ' ')
		p += 2;
	r->tests = xrealloc(r->tests, (r->ntests + 1) * sizeof(*r->tests));
	t = &r->tests[r->ntests++];
	memset(t, 0, sizeof(*t));
	t->number = num;
	t->status = ok ? KTAP_PASS : KTAP_FAIL;
	hash = strstr(p, " # ");
	if (!hash && (hash = strstr(p, " #")) && hash[2])
		hash = NULL;
	t->name = dup_range(p, hash ? hash : end);
	if (hash) {
		const char *d = hash + 2;
		while (*d == ' ')
			d++;
		if (!strncasecmp(d, "SKIP", 4)) {
			t->status = KTAP_SKIP;
			d += 4;
		}
		t->reason = dup_range(d, end);
	} else {
		t->reason = xstrdup("");
	}
	t->diag = buf_detach(diag, NULL);
	return 0;
}

static void handle_line(struct ktap_result *r, const char *line, struct buf *diag)
{
	if (!strncmp(line, "KTAP version ", 13) || !strncmp(line, "TAP version ", 12)) {
		r->seen_version = true;
		buf_reset(diag);
	} else if (!strncmp(line, "1..", 3)) {
		const char *p = line + 3;
		int n = number(&p);
		if (n >= 0 && !*p && r->planned < 0)
			r->planned = n;
	} else if (!strncmp(line, "ok ", 3)) {
		add_result(r, line + 3, true, diag);
	} else if (!strncmp(line, "not ok ", 7)) {
		add_result(r, line + 7, false, diag);
	} else if (line[0] == '#' && (line[1] == ' ' || !line[1])) {
		if (diag->len)
			buf_addch(diag, '\n');
		buf_addstr(diag, line[1] ? line + 2 : "");
	}
}

int ktap_parse(const char *text, size_t len, struct ktap_result *out)
{
	struct buf line = BUF_INIT, diag = BUF_INIT;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	out->planned = -1;
	buf_init(&diag, 64 * 1024);
	while (i < len) {
		size_t start = i;
		while (i < len && text[i] != '\n')
			i++;
		buf_reset(&line);
		for (size_t j = start; j < i; j++)
			if (text[j] != '\r' && text[j] != '\0')
				buf_addch(&line, text[j]);
		i++;
		handle_line(out, line.ptr, &diag);
	}
	buf_release(&line);
	buf_release(&diag);
	return 0;
}
