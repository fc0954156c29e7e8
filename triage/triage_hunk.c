/*
 * triage_hunk: the "does not apply" part of a result comment.
 *
 * The runner's apply-failed detail is a few summary lines ("patch 1/1 'x'
 * does not apply to 6.1.158:", "drivers/scsi/sd.c: hunk #2 FAILED at 310")
 * followed, after a "rejected hunk:" line, by the hunk copied out of the
 * patch.  A hunk only means something line by line, so it is shown as an
 * indented block, not squeezed onto the Detail line.
 *
 * The hunk is the patch author's text, posted under the bot's name, so the
 * block is bounded and inert: at most HUNK_LINES lines of at most HUNK_COLS
 * columns (tabs expanded, so the code keeps its shape), control characters
 * as blanks, and every line indented, so that none of it can start a line
 * the poster or poller would take for a marker ("bugbridge-result: ...").
 * Only the first rejected hunk is shown; the job page has the rest.
 *
 * What is quoted is the hunk alone: its "@@" header and then exactly the
 * lines its counts take, as GNU patch reads them.  A line past them (the
 * next file's "Index:", "====", "diff --git", "---" header, which the
 * runner's copy may run on into) is not the hunk and is not quoted.  The
 * summary lines are those the runner and GNU patch write, each of a known
 * shape (summary_shape); any other line is counted, not shown.
 */
#include "triage_comment.h"

#include <stdio.h>
#include <string.h>

#define SUMMARY_LINES 6
#define SUMMARY_COLS 200
#define HUNK_LINES 16
#define HUNK_COLS 100

/* Bytes of s[0..len) that make at most cols columns, ending on a UTF-8 boundary. */
static size_t fit(const char *s, size_t len, size_t cols, size_t *used)
{
	size_t i = 0, col = 0;

	while (i < len) {
		size_t w = s[i] == '\t' ? 8 - col % 8 : 1;

		if (col + w > cols)
			break;
		col += w;
		/* a character is its lead byte and its continuation bytes */
		for (i++; i < len && ((unsigned char)s[i] & 0xc0) == 0x80; i++)
			;
	}
	*used = col;
	return i;
}

/* One line of untrusted text after indent: tabs expanded, controls blank, cut to cols. */
static void add_line(struct buf *out, const char *indent, const char *s, size_t len, size_t cols)
{
	size_t col, n = fit(s, len, cols, &col), at = 0;

	buf_addstr(out, indent);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '\t') {
			do
				buf_addch(out, ' ');
			while (++at % 8);
			continue;
		}
		buf_addch(out, c < 0x20 || c == 0x7f ? ' ' : (char)c);
		if ((c & 0xc0) != 0x80)
			at++;
	}
	/* trailing blanks say nothing and some trackers strip them */
	while (out->len && out->ptr[out->len - 1] == ' ')
		buf_setlen(out, out->len - 1);
	if (n < len)
		buf_addstr(out, "...");
	buf_addch(out, '\n');
}

/* "@@ -a[,b] +c[,d] @@...": the hunk's old and new line counts. */
static bool hunk_header(const char *s, size_t len, long *old, long *new)
{
	char head[64];
	long a, c;
	int n = 0;

	if (len < 8 || strncmp(s, "@@ -", 4))
		return false;
	snprintf(head, sizeof(head), "%.*s", (int)(len < 63 ? len : 63), s);
	*old = *new = 1;
	if (sscanf(head, "@@ -%ld,%ld +%ld,%ld @@%n", &a, old, &c, new, &n) == 4 && n)
		return *old >= 0 && *new >= 0;
	n = 0;
	if (sscanf(head, "@@ -%ld,%ld +%ld @@%n", &a, old, &c, &n) == 3 && n)
		return *old >= 0;
	n = 0;
	if (sscanf(head, "@@ -%ld +%ld,%ld @@%n", &a, &c, new, &n) == 3 && n)
		return *new >= 0;
	n = 0;
	return sscanf(head, "@@ -%ld +%ld @@%n", &a, &c, &n) == 2 && n;
}

/*
 * Does the line belong to the hunk whose counts are left in *old and *new?
 * Counted as GNU patch counts: a context line (a blank one too) is one of
 * each, "-" old, "+" new, "\ No newline" neither.  Past the counts, or on
 * any other line (a next file's "Index:", "====", "diff --git" header), the
 * hunk has ended.
 */
