/*
 * maintainers: parse MAINTAINERS and map files to entries.  See
 * maintainers.h.
 *
 * get_maintainer.pl turns each F:/X: glob into a regex ('.' literal, '*'
 * -> '.*', '?' -> '.') and tests it unanchored at the end ("^pattern"), then,
 * for a pattern not ending in '/', also requires the path to have as many
 * '/' as the pattern.  We do the same with a glob matcher instead of building
 * regexes from file text: the greedy matcher with one backtrack point is
 * linear-ish in the input, so a hostile file cannot make a lookup explode.
 * Without a kernel tree we cannot ask "is this a directory?" the way the
 * script does (-d); a pattern without wildcards that the path continues with
 * a '/' is taken as a directory, which is what the script would find.
 */
#include "maintainers.h"
#include "xalloc.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void list_push(struct maint_list *l, char *s)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 4;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n++] = s;
}

static void list_release(struct maint_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static struct maint_entry *entry_new(struct maint_db *db, const char *title, size_t len)
{
	struct maint_entry *e;

	if (db->n == db->alloc) {
		db->alloc = db->alloc ? 2 * db->alloc : 64;
		db->entries = xrealloc(db->entries, db->alloc * sizeof(*db->entries));
	}
	e = &db->entries[db->n++];
	memset(e, 0, sizeof(*e));
	e->title = xstrndup(title, len);
	e->status = xstrndup("", 0);
	return e;
}

/* The first blank-separated word: "list@x (moderated)" -> "list@x". */
static char *first_word(const char *v, size_t len)
{
	size_t n = 0;

	while (n < len && v[n] != ' ' && v[n] != '\t')
		n++;
	return xstrndup(v, n);
}

static void entry_add_tag(struct maint_entry *e, char tag, const char *v, size_t len)
{
	switch (tag) {
	case 'M': list_push(&e->maintainers, xstrndup(v, len)); break;
	case 'R': list_push(&e->reviewers, xstrndup(v, len)); break;
	case 'L': if (len) list_push(&e->lists, first_word(v, len)); break;
	case 'F': if (len) list_push(&e->files, xstrndup(v, len)); break;
	case 'X': if (len) list_push(&e->excludes, xstrndup(v, len)); break;
	case 'N': if (len) list_push(&e->regexes, xstrndup(v, len)); break;
	case 'K': if (len) list_push(&e->keywords, xstrndup(v, len)); break;
	case 'S':
		free(e->status);
		e->status = xstrndup(v, len);
		break;
	default:
		break;		/* W:, Q:, T:, B:, C:, P: are not about owners */
	}
}

/*
 * Would glibc compile and run this regex in reasonable time?  Its compiler
 * copies the subtree of every repetition, so "e++++..." or deeply nested
 * repeated groups grow exponentially, and back-references make matching
 * exponential.  MAINTAINERS' own N:/K: patterns are short and plain (the
 * longest in 6.1 is 160 characters, none uses braces or stacked
 * repetitions), so anything beyond that is refused rather than risked.
 */
static bool regex_safe(const char *re)
{
	int depth = 0, reps = 0;
	bool after_rep = false;

	if (strlen(re) > 256)
		return false;
	for (const char *p = re; *p; p++) {
		bool rep = *p == '*' || *p == '+' || *p == '?';

		if (*p == '\\') {
			if (isdigit((unsigned char)p[1]) || !p[1])
				return false;	/* back-reference */
			p++;
			after_rep = false;
			continue;
		}
		if (*p == '{' || (rep && after_rep) || (rep && ++reps > 16))
			return false;
		if (*p == '(' && ++depth > 3)
			return false;
		if (*p == ')')
			depth--;
		after_rep = rep;
	}
	return true;
}

static void compile_all(const struct maint_list *l, regex_t **re, bool **ok)
{
	*re = xrealloc(NULL, (l->n ? l->n : 1) * sizeof(**re));
	*ok = xrealloc(NULL, (l->n ? l->n : 1) * sizeof(**ok));
	for (int i = 0; i < l->n; i++)
		/* Perl-only syntax such as (?:...) is refused: that pattern never matches */
		(*ok)[i] = regex_safe(l->v[i]) &&
			   !regcomp(&(*re)[i], l->v[i], REG_EXTENDED | REG_NOSUB);
}

static void free_all(const struct maint_list *l, regex_t *re, bool *ok)
{
	for (int i = 0; re && ok && i < l->n; i++)
		if (ok[i])
			regfree(&re[i]);
	free(re);
	free(ok);
}

static bool is_tag_line(const char *s, size_t len)
{
	return len >= 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] == ':';
}

