/*
 * patch: a line scanner for unified diffs.  See patch.h.
 *
 * One pass, one state: scanning prose, or inside a hunk with so many old
 * and new lines still to come.  A file section starts where "--- " is
 * followed by "+++ " and then "@@ -"; a "diff --git" or quilt "Index:" line
 * right before it belongs to it (for the inline range).  A hunk that runs
 * out of lines before its counts are met does not count, with one
 * leniency real attachments need: if only trailing context is missing
 * (equal old and new lines still due, after at least one change), the hunk
 * counts and ends there, as if written with less context.  parse_all() does
 * the scanning for both patch_parse() and patch_normalise(), so the two
 * can never disagree about what the diff is.
 */
#include "patch.h"

#include <stdbool.h>
#include <string.h>

#define MAX_COUNT 10000000L

struct line {
	const char *p;
	size_t len;		/* without the newline and a CR before it */
	size_t next;		/* offset of the following line */
};

static bool line_at(const char *data, size_t len, size_t off, struct line *l)
{
	const char *nl;

	if (off >= len)
		return false;
	l->p = data + off;
	nl = memchr(l->p, '\n', len - off);
	l->len = nl ? (size_t)(nl - l->p) : len - off;
	l->next = off + l->len + (nl ? 1 : 0);
	if (l->len && l->p[l->len - 1] == '\r')
		l->len--;
	return true;
}

static bool starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && !memcmp(l->p, prefix, n);
}

/* "123" -> 123 at *i; false if no digits or too large. */
static bool number(const struct line *l, size_t *i, long *out)
{
	long v = 0;
	size_t start = *i;

	while (*i < l->len && l->p[*i] >= '0' && l->p[*i] <= '9') {
		v = v * 10 + (l->p[*i] - '0');
		if (v > MAX_COUNT)
			return false;
		(*i)++;
	}
	*out = v;
	return *i > start;
}

/* "-a[,b]" or "+c[,d]": the count (b or d, 1 if omitted). */
static bool range(const struct line *l, size_t *i, char sign, long *count)
{
	long start;

	if (*i >= l->len || l->p[*i] != sign)
		return false;
	(*i)++;
	if (!number(l, i, &start))
		return false;
	*count = 1;
	if (*i < l->len && l->p[*i] == ',') {
		(*i)++;
		if (!number(l, i, count))
			return false;
	}
	return true;
}

/* "@@ -a,b +c,d @@[ context]"; *hdr_len is the length up to the second @@. */
static bool hunk_header(const struct line *l, long *old, long *new, size_t *hdr_len)
{
	size_t i = 3;

	if (!starts(l, "@@ -"))
		return false;
	if (!range(l, &i, '-', old) || i >= l->len || l->p[i++] != ' ' ||
	    !range(l, &i, '+', new))
		return false;
	if (i + 3 > l->len || memcmp(l->p + i, " @@", 3))
		return false;
	*hdr_len = i + 3;
	return *old > 0 || *new > 0;
}

static bool is_mbox_from(const struct line *l)
{
	/* "From <sha> Mon Sep 17 00:00:00 2001": From, a token, then more */
	size_t i = 5;

	if (!starts(l, "From ") || l->len < 7 || l->p[5] == ' ')
		return false;
	while (i < l->len && l->p[i] != ' ')
		i++;
	return i + 1 < l->len;
}

/* "--- linux.orig/drivers/x.c\t2008-01-02" -> "drivers/x.c" */
static void add_path(struct buf *out, const char *tag, const struct line *l)
{
	const char *p = l->p + 4, *end = l->p + l->len, *slash, *tab;

	tab = memchr(p, '\t', end - p);
	if (tab)
		end = tab;
	while (end > p && end[-1] == ' ')
		end--;
	slash = memchr(p, '/', end - p);
	if (slash && !(end - p == 9 && !memcmp(p, "/dev/null", 9)))
		p = slash + 1;
	buf_addstr(out, tag);
	buf_add(out, p, end - p);
	buf_addch(out, '\n');
}

/*
 * The scanner.  Fills info (if not NULL) and appends the normalised form to
 * out (if not NULL).
 */
