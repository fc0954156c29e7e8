/*
 * comment_detail: what of a job's verdict_detail a result comment says.
 *
 * The runner's detail holds text cut out of logs: a build failure's first
 * compiler lines (or, when it finds none, the log's last 1500 bytes), the
 * names and diagnostics of failing tests, a panic's title.  A build runs
 * the patch author's Makefile, so a log can hold anything the build could
 * read; the comment is posted under the bot's name where everyone reads
 * it.  So no line of the detail is copied: each is parsed into one of a
 * few known shapes, rebuilt from its parsed fields, each field checked
 * and bounded, and a line of no known shape is left out (the job page and
 * its logs have everything, behind the same visibility as the bug):
 *
 *   [../]<file>:<line>[:<col>]: [fatal ]error: <msg>  ->  file:line: error: msg
 *      (file: a relative path in the tree; msg: the compiler's text, 120 chars)
 *   ... undefined reference to `<symbol>'            ->  undefined reference to 'symbol'
 *   make[N]: *** [...] Error <n>                      ->  make: *** Error n
 *   <n> tests: <m> failed[, some flaky]               ->  as it is
 *   kernel panic during boot|test <name>: ...         ->  kernel panic during boot|test name
 *   guest did not finish within <n> s ...              ->  guest did not finish within n s
 *   baseline[ (cached)]: <verdict>: ...               ->  baseline: verdict
 *   our own fixed sentences (no KTAP results, console cut)
 *
 * At most DETAIL_LINES lines.  When the suite ran (a pass or fail verdict),
 * the comment's tests say the counts, the baseline and which tests failed:
 * then only our own sentences are shown, and nothing is counted.  The
 * apply-failed detail is triage_hunk.c's (the patch's own lines, which its
 * author wrote and the comment may show).
 */
#include "triage_comment.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DETAIL_LINES 6
#define PATH_MAX_SHOWN 120
#define MESSAGE_MAX 120
#define NAME_MAX_SHOWN 60

/* s[0..n) has only characters of a source path or a test name. */
static bool plain(const char *s, size_t n, size_t max, const char *extra)
{
	if (!n || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
			return false;
	return true;
}

/* Digits at *p (at most max of them), moving *p past them; -1 if none. */
static long digits(const char **p, int max)
{
	long v = 0;
	int n = 0;

	while (isdigit((unsigned char)**p) && n < max) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n ? v : -1;
}

/*
 * "../drivers/scsi/sd.c:123:45: error: 'x' undeclared" -> "drivers/scsi/sd.c:123:
 * error: ...".  The build runs in O=out below the tree, so gcc names the
 * sources "../<path>": a path inside the tree, never an absolute one.  The
 * message is the compiler's free text: bounded, controls blanked.
 */
static bool compiler_error(const char *s, struct buf *out)
{
	const char *colon, *p, *msg;
	long line;

	if (!strncmp(s, "../", 3))
		s += 3;
	colon = strchr(s, ':');
	if (!colon || *s == '/' || !plain(s, (size_t)(colon - s), PATH_MAX_SHOWN, "_./+-") ||
	    memmem(s, (size_t)(colon - s), "..", 2))
		return false;
	p = colon + 1;
	line = digits(&p, 7);
	if (line < 0 || *p != ':')
		return false;
	p++;
	if (isdigit((unsigned char)*p)) {
		digits(&p, 5);
		if (*p++ != ':')
			return false;
	}
	if (!strncmp(p, " fatal error: ", 14))
		msg = p + 14;
	else if (!strncmp(p, " error: ", 8))
		msg = p + 8;
	else
		return false;
	buf_add(out, s, (size_t)(colon - s));
	buf_addf(out, ":%ld: error: ", line);
	triage_add_clean(out, msg, MESSAGE_MAX);
	return true;
}

static bool undefined_reference(const char *s, struct buf *out)
{
	const char *p = strstr(s, "undefined reference to `"), *end;

	if (!p)
		return false;
	p += 24;
	end = strchr(p, '\'');
	if (!end || !plain(p, (size_t)(end - p), 80, "_.$"))
		return false;
	buf_addstr(out, "undefined reference to '");
	buf_add(out, p, (size_t)(end - p));
	buf_addch(out, '\'');
	return true;
}

static bool make_error(const char *s, struct buf *out)
{
	const char *p = strstr(s, "] Error ");
	long n;

	if (strncmp(s, "make", 4) || !strstr(s, ": *** [") || !p)
		return false;
	p += 8;
	n = digits(&p, 3);
	if (n < 0 || *p)
		return false;
	buf_addf(out, "make: *** Error %ld", n);
	return true;
}

static bool test_count(const char *s, struct buf *out)
{
	const char *p = s;
	long total = digits(&p, 6), failed;

	if (total < 0 || strncmp(p, " tests: ", 8))
		return false;
	p += 8;
	failed = digits(&p, 6);
	if (failed < 0 || strncmp(p, " failed", 7) || (p[7] && strcmp(p + 7, ", some flaky")))
		return false;
	buf_addf(out, "%ld tests: %ld failed%s", total, failed, p[7] ? ", some flaky" : "");
	return true;
}

static bool panic_line(const char *s, struct buf *out)
{
	static const char *const starts[] = { "kernel panic during boot ",
					      "kernel panic during test " };

	for (int i = 0; i < 2; i++) {
		size_t n = strlen(starts[i]);
		const char *colon = strchr(s + (strlen(s) >= n ? n : 0), ':');

		if (strncmp(s, starts[i], n) || !colon ||
		    !plain(s + n, (size_t)(colon - s - n), NAME_MAX_SHOWN, "_.-"))
			continue;
		buf_add(out, s, (size_t)(colon - s));
		return true;
	}
	return false;
}

static bool timeout_line(const char *s, struct buf *out)
{
	const char *p;
	long secs;

	if (strncmp(s, "guest did not finish within ", 28))
		return false;
	p = s + 28;
	secs = digits(&p, 6);
	if (secs < 0 || strncmp(p, " s", 2))
		return false;
	buf_addf(out, "guest did not finish within %ld s", secs);
	return true;
}

static bool baseline_line(const char *s, struct buf *out)
{
	static const char *const verdicts[] = { "pass", "fail", "apply-failed", "build-failed",
						"boot-timeout", "panic", "infra-error" };
	const char *p = s + 8;

	if (strncmp(s, "baseline", 8))
		return false;
	if (!strncmp(p, " (cached)", 9))
		p += 9;
	if (strncmp(p, ": ", 2))
		return false;
	p += 2;
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		size_t n = strlen(verdicts[i]);

		if (!strncmp(p, verdicts[i], n) && (!p[n] || p[n] == ':')) {
			buf_addf(out, "baseline: %s", verdicts[i]);
			return true;
		}
	}
	return false;
}