static bool is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

int maint_parse(struct maint_db *db, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	const char *title = NULL;
	size_t title_len = 0;
	struct maint_entry *cur = NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (is_tag_line(p, n)) {
			const char *v = p + 2;
			size_t vlen = n - 2;

			while (vlen && (*v == ' ' || *v == '\t')) {
				v++;
				vlen--;
			}
			while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t' ||
					v[vlen - 1] == '\r'))
				vlen--;
			if (!cur)
				cur = entry_new(db, title ? title : "", title ? title_len : 0);
			entry_add_tag(cur, p[0], v, vlen);
		} else {
			cur = NULL;
			title = NULL;
			if (!is_blank(p, n)) {
				title = p;
				title_len = n;
				while (title_len && (title[title_len - 1] == '\r' ||
						     title[title_len - 1] == ' '))
					title_len--;
			}
		}
		p += n + (nl ? 1 : 0);
	}
	for (int i = 0; i < db->n; i++) {
		struct maint_entry *e = &db->entries[i];

		compile_all(&e->regexes, &e->name_re, &e->name_re_ok);
		compile_all(&e->keywords, &e->keyword_re, &e->keyword_re_ok);
	}
	return 0;
}

void maint_release(struct maint_db *db)
{
	for (int i = 0; i < db->n; i++) {
		struct maint_entry *e = &db->entries[i];

		free(e->title);
		free(e->status);
		list_release(&e->maintainers);
		list_release(&e->reviewers);
		list_release(&e->lists);
		list_release(&e->files);
		list_release(&e->excludes);
		free_all(&e->regexes, e->name_re, e->name_re_ok);
		free_all(&e->keywords, e->keyword_re, e->keyword_re_ok);
		list_release(&e->regexes);
		list_release(&e->keywords);
	}
	free(db->entries);
	db->entries = NULL;
	db->n = db->alloc = 0;
}

/*
 * Does the glob pat match a prefix of s?  '*' matches any run (slashes
 * included, as '.*' does in the script), '?' one character.  Greedy with a
 * single backtrack point: later stars subsume earlier ones.
 */
static bool glob_prefix(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	for (;;) {
		if (!*pat)
			return true;
		if (*pat == '*') {
			star = ++pat;
			resume = s;
			continue;
		}
		if (*s && (*pat == '?' || *pat == *s)) {
			pat++;
			s++;
			continue;
		}
		if (!star || !*resume)
			return false;
		pat = star;
		s = ++resume;
	}
}

static int count_slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* A pattern without wildcards that path continues below: a directory. */
static bool names_parent_dir(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);

	return n && !strpbrk(pattern, "*?") && !strncmp(pattern, path, n) && path[n] == '/';
}

bool maint_pattern_match(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);

	if (!n || !glob_prefix(pattern, path))
		return false;
	if (pattern[n - 1] == '/' || names_parent_dir(pattern, path))
		return true;
	return count_slashes(pattern) == count_slashes(path);
}

static int pattern_depth(const char *pattern)
{
	size_t n = strlen(pattern);
	int d = count_slashes(pattern);

	if (pattern[0] == '*')
		return -1;
	if (pattern[n - 1] != '/')
		d++;
	return d;
}