static void parse_all(const char *data, size_t len, struct patch_info *info,
		      struct buf *out)
{
	struct line l, l2, l3;
	size_t off = 0, section_start = 0, hdr_len;
	bool have_section_start = false, message_has_diff = false;
	int messages = 0, diff_messages = 0;
	long old, new;

	memset(info, 0, sizeof(*info));
	while (line_at(data, len, off, &l)) {
		if (is_mbox_from(&l)) {
			if (message_has_diff)
				diff_messages++;
			messages++;
			message_has_diff = false;
		}
		if (starts(&l, "diff ") || starts(&l, "Index: ")) {
			section_start = off;
			have_section_start = true;
		}
		if (!(starts(&l, "--- ") && line_at(data, len, l.next, &l2) &&
		      starts(&l2, "+++ ") && line_at(data, len, l2.next, &l3) &&
		      hunk_header(&l3, &old, &new, &hdr_len))) {
			if (!starts(&l, "diff ") && !starts(&l, "Index: ") &&
			    !starts(&l, "index ") && !starts(&l, "====") &&
			    !starts(&l, "new file") && !starts(&l, "deleted file") &&
			    !starts(&l, "old mode") && !starts(&l, "new mode") &&
			    !starts(&l, "similarity") && !starts(&l, "rename ") &&
			    !starts(&l, "copy "))
				have_section_start = false;
			off = l.next;
			continue;
		}
		/* a file section: its hunks follow */
		size_t file_start = have_section_start ? section_start : off;
		size_t file_out = out ? out->len : 0;
		int file_hunks = 0;

		if (out) {
			add_path(out, "--- ", &l);
			add_path(out, "+++ ", &l2);
		}
		off = l2.next;
		while (line_at(data, len, off, &l3) && hunk_header(&l3, &old, &new, &hdr_len)) {
			size_t hunk_out = out ? out->len : 0, pos = l3.next;
			bool complete = false;
			int changes = 0;

			if (out) {
				buf_add(out, l3.p, hdr_len);
				buf_addch(out, '\n');
			}
			while (!complete && line_at(data, len, pos, &l)) {
				char c = l.len ? l.p[0] : ' ';

				if (c == ' ' && old > 0 && new > 0) {
					old--; new--;
				} else if (c == '-' && old > 0) {
					old--;
					changes++;
				} else if (c == '+' && new > 0) {
					new--;
					changes++;
				} else if (c != '\\') {
					break;
				}
				if (out) {
					buf_add(out, l.p, l.len);
					buf_addch(out, '\n');
				}
				pos = l.next;
				complete = old == 0 && new == 0;
			}
			if (!complete && changes && old == new) {
				/* only trailing context is missing: end the hunk here */
				complete = true;
			} else if (!complete) {
				if (out)
					buf_setlen(out, hunk_out);
				break;
			}
			/* "\ No newline at end of file" after the last line */
			if (line_at(data, len, pos, &l) && l.len && l.p[0] == '\\') {
				if (out) {
					buf_add(out, l.p, l.len);
					buf_addch(out, '\n');
				}
				pos = l.next;
			}
			file_hunks++;
			info->hunks++;
			if (!info->files && file_hunks == 1)
				info->start = file_start;
			info->end = pos;
			off = pos;
		}
		if (file_hunks) {
			info->files++;
			message_has_diff = true;
		} else if (out) {
			buf_setlen(out, file_out);
		}
		have_section_start = false;
	}
	if (message_has_diff)
		diff_messages++;
	if (!info->hunks)
		return;
	if (messages >= 2 && diff_messages >= 2) {
		info->kind = PATCH_MBOX;
		info->patches = diff_messages;
	} else {
		info->kind = PATCH_DIFF;
		info->patches = 1;
	}
}

int patch_parse(const char *data, size_t len, struct patch_info *info)
{
	parse_all(data, len, info, NULL);
	return info->kind == PATCH_NONE ? -1 : 0;
}

void patch_normalise(const char *data, size_t len, struct buf *out)
{
	struct patch_info info;

	parse_all(data, len, &info, out);
}

const char *patch_kind_name(enum patch_kind kind)
{
	switch (kind) {
	case PATCH_DIFF: return "patch";
	case PATCH_MBOX: return "mbox";
	default: return "none";
	}
}
