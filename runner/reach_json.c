/*
 * reach_json: which of a file's changed lines gcov saw run, from gcov's
 * JSON (pure; coverage.h).  gcov --json-format --stdout prints one JSON
 * document per source it reads; a header's lines appear in the document
 * of every object that includes it, each with its own counts, and are
 * added up: a line of an inline function ran if it ran in any of them.
 */
#include "coverage.h"
#include "run.h"
#include "buf.h"
#include "xalloc.h"

#include <ctype.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

#define DOCS_MAX 256

struct gcov_line {
	int line;
	long long count;
};

static json_object *source_entry(json_object *doc, const char *file)
{
	json_object *files;
	size_t flen = strlen(file);

	if (!json_object_object_get_ex(doc, "files", &files))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(files); i++) {
		json_object *f = json_object_array_get_idx(files, i), *name;
		const char *s;
		size_t l;
		if (!json_object_object_get_ex(f, "file", &name))
			continue;
		s = json_object_get_string(name);
		l = strlen(s);
		if (l >= flen && !strcmp(s + l - flen, file) && (l == flen || s[l - flen - 1] == '/'))
			return f;
	}
	return NULL;
}

static const char *function_at(json_object *entry, int line)
{
	json_object *funcs, *f, *v;
	const char *best = NULL;
	int best_start = -1;

	if (!json_object_object_get_ex(entry, "functions", &funcs))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(funcs); i++) {
		int start, endl;
		f = json_object_array_get_idx(funcs, i);
		if (!json_object_object_get_ex(f, "start_line", &v))
			continue;
		start = json_object_get_int(v);
		endl = json_object_object_get_ex(f, "end_line", &v) ? json_object_get_int(v) : start;
		if (line >= start && line <= endl && start > best_start &&
		    json_object_object_get_ex(f, "name", &v)) {
			best = json_object_get_string(v);
			best_start = start;
		}
	}
	return best;
}

static int by_line(const void *a, const void *b)
{
	const struct gcov_line *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/* The executable lines of entry added into *g (a line of several copies: summed). */
static void add_lines(json_object *entry, struct gcov_line **g, int *n)
{
	json_object *lines, *v;

	if (!json_object_object_get_ex(entry, "lines", &lines))
		return;
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		json_object *l = json_object_array_get_idx(lines, i);
		struct gcov_line one = { 0, 0 };
		int at = -1;

		if (!json_object_object_get_ex(l, "line_number", &v))
			continue;
		one.line = json_object_get_int(v);
		if (json_object_object_get_ex(l, "count", &v))
			one.count = json_object_get_int64(v);
		for (int k = *n - 1; k >= 0 && at < 0; k--)
			if ((*g)[k].line == one.line)
				at = k;
		if (at >= 0) {
			(*g)[at].count += one.count;
			continue;
		}
		*g = xreallocarray(*g, *n + 1, sizeof(**g));
		(*g)[(*n)++] = one;
	}
}

/* The documents of gcov's output, one after another. */
static int parse_docs(const char *text, json_object **docs)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(text), off = 0;
	int n = 0;

	while (tok && off < len && n < DOCS_MAX) {
		json_object *o;

		while (off < len && isspace((unsigned char)text[off]))
			off++;
		if (off >= len)
			break;
		o = json_tokener_parse_ex(tok, text + off, (int)(len - off));
		if (!o)
			break;
		off += json_tokener_get_parse_end(tok);
		json_tokener_reset(tok);
		docs[n++] = o;
	}
	if (tok)
		json_tokener_free(tok);
	return n;
}

static const struct gcov_line *find_line(const struct gcov_line *g, int n, int line)
{
	for (int i = 0; i < n; i++)
		if (g[i].line == line)
			return &g[i];
	return NULL;
}

/* A deletion counts as the next executable line (within 5), else the one before. */
static const struct gcov_line *deletion_line(const struct gcov_line *g, int n, int line)
{
	const struct gcov_line *best = NULL;

	for (int i = 0; i < n; i++) {
		if (g[i].line >= line && g[i].line < line + 5)
			return &g[i];
		if (g[i].line < line && g[i].line >= line - 5)
			best = &g[i];
	}
	return best;
}

static const char *base_of(const char *file)
{
	return strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
}

static void note_function(struct reach *acc, const char *file, const char *func, int line)
{
	struct buf key = BUF_INIT;

	if (func)
		buf_addf(&key, "%s (%s)", func, base_of(file));
	else	/* an inlined header line has no function of its own */
		buf_addf(&key, "line %d (%s)", line, base_of(file));
	if (!strstr(acc->unreached_funcs.ptr, key.ptr))
		buf_addf(&acc->unreached_funcs, "%s%s", acc->unreached_funcs.len ? ", " : "",
			 key.ptr);
	buf_release(&key);
}

static const char *function_in(json_object **docs, int n, const char *file, int line)
{
	for (int i = 0; i < n; i++) {
		json_object *e = source_entry(docs[i], file);
		const char *f = e ? function_at(e, line) : NULL;

		if (f)
			return f;
	}
	return NULL;
}

static int count_lines(const char *file, json_object **docs, int nd, const struct gcov_line *g,
		       int ng, const struct changed_line *cl, int ncl, struct reach *acc)
{
	int counted = 0, reached = 0, last = -1;

	for (int i = 0; i < ncl; i++) {
		const struct gcov_line *l = cl[i].deletion ? deletion_line(g, ng, cl[i].line)
							   : find_line(g, ng, cl[i].line);
		if (!l || l->line == last)
			continue;	/* not executable, or counted already */
		last = l->line;
		counted++;
		acc->changed++;
		if (l->count > 0) {
			acc->reached++;
			reached++;
		} else {
			note_function(acc, file, function_in(docs, nd, file, l->line), l->line);
		}
		buf_addf(&acc->log, "%s:%d %s %lld%s\n", file, l->line,
			 l->count > 0 ? "executed" : "NOT executed", l->count,
			 cl[i].deletion ? " (after a deleted line)" : "");
	}
	if (counted)
		buf_addf(&acc->files, "%s%s %d of %d", acc->files.len ? ", " : "", base_of(file),
			 reached, counted);
	else
		buf_addf(&acc->files, "%s%s: no executable line changed", acc->files.len ? ", " : "",
			 base_of(file));
	acc->nfiles++;
	return counted;
}

int coverage_reach_file(const char *file, const char *json_text, const struct changed_line *cl,
			int ncl, struct reach *acc)
{
	json_object *docs[DOCS_MAX];
	struct gcov_line *g = NULL;
	int nd = parse_docs(json_text, docs), ng = 0, ret = -1;
	bool seen = false;

	for (int i = 0; i < nd; i++) {
		json_object *e = source_entry(docs[i], file);

		if (e) {
			seen = true;
			add_lines(e, &g, &ng);
		}
	}
	/* gcov read the objects but the file made no code in them: nothing it changed runs */
	if (seen || nd) {
		qsort(g, ng, sizeof(*g), by_line);
		ret = count_lines(file, docs, nd, g, ng, cl, ncl, acc);
	}
	for (int i = 0; i < nd; i++)
		json_object_put(docs[i]);
	free(g);
	return ret;
}