static bool fixed_sentence(const char *s, struct buf *out)
{
	static const char *const ours[] = {
		"the guest suite printed no KTAP results",
		"the guest flooded its console and its KTAP results were in the part cut"
		" ([runner] max_console)",
	};

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (!strcmp(s, ours[i])) {
			buf_addstr(out, ours[i]);
			return true;
		}
	return false;
}

/*
 * One line of the detail rebuilt into out; false (out untouched) when of no
 * known shape.  suite_ran: only our own sentences (the tests say the rest).
 */
static bool parse_line(const char *s, bool suite_ran, struct buf *out)
{
	bool (*const shapes[])(const char *, struct buf *) = {
		fixed_sentence, compiler_error, undefined_reference, make_error, test_count,
		panic_line, timeout_line, baseline_line,
	};
	size_t before = out->len, n = suite_ran ? 1 : sizeof(shapes) / sizeof(shapes[0]);

	for (size_t i = 0; i < n; i++) {
		if (shapes[i](s, out))
			return true;
		buf_setlen(out, before);
	}
	return false;
}

void triage_add_detail(struct buf *out, const char *detail, bool suite_ran)
{
	struct buf line = BUF_INIT, shown = BUF_INIT;
	int n = 0, left_out = 0;

	for (const char *p = detail; p && *p;) {
		size_t len = strcspn(p, "\n");

		buf_reset(&line);
		buf_add(&line, p, len);
		buf_trim(&line);
		if (line.len && n < DETAIL_LINES) {
			size_t at = shown.len;

			buf_addstr(&shown, n ? "          " : "Detail:   ");
			if (parse_line(line.ptr, suite_ran, &shown)) {
				buf_addch(&shown, '\n');
				n++;
			} else {
				buf_setlen(&shown, at);
				left_out += !suite_ran;
			}
		} else if (line.len) {
			left_out += !suite_ran;
		}
		p += len + (p[len] == '\n');
	}
	buf_addstr(out, shown.ptr);
	if (left_out)
		buf_addf(out, "%s(%d more line%s on the job page)\n", n ? "          " : "Detail:   ",
			 left_out, left_out > 1 ? "s" : "");
	buf_release(&line);
	buf_release(&shown);
}
