/*
 * similar: bugs whose summaries read alike.  A weak hint, shown on the
 * dashboard only and never written to the tracker: two summaries sharing
 * words proves nothing, unlike two kernels failing with one signature
 * (duplicates.c).
 *
 * The score is the Jaccard index of the two summaries' word sets: words are
 * runs of letters, digits and '_' of at least 3 characters, lowercased,
 * minus common English and tracker filler words.
 */
#include "triage.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SIMILAR_MAX_WORDS 64
#define SIMILAR_WORD_LEN 32

static const char *const stop_words[] = {
	"the", "and", "for", "with", "when", "after", "from", "that", "this", "not",
	"are", "was", "but", "has", "have", "can", "does", "doesn", "into",
	"bug", "fails", "failed", "error", "issue", "problem", "kernel", "linux", NULL
};

struct words {
	char w[SIMILAR_MAX_WORDS][SIMILAR_WORD_LEN];
	int n;
};

static bool is_stop(const char *w)
{
	for (const char *const *s = stop_words; *s; s++)
		if (!strcmp(*s, w))
			return true;
	return false;
}

static bool has_word(const struct words *ws, const char *w)
{
	for (int i = 0; i < ws->n; i++)
		if (!strcmp(ws->w[i], w))
			return true;
	return false;
}

static void split(const char *s, struct words *ws)
{
	ws->n = 0;
	while (*s && ws->n < SIMILAR_MAX_WORDS) {
		char w[SIMILAR_WORD_LEN];
		size_t len = 0;

		while (*s && !isalnum((unsigned char)*s) && *s != '_')
			s++;
		while (*s && (isalnum((unsigned char)*s) || *s == '_')) {
			if (len + 1 < sizeof(w))
				w[len++] = tolower((unsigned char)*s);
			s++;
		}
		w[len] = '\0';
		if (len >= 3 && !is_stop(w) && !has_word(ws, w))
			memcpy(ws->w[ws->n++], w, len + 1);
	}
}

double similar_score(const char *a, const char *b)
{
	struct words *wa = xmalloc(sizeof(*wa)), *wb = xmalloc(sizeof(*wb));
	int common = 0, all;
	double score;

	split(a ? a : "", wa);
	split(b ? b : "", wb);
	for (int i = 0; i < wa->n; i++)
		common += has_word(wb, wa->w[i]);
	all = wa->n + wb->n - common;
	score = all ? (double)common / all : 0.0;
	free(wa);
	free(wb);
	return score;
}

DB_SQL(sql_similar_me, "SELECT summary FROM bugs WHERE id = ?");
DB_SQL(sql_similar_others,
       "SELECT id, summary FROM bugs WHERE id <> ? AND is_open = 1 ORDER BY id");

static int by_score(const void *x, const void *y)
{
	const struct similar_bug *a = x, *b = y;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int similar_bugs(struct db *db, sqlite3_int64 bug_id, double min, struct similar_bug *out,
		 int max, int *n)
{
	sqlite3_stmt *st = db_stmt(db, sql_similar_me);
	struct similar_bug *all = NULL;
	char *mine = NULL;
	int nall = 0;

	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		mine = xstrdup(db_col_text(st, 0));
	sqlite3_reset(st);
	if (!mine)
		return 0;
	st = db_stmt(db, sql_similar_others);
	if (!st) {
		free(mine);
		return -1;
	}
	sqlite3_bind_int64(st, 1, bug_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		double score = similar_score(mine, db_col_text(st, 1));

		if (score < min)
			continue;
		all = xrealloc(all, (nall + 1) * sizeof(*all));
		all[nall].id = sqlite3_column_int64(st, 0);
		all[nall++].score = score;
	}
	sqlite3_reset(st);
	if (nall)
		qsort(all, nall, sizeof(*all), by_score);
	for (int i = 0; i < nall && i < max; i++)
		out[(*n)++] = all[i];
	free(all);
	free(mine);
	return 0;
}