int maint_entry_depth(const struct maint_entry *e, const char *path)
{
	int best = INT_MIN;

	for (int i = 0; i < e->excludes.n; i++)
		if (maint_pattern_match(e->excludes.v[i], path))
			return INT_MIN;
	for (int i = 0; i < e->files.n; i++) {
		if (maint_pattern_match(e->files.v[i], path)) {
			int d = pattern_depth(e->files.v[i]);

			if (d > best)
				best = d;
		}
	}
	for (int i = 0; i < e->regexes.n; i++)
		if (e->name_re_ok[i] && !regexec(&e->name_re[i], path, 0, NULL, 0) && best < 0)
			best = 0;
	return best;
}

struct hit {
	int entry;
	int depth;
};

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->entry - y->entry;
}

/* Record entry i at depth d, keeping the deepest depth per entry. */
static void hits_add(struct hit **hits, int *n, int i, int d)
{
	for (int k = 0; k < *n; k++) {
		if ((*hits)[k].entry == i) {
			if (d > (*hits)[k].depth)
				(*hits)[k].depth = d;
			return;
		}
	}
	*hits = xrealloc(*hits, (*n + 1) * sizeof(**hits));
	(*hits)[*n].entry = i;
	(*hits)[*n].depth = d;
	(*n)++;
}

static void add_unique(const char ***v, int *n, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (!strcasecmp((*v)[i], s))
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

static void hits_for_path(const struct maint_db *db, const char *path,
			  struct hit **hits, int *nhits)
{
	int *depth = xrealloc(NULL, (db->n ? db->n : 1) * sizeof(*depth));
	bool specific = false;

	for (int i = 0; i < db->n; i++) {
		depth[i] = maint_entry_depth(&db->entries[i], path);
		if (depth[i] >= 0)
			specific = true;
	}
	for (int i = 0; i < db->n; i++)
		if (depth[i] != INT_MIN && (depth[i] >= 0 || !specific))
			hits_add(hits, nhits, i, depth[i]);
	free(depth);
}

int maint_for_files(const struct maint_db *db, const char *const *paths, int npaths,
		    struct maint_result *out)
{
	struct hit *hits = NULL;
	int nhits = 0;

	memset(out, 0, sizeof(*out));
	for (int p = 0; p < npaths; p++)
		if (paths[p] && *paths[p])
			hits_for_path(db, paths[p], &hits, &nhits);
	if (nhits)
		qsort(hits, nhits, sizeof(*hits), hit_cmp);
	out->entries = xrealloc(NULL, (nhits ? nhits : 1) * sizeof(*out->entries));
	for (int k = 0; k < nhits; k++) {
		const struct maint_entry *e = &db->entries[hits[k].entry];

		out->entries[out->nentries++] = e;
		for (int i = 0; i < e->maintainers.n; i++)
			add_unique(&out->people, &out->npeople, e->maintainers.v[i]);
		for (int i = 0; i < e->reviewers.n; i++)
			add_unique(&out->people, &out->npeople, e->reviewers.v[i]);
		for (int i = 0; i < e->lists.n; i++)
			add_unique(&out->lists, &out->nlists, e->lists.v[i]);
	}
	free(hits);
	return 0;
}

void maint_result_release(struct maint_result *r)
{
	free(r->entries);
	free(r->people);
	free(r->lists);
	memset(r, 0, sizeof(*r));
}

const struct maint_entry *maint_find(const struct maint_db *db, const char *title)
{
	for (int i = 0; i < db->n; i++)
		if (!strcmp(db->entries[i].title, title))
			return &db->entries[i];
	return NULL;
}

bool maint_keyword_match(const struct maint_entry *e, const char *text)
{
	for (int i = 0; i < e->keywords.n; i++)
		if (e->keyword_re_ok[i] && !regexec(&e->keyword_re[i], text, 0, NULL, 0))
			return true;
	return false;
}

void maint_address(const char *person, char *out, size_t outsz)
{
	const char *lt = strrchr(person, '<');
	const char *gt = lt ? strchr(lt, '>') : NULL;
	size_t n;

	if (!outsz)
		return;
	if (lt && gt) {
		person = lt + 1;
		n = gt - person;
	} else {
		n = strlen(person);
	}
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, person, n);
	out[n] = '\0';
}
