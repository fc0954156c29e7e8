/*
 * patch_check: what of a diff the runner lets GNU patch see.  See patch.h.
 *
 * GNU patch understands far more than unified diffs of regular files: it
 * creates symlinks from git diffs (mode 120000) and then writes through
 * them, hands anything that looks like an ed script to /usr/bin/ed (even
 * with -u), applies renames and copies, and takes file names from
 * "Index:" lines.  A patch from the tracker is hostile input, so before
 * patch runs, the text is scanned once and refused unless it is plain
 * unified diffs (and git diffs) of regular files under relative paths.
 *
 * The scan follows hunk line counts the way patch.c does, so that a hunk
 * line such as "--- a" (a removed "-- a") is not taken for a file header.
 * Prose around the diffs (mail headers, commit messages, diffstats) is
 * allowed; only lines in diff-header position are judged, plus anything
 * shaped like an ed or normal-diff command, which no commit message needs.
 */
#include "patch.h"

#include <stdbool.h>
#include <string.h>

struct scan {
	const char *data;
	size_t len, pos, next;
	const char *p;		/* the current line, without \n or \r\n */
	size_t n;
	int lineno;
	struct buf *why;
};

static bool next_line(struct scan *s)
{
	const char *nl;

	if (s->next >= s->len)
		return false;
	s->pos = s->next;
	s->p = s->data + s->pos;
	nl = memchr(s->p, '\n', s->len - s->pos);
	s->n = nl ? (size_t)(nl - s->p) : s->len - s->pos;
	s->next = s->pos + s->n + (nl ? 1 : 0);
	if (s->n && s->p[s->n - 1] == '\r')
		s->n--;
	s->lineno++;
	return true;
}

static bool at(const struct scan *s, const char *prefix)
{
	size_t k = strlen(prefix);

	return s->n >= k && !memcmp(s->p, prefix, k);
}

/* Does the line after the current one start with prefix? */
static bool next_starts(const struct scan *s, const char *prefix)
{
	size_t k = strlen(prefix);

	return s->next + k <= s->len && !memcmp(s->data + s->next, prefix, k);
}

static int refuse(struct scan *s, const char *what, const char *name, size_t nlen)
{
	buf_addf(s->why, "line %d: %s", s->lineno, what);
	if (name)
		buf_addf(s->why, " '%.*s'", (int)(nlen > 200 ? 200 : nlen), name);
	return -1;
}

/*
 * A file name in a header: refused when absolute, quoted (C-style escapes
 * hide what it names), or when any component is ".." or empty.
 */
static int check_path(struct scan *s, const char *name, size_t len)
{
	const char *end = name + len, *p = name;

	if (len == 9 && !memcmp(name, "/dev/null", 9))
		return 0;
	if (!len)
		return refuse(s, "an empty file name", NULL, 0);
	if (*name == '"')
		return refuse(s, "a quoted file name", name, len);
	if (*name == '/' || *name == '~')
		return refuse(s, "an absolute file name", name, len);
	while (p < end) {
		const char *slash = memchr(p, '/', end - p), *e = slash ? slash : end;
		if (e - p == 2 && !memcmp(p, "..", 2))
			return refuse(s, "a file name out of the tree", name, len);
		if (e == p && slash)	/* "a//etc": what -p1 leaves is absolute */
			return refuse(s, "a file name with an empty component", name, len);
		p = e + 1;
	}
	return 0;
}

/* "--- a/x\t2020-..." or "Index: x": the name ends at a tab (timestamps). */
static int check_header_path(struct scan *s, size_t skip)
{
	const char *name = s->p + skip, *tab = memchr(name, '\t', s->n - skip);
	size_t len = tab ? (size_t)(tab - name) : s->n - skip;

	while (len && name[len - 1] == ' ')
		len--;
	return check_path(s, name, len);
}

/* "diff --git a/x b/x": both names, split at blanks. */
static int check_git_line(struct scan *s)
{
	const char *p = s->p + 11, *end = s->p + s->n;

	while (p < end) {
		const char *b = memchr(p, ' ', end - p), *e = b ? b : end;
		if (e > p && check_path(s, p, e - p))
			return -1;
		p = e + 1;
	}
	return 0;
}

/* "new file mode 100644", "index 1234..5678 100755": only regular files. */
static int check_mode(struct scan *s, const char *mode, size_t len)
{
	if ((len == 6 && (!memcmp(mode, "100644", 6) || !memcmp(mode, "100755", 6))) ||
	    (len == 6 && !memcmp(mode, "100664", 6)))
		return 0;
	if (len == 6 && !memcmp(mode, "120000", 6))
		return refuse(s, "a symbolic link (mode 120000): only regular files are applied",
			      NULL, 0);
	if (len == 6 && !memcmp(mode, "160000", 6))
		return refuse(s, "a submodule (mode 160000): only regular files are applied",
			      NULL, 0);
	return refuse(s, "a file mode other than a regular file's", mode, len);
}

