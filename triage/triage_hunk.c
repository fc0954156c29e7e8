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
 */
#include "triage_comment.h"

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

/* A line of a unified diff hunk (a blank line is an empty context line). */
static bool hunk_line(const char *s, size_t len)
{
	return !len || strchr("@ +-\\", s[0]);
}

void triage_add_rejected(struct buf *out, const char *detail)
{
	struct buf why = BUF_INIT, hunk = BUF_INIT;
	int summary = 0, more_summary = 0, hunks = 0, shown = 0, more_lines = 0;
	bool in_hunk = false;

	for (const char *p = detail; *p;) {
		size_t len = strcspn(p, "\n");

		if (in_hunk && hunk_line(p, len)) {
			/* only the first hunk is shown */
			if (hunks == 1 && shown++ < HUNK_LINES)
				add_line(&hunk, "    ", p, len, HUNK_COLS);
			else if (hunks == 1)
				more_lines++;
		} else if (len == 14 && !strncmp(p, "rejected hunk:", 14)) {
			in_hunk = true;
			hunks++;
		} else {
			in_hunk = false;
			if (len && summary < SUMMARY_LINES)
				add_line(&why, summary++ ? "          " : "Detail:   ", p, len,
					 SUMMARY_COLS);
			else if (len)
				more_summary++;
		}
		p += len + (p[len] == '\n');
	}
	buf_addstr(out, why.ptr);
	if (more_summary)
		buf_addf(out, "          (%d more: see the job page)\n", more_summary);
	if (hunk.len) {
		buf_addf(out, "Rejected hunk%s:\n%s", hunks > 1 ? " (the first; the job page has"
			 " every one)" : "", hunk.ptr);
		if (more_lines)
			buf_addf(out, "    (%d more line%s)\n", more_lines, more_lines > 1 ? "s" : "");
	}
	buf_release(&why);
	buf_release(&hunk);
}