static bool in_counts(const char *s, size_t len, long *old, long *new)
{
	char c = len ? s[0] : ' ';

	if (c == '\\')
		return len > 1;
	if (!*old && !*new)
		return false;
	if (c == ' ' && *old && *new) {
		(*old)--;
		(*new)--;
		return true;
	}
	if (c == '-' && *old) {
		(*old)--;
		return true;
	}
	if (c == '+' && *new) {
		(*new)--;
		return true;
	}
	return false;
}

/* s[0..len) starts with prefix. */
static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* s[0..len) contains what. */
static bool has(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

/*
 * A summary line the runner (runner/apply.c) or GNU patch writes: how much
 * of it to show (0: not one of theirs), from *skip on.  Any other line is
 * the patch's own text and is not quoted.
 */
static size_t summary_shape(const char *s, size_t len, size_t *skip)
{
	static const char *const gnu_patch[] = {
		"can't find file to patch at input line ", "No file to patch.",
		"Reversed (or previously applied) patch detected!",
		"Ignoring potentially dangerous file name ",
	};
	const char *p;

	*skip = 0;
	if (starts(s, len, "patch ") && memchr(s, '\'', len) &&
	    (has(s, len, "' does not apply") || has(s, len, "' is refused: ") ||
	     has(s, len, "' passed its dry run but failed to apply")))
		return len;
	/* "drivers/scsi/sd.c: hunk #2 FAILED at 310" */
	p = memmem(s, len, ": hunk #", 8);
	if (p && p > s && has(p, len - (size_t)(p - s), " FAILED at "))
		return len;
	for (size_t i = 0; i < sizeof(gnu_patch) / sizeof(gnu_patch[0]); i++)
		if (starts(s, len, gnu_patch[i]))
			return len;
	if (starts(s, len, "File ") && has(s, len, " is not a regular file"))
		return len;
	/* "patch: **** malformed patch at line 5: <the line>": what, not the line */
	if (starts(s, len, "patch: **** ") && len > 12) {
		*skip = 12;
		p = memmem(s + 12, len - 12, ": ", 2);
		return (p ? (size_t)(p - s) : len) - 12;
	}
	return 0;
}

void triage_add_rejected(struct buf *out, const char *detail)
{
	struct buf why = BUF_INIT, hunk = BUF_INIT;
	int summary = 0, more_summary = 0, hunks = 0, shown = 0, more_lines = 0;
	bool in_hunk = false, after_label = false;
	long old = 0, new = 0;

	for (const char *p = detail; *p;) {
		size_t len = strcspn(p, "\n"), keep, skip;

		if (after_label) {
			/* the line after "rejected hunk:" must be its @@ header */
			in_hunk = hunk_header(p, len, &old, &new);
			after_label = false;
		} else if (in_hunk) {
			in_hunk = in_counts(p, len, &old, &new);
		}
		if (in_hunk) {
			/* only the first hunk is shown */
			if (hunks == 1 && shown++ < HUNK_LINES)
				add_line(&hunk, "    ", p, len, HUNK_COLS);
			else if (hunks == 1)
				more_lines++;
		} else if (len == 14 && !strncmp(p, "rejected hunk:", 14)) {
			after_label = true;
			hunks++;
		} else if ((keep = summary_shape(p, len, &skip)) && summary < SUMMARY_LINES) {
			add_line(&why, summary++ ? "          " : "Detail:   ", p + skip, keep,
				 SUMMARY_COLS);
		} else if (len) {
			more_summary++;
		}
		p += len + (p[len] == '\n');
	}
	buf_addstr(out, why.ptr);
	if (more_summary)
		buf_addf(out, "%s(%d more line%s on the job page)\n",
			 summary ? "          " : "Detail:   ", more_summary,
			 more_summary > 1 ? "s" : "");
	if (hunk.len) {
		buf_addf(out, "Rejected hunk%s:\n%s", hunks > 1 ? " (the first; the job page has"
			 " every one)" : "", hunk.ptr);
		if (more_lines)
			buf_addf(out, "    (%d more line%s)\n", more_lines, more_lines > 1 ? "s" : "");
	}
	buf_release(&why);
	buf_release(&hunk);
}