/* "index 1a2b..3c4d[ 100644]" */
static int check_index_line(struct scan *s)
{
	const char *sp = memchr(s->p + 6, ' ', s->n - 6);

	if (!sp)
		return 0;
	return check_mode(s, sp + 1, s->n - (sp + 1 - s->p));
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "12", "12,14": advance *i past it. */
static bool line_range(const struct scan *s, size_t *i)
{
	size_t start = *i;

	while (*i < s->n && is_digit(s->p[*i]))
		(*i)++;
	if (*i == start)
		return false;
	if (*i < s->n && s->p[*i] == ',') {
		(*i)++;
		start = *i;
		while (*i < s->n && is_digit(s->p[*i]))
			(*i)++;
		return *i > start;
	}
	return true;
}

/* "5a", "3,7d", "12c" (ed) or "5a6,7", "3c3" (normal diff). */
static bool is_ed_command(const struct scan *s)
{
	size_t i = 0;

	if (!line_range(s, &i) || i >= s->n || !strchr("acdi", s->p[i]))
		return false;
	i++;
	if (i == s->n)
		return true;
	return line_range(s, &i) && i == s->n;
}

/* "@@ -a[,b] +c[,d] @@": the counts. */
static bool hunk_counts(const struct scan *s, long *old, long *new)
{
	size_t i = 4;
	long *v[2] = { old, new };

	if (!at(s, "@@ -"))
		return false;
	for (int k = 0; k < 2; k++) {
		long x = 0;
		size_t start;
		if (k && (i + 1 >= s->n || s->p[i] != ' ' || s->p[i + 1] != '+'))
			return false;
		i += k ? 2 : 0;
		while (i < s->n && is_digit(s->p[i]))
			i++;
		if (i < s->n && s->p[i] == ',') {
			i++;
			start = i;
			while (i < s->n && is_digit(s->p[i]) && x < 100000000)
				x = x * 10 + (s->p[i++] - '0');
			if (i == start)
				return false;
		} else {
			x = 1;
		}
		*v[k] = x;
	}
	return true;
}

/* Skip the body of a hunk whose header is the current line. */
static void skip_hunk(struct scan *s, long old, long new)
{
	while ((old > 0 || new > 0) && s->next < s->len) {
		const char *q = s->data + s->next;
		char c = (*q == '\n' || *q == '\r') ? ' ' : *q;
		if (!((c == ' ' && old > 0 && new > 0) || (c == '-' && old > 0) ||
		      (c == '+' && new > 0) || c == '\\'))
			return;
		next_line(s);
		if (c == ' ') {
			old--;
			new--;
		} else if (c == '-') {
			old--;
		} else if (c == '+') {
			new--;
		}
	}
}

/*
 * The extended header of a git diff (after "diff --git", before its first
 * hunk): modes, renames, copies and binary data, which GNU patch reads
 * only there.
 */
static int check_git_header(struct scan *s)
{
	static const char *const moves[] = { "rename from ", "rename to ", "copy from ",
					     "copy to ", NULL };
	static const char *const modes[] = { "new file mode ", "deleted file mode ",
					     "old mode ", "new mode ", NULL };

	for (int i = 0; moves[i]; i++)
		if (at(s, moves[i]))
			return check_header_path(s, strlen(moves[i]));
	for (int i = 0; modes[i]; i++)
		if (at(s, modes[i]))
			return check_mode(s, s->p + strlen(modes[i]), s->n - strlen(modes[i]));
	if (at(s, "index "))
		return check_index_line(s);
	if (at(s, "GIT binary patch"))
		return refuse(s, "a binary patch: only text diffs are applied", NULL, 0);
	return 0;
}

static int check_line(struct scan *s, bool *in_git)
{
	if (at(s, "diff --git ")) {
		*in_git = true;
		return check_git_line(s);
	}
	if (*in_git && check_git_header(s))
		return -1;
	if (at(s, "--- ") || at(s, "+++ "))
		return check_header_path(s, 4);
	if (at(s, "Index: "))
		return check_header_path(s, 7);
	if (at(s, "Binary files ") && s->n > 7 && !memcmp(s->p + s->n - 7, " differ", 7))
		return refuse(s, "a binary patch: only text diffs are applied", NULL, 0);
	if (at(s, "*** ") && next_starts(s, "--- "))
		return refuse(s, "a context diff: only unified diffs are applied", NULL, 0);
	if (is_ed_command(s))
		return refuse(s, "an ed script or normal diff: only unified diffs are applied",
			      s->p, s->n);
	return 0;
}

int patch_check(const char *data, size_t len, struct buf *why)
{
	struct scan s = { .data = data, .len = len, .why = why };
	const char *nul = memchr(data, '\0', len);
	bool in_git = false;
	long old, new;

	if (nul) {
		/* the line the byte is on, 1-based, as an editor shows it */
		s.lineno = 1;
		for (const char *p = data; (p = memchr(p, '\n', nul - p)) != NULL; p++)
			s.lineno++;
		return refuse(&s, "a NUL byte: only text diffs are applied", NULL, 0);
	}
	while (next_line(&s)) {
		if (hunk_counts(&s, &old, &new)) {
			in_git = false;
			skip_hunk(&s, old, new);
			continue;
		}
		if (check_line(&s, &in_git))
			return -1;
	}
	return 0;
}
