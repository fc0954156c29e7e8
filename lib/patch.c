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

/* Lines of a diff's extended header, which belong to the file section below. */
static bool is_extended_header(const struct line *l)
{
	static const char *const heads[] = {
		"diff ", "Index: ", "index ", "====", "new file", "deleted file", "old mode",
		"new mode", "similarity", "rename ", "copy ", NULL
	};

	for (int i = 0; heads[i]; i++)
		if (starts(l, heads[i]))
			return true;
	return false;
}

static void add_line(struct buf *out, const char *p, size_t len)
{
	if (out) {
		buf_add(out, p, len);
		buf_addch(out, '\n');
	}
}

/*
 * One hunk whose header is hdr (old and new lines to come).  Returns the
 * offset after it, or 0 when the hunk is cut short; its lines go to out.
 */
static size_t parse_hunk(const char *data, size_t len, const struct line *hdr, size_t hdr_len,
			 long old, long new, struct buf *out)
{
	size_t pos = hdr->next;
	bool complete = false;
	int changes = 0;
	struct line l;

	add_line(out, hdr->p, hdr_len);
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
		add_line(out, l.p, l.len);
		pos = l.next;
		complete = old == 0 && new == 0;
	}
	/* only trailing context missing: the hunk ends here */
	if (!complete && !(changes && old == new))
		return 0;
	/* "\ No newline at end of file" after the last line */
	if (line_at(data, len, pos, &l) && l.len && l.p[0] == '\\') {
		add_line(out, l.p, l.len);
		pos = l.next;
	}
	return pos;
}

/*
 * The hunks of one file section whose ---/+++ lines are minus and plus and
 * whose text starts at file_start.  Returns the offset after its last
 * hunk; counts go to info.  A section without a whole hunk leaves out as
 * it was.
 */
static size_t parse_file(const char *data, size_t len, const struct line *minus,
			 const struct line *plus, size_t file_start, struct patch_info *info,
			 struct buf *out)
{
	size_t off = plus->next, file_out = out ? out->len : 0, hdr_len, end;
	int file_hunks = 0;
	struct line hdr;
	long old, new;

	if (out) {
		add_path(out, "--- ", minus);
		add_path(out, "+++ ", plus);
	}
	while (line_at(data, len, off, &hdr) && hunk_header(&hdr, &old, &new, &hdr_len)) {
		size_t hunk_out = out ? out->len : 0;

		end = parse_hunk(data, len, &hdr, hdr_len, old, new, out);
		if (!end) {
			if (out)
				buf_setlen(out, hunk_out);
			break;
		}
		file_hunks++;
		info->hunks++;
		if (!info->files && file_hunks == 1)
			info->start = file_start;
		info->end = end;
		off = end;
	}
	if (file_hunks)
		info->files++;
	else if (out)
		buf_setlen(out, file_out);
	return off;
}

/* "--- a", "+++ b" and a hunk header at l: a file section starts. */
static bool file_section_at(const char *data, size_t len, const struct line *l,
			    struct line *plus)
{
	struct line hdr;
	size_t hdr_len;
	long old, new;

	return starts(l, "--- ") && line_at(data, len, l->next, plus) && starts(plus, "+++ ") &&
	       line_at(data, len, plus->next, &hdr) && hunk_header(&hdr, &old, &new, &hdr_len);
}

/*
 * The scanner.  Fills info and appends the normalised form to out (if not
 * NULL).  Messages of an mbox are counted so that a series of two or more
 * patches is told from one diff with a cover letter.
 */
static void parse_all(const char *data, size_t len, struct patch_info *info,
		      struct buf *out)
{
	size_t off = 0, section_start = 0;
	bool have_section_start = false, message_has_diff = false;
	int messages = 0, diff_messages = 0;
	struct line l, plus;

	memset(info, 0, sizeof(*info));
	while (line_at(data, len, off, &l)) {
		if (is_mbox_from(&l)) {
			diff_messages += message_has_diff;
			messages++;
			message_has_diff = false;
		}
		if (starts(&l, "diff ") || starts(&l, "Index: ")) {
			section_start = off;
			have_section_start = true;
		}
		if (!file_section_at(data, len, &l, &plus)) {
			have_section_start &= is_extended_header(&l);
			off = l.next;
			continue;
		}
		int files = info->files;

		off = parse_file(data, len, &l, &plus, have_section_start ? section_start : off,
				 info, out);
		message_has_diff |= info->files > files;
		have_section_start = false;
	}
	diff_messages += message_has_diff;
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
