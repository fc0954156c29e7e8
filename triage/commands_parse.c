/*
 * commands_parse: which lines of a tracker comment are commands, and what
 * each asks for.  Pure: no database, no configuration.
 *
 * A command line starts with "bugbridge:" (blanks before it allowed, case
 * ignored); a quoted line ("> bugbridge: test 1", as replies quote) never
 * is one.  Every command line gets an answer, so a line that is none of
 * the commands is kept too, as COMMENT_CMD_UNKNOWN with what is wrong with
 * it, and, where a small change makes it one, the command it most likely
 * meant ("test 6.12" -> "test on 6.12", "tset 4" -> "test 4", "retest 4" ->
 * "test 4", "test 4 please" -> "test 4").
 *
 * The grammar (words separated by blanks; a final '.' or '!' is ignored):
 *
 *   test [attachment] [#]<N> [on <kernel>]
 *   test on <kernel>
 *   retest
 *   bisect [attachment] [#]<N> [on <kernel>]
 *   bisect releases [[on] <series>]
 *   backtest [[attachment] [#]<N>]          (also back-test)
 *   ignore
 *   help
 *
 * <kernel> is kept as typed, less the spellings people use for a series
 * ("v6.12", "6.12.y", "linux-6.12.y" -> "6.12"); whether it names a kept
 * series or a release of the archive is decided when the command runs.
 */
#include "commands.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_WORDS 12
#define WORD_LEN 64

struct words {
	char w[MAX_WORDS][WORD_LEN];
	int n;
	bool too_many;		/* more words than MAX_WORDS, or one too long */
};

static const char *const verbs[] = { "test", "retest", "bisect", "backtest", "ignore", "help" };

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The words after "bugbridge:" in [p, end). */
static void split(const char *p, const char *end, struct words *ws)
{
	memset(ws, 0, sizeof(*ws));
	while (p < end) {
		const char *s;

		while (p < end && blank(*p))
			p++;
		if (p == end)
			break;
		for (s = p; p < end && !blank(*p); p++)
			;
		if (ws->n == MAX_WORDS || p - s >= WORD_LEN) {
			ws->too_many = true;
			return;
		}
		memcpy(ws->w[ws->n++], s, (size_t)(p - s));
	}
	if (ws->n) {	/* the end of a sentence is not part of the command */
		char *last = ws->w[ws->n - 1];
		size_t len = strlen(last);

		if (len > 1 && (last[len - 1] == '.' || last[len - 1] == '!'))
			last[len - 1] = '\0';
	}
}

/* "4", "#4": the number, else 0. */
static long long number(const char *s)
{
	long long v = 0;
	int digits = 0;

	if (*s == '#')
		s++;
	for (; isdigit((unsigned char)*s) && digits < 15; s++, digits++)
		v = v * 10 + (*s - '0');
	return *s || !digits ? 0 : v;
}

/* Does a word look like a kernel version (a digit and a dot)? */
static bool versionish(const char *s)
{
	return strchr(s, '.') && strpbrk(s, "0123456789");
}

/* A kernel as given, into out: the usual spellings of a series trimmed; false if not one. */
static bool kernel_word(const char *s, char *out, size_t size)
{
	size_t len;

	if (!strncasecmp(s, "linux-", 6) && isdigit((unsigned char)s[6]))
		s += 6;
	if ((*s == 'v' || *s == 'V') && isdigit((unsigned char)s[1]))
		s++;
	len = strlen(s);
	if (len > 2 && !strcasecmp(s + len - 2, ".y"))
		len -= 2;
	if (!len || len >= size || !versionish(s) || strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.=+~_-") < len)
		return false;
	memcpy(out, s, len);
	out[len] = '\0';
	return true;
}

/* A parse error: what is wrong, in words. */
static int bad(struct comment_cmd *c, const char *fmt, const char *arg)
{
	snprintf(c->hint, sizeof(c->hint), fmt, arg);
	return -1;
}

/* [attachment] [#]N at *i: the number, *i moved past it; 0 when there is none. */
static long long attachment_at(const struct words *ws, int *i)
{
	int j = *i;
	long long id;

	if (j < ws->n && !strcasecmp(ws->w[j], "attachment"))
		j++;
	if (j >= ws->n || !(id = number(ws->w[j])))
		return 0;
	*i = j + 1;
	return id;
}

/* "on <kernel>" at *i (or nothing): 0, -1 with the reason. */
static int on_kernel(const struct words *ws, int *i, struct comment_cmd *c)
{
	if (*i >= ws->n || strcasecmp(ws->w[*i], "on"))
		return 0;
	if (*i + 1 >= ws->n)
		return bad(c, "`on` needs a kernel: a series (6.12) or a release (6.1.170)%s", "");
	if (!kernel_word(ws->w[*i + 1], c->base, sizeof(c->base)))
		return bad(c, "`%s` is not a kernel: a series (6.12) or a release (6.1.170)",
			   ws->w[*i + 1]);
	*i += 2;
	return 0;
}

static int parse_test(const struct words *ws, int *i, struct comment_cmd *c)
{
	c->attachment_id = attachment_at(ws, i);
	if (!c->attachment_id && (*i >= ws->n || strcasecmp(ws->w[*i], "on"))) {
		if (*i < ws->n)
			return bad(c, "`%s` is not an attachment number", ws->w[*i]);
		return bad(c, "`%s` needs an attachment number, or `on <kernel>`", ws->w[0]);
	}
	return on_kernel(ws, i, c);
}

static int parse_bisect(const struct words *ws, int *i, struct comment_cmd *c)
{
	if (*i < ws->n && !strcasecmp(ws->w[*i], "releases")) {
		c->kind = COMMENT_CMD_RELEASES;
		(*i)++;
		if (*i < ws->n && !strcasecmp(ws->w[*i], "on"))
			(*i)++;
		if (*i < ws->n) {
			if (!kernel_word(ws->w[*i], c->base, sizeof(c->base)))
				return bad(c, "`%s` is not a kernel series (6.1, 6.12)", ws->w[*i]);
			(*i)++;
		}
		return 0;
	}
	c->attachment_id = attachment_at(ws, i);
	if (!c->attachment_id)
		return bad(c, "`bisect` needs the attachment number of a series of patches,"
			   " or `releases`%s", "");
	return on_kernel(ws, i, c);
}

static int verb_index(const char *w)
{
	if (!strcasecmp(w, "back-test"))
		return 3;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcasecmp(w, verbs[i]))
			return (int)i;
	return -1;
}

/* The words as one command; 0, or -1 with the reason in c->hint. */
static int parse_words(const struct words *ws, struct comment_cmd *c)
{
	static const enum comment_cmd_kind kinds[] = {
		COMMENT_CMD_TEST, COMMENT_CMD_RETEST, COMMENT_CMD_BISECT, COMMENT_CMD_BACKTEST,
		COMMENT_CMD_IGNORE, COMMENT_CMD_HELP,
	};
	int v, i = 1, rc = 0;

	c->attachment_id = 0;
	c->base[0] = c->hint[0] = '\0';
	if (ws->too_many)
		return bad(c, "too long for a command%s", "");
	if (!ws->n)
		return bad(c, "no command after `bugbridge:`%s", "");
	v = verb_index(ws->w[0]);
	if (v < 0)
		return bad(c, "`%s` is not a command", ws->w[0]);
	c->kind = kinds[v];
	if (c->kind == COMMENT_CMD_TEST)
		rc = parse_test(ws, &i, c);
	else if (c->kind == COMMENT_CMD_BISECT)
		rc = parse_bisect(ws, &i, c);
	else if (c->kind == COMMENT_CMD_BACKTEST)
		c->attachment_id = attachment_at(ws, &i);
	if (!rc && i < ws->n)
		rc = bad(c, "`%s` is more than the command takes", ws->w[i]);
	return rc;
}

/* Edit distance of two short words, capped at 3 (case ignored). */
static int distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), d[WORD_LEN + 1][WORD_LEN + 1];

	if (la > WORD_LEN || lb > WORD_LEN || abs(la - lb) > 2)
		return 3;
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;	/* two letters swapped */
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The known verb a mistyped one most likely is ("tset", "testing", "bisec"), or NULL. */
static const char *near_verb(const char *w)
{
	const char *best = NULL;
	int best_d = 3;

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		size_t n = strlen(verbs[i]);
		int d = !strncasecmp(w, verbs[i], n) && strlen(w) <= n + 3 ? 1 :
			distance(w, verbs[i]);

		if (d < best_d && (d < 2 || n > 4)) {
			best = verbs[i];
			best_d = d;
		}
	}
	return best;
}

/*
 * A line that is not a command: the command it most likely meant, tried in
 * turn on a copy of its words: the verb spelt right, "on" before a kernel,
 * "test" for a retest of an attachment, the words that are too many left
 * out (never a kernel asked for).  true (with *c that command) when one of
 * them parses.
 */
static bool meant(const struct words *orig, struct comment_cmd *c)
{
	struct words ws = *orig;
	struct comment_cmd try = *c;
	const char *verb = ws.n ? near_verb(ws.w[0]) : NULL;

	if (ws.too_many || !ws.n)
		return false;
	if (verb_index(ws.w[0]) < 0 && verb) {
		snprintf(ws.w[0], WORD_LEN, "%s", verb);
	} else if (verb_index(ws.w[0]) < 0) {
		/* "please test 4", "can you retest": the words before the verb go */
		int k = 1;

		while (k < ws.n && verb_index(ws.w[k]) < 0)
			k++;
		if (k == ws.n)
			return false;
		memmove(ws.w[0], ws.w[k], (size_t)(ws.n - k) * WORD_LEN);
		ws.n -= k;
	}
	if (!strcasecmp(ws.w[0], "retest") && ws.n > 1 && number(ws.w[ws.n > 2 &&
	    !strcasecmp(ws.w[1], "attachment") ? 2 : 1]))
		snprintf(ws.w[0], WORD_LEN, "test");
	for (int i = 1; i < ws.n && ws.n < MAX_WORDS; i++) {
		if (!versionish(ws.w[i]) || !strcasecmp(ws.w[i - 1], "on") ||
		    !strcasecmp(ws.w[i - 1], "releases"))
			continue;
		memmove(ws.w[i + 1], ws.w[i], (size_t)(ws.n - i) * WORD_LEN);
		snprintf(ws.w[i], WORD_LEN, "on");
		ws.n++;
		break;
	}
	for (int n = ws.n; ws.n > 0; ws.n--) {
		/* a kernel asked for is never left out: "test 4 on" is not "test 4" */
		if (ws.n < n && !strcasecmp(ws.w[ws.n], "on"))
			break;
		if (!parse_words(&ws, &try)) {
			*c = try;
			return true;
		}
	}
	return false;
}

/* One line's command, as typed: blanks squeezed, cut to fit (never inside a UTF-8 character). */
static void keep_line(const char *p, const char *end, struct comment_cmd *c)
{
	size_t n = 0;
	bool space = false;

	/* at most 2 bytes a turn, then "..." and the NUL: n + 6 <= sizeof */
	for (; p < end && n + 6 <= sizeof(c->line); p++) {
		unsigned char ch = (unsigned char)*p;

		if (blank(*p)) {
			space = n > 0;
			continue;
		}
		if (space)
			c->line[n++] = ' ';
		space = false;
		c->line[n++] = ch < 0x20 || ch == 0x7f ? '?' : *p;
	}
	if (p < end) {
		size_t lead = n;
		unsigned char b;

		while (lead && ((unsigned char)c->line[lead - 1] & 0xc0) == 0x80)
			lead--;
		b = lead ? (unsigned char)c->line[lead - 1] : 0;
		/* a lead byte whose character was cut: drop the part that fits */
		if (b >= 0xc0 && n - lead + 1 < (size_t)(b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2))
			n = lead - 1;
		memcpy(c->line + n, "...", 3);
		n += 3;
	}
	c->line[n] = '\0';
}

/* One line (without its newline); true when it is a command line (*c filled). */
static bool parse_line(const char *p, const char *end, struct comment_cmd *c)
{
	struct words ws;

	while (p < end && blank(*p))
		p++;
	if (end - p < 10 || strncasecmp(p, "bugbridge:", 10))
		return false;
	memset(c, 0, sizeof(*c));
	keep_line(p, end, c);
	split(p + 10, end, &ws);
	if (!parse_words(&ws, c))
		return true;
	{
		struct comment_cmd why = *c;

		if (meant(&ws, c)) {
			comment_cmd_text(c, c->hint, sizeof(c->hint));
			c->suggestion = true;
		} else {
			*c = why;
		}
	}
	c->kind = COMMENT_CMD_UNKNOWN;
	return true;
}

int comment_cmd_parse(const char *text, struct comment_cmd *cmds, int max)
{
	const char *p = text;
	int n = 0;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *q = p;
		struct comment_cmd c;

		while (q < end && blank(*q))
			q++;
		if (q < end && *q != '>' && parse_line(q, end, &c)) {
			if (n < max)
				cmds[n] = c;
			n++;
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

void comment_cmd_text(const struct comment_cmd *c, char *out, size_t size)
{
	char att[32] = "";

	if (c->attachment_id)
		snprintf(att, sizeof(att), " %lld", c->attachment_id);
	switch (c->kind) {
	case COMMENT_CMD_TEST:
	case COMMENT_CMD_BISECT:
		snprintf(out, size, "%s%s%s%s", c->kind == COMMENT_CMD_TEST ? "test" : "bisect",
			 att, c->base[0] ? " on " : "", c->base);
		break;
	case COMMENT_CMD_RELEASES:
		snprintf(out, size, "bisect releases%s%s", c->base[0] ? " " : "", c->base);
		break;
	case COMMENT_CMD_BACKTEST:
		snprintf(out, size, "backtest%s", att);
		break;
	case COMMENT_CMD_RETEST:
	case COMMENT_CMD_IGNORE:
	case COMMENT_CMD_HELP:
		snprintf(out, size, "%s", c->kind == COMMENT_CMD_RETEST ? "retest" :
			 c->kind == COMMENT_CMD_IGNORE ? "ignore" : "help");
		break;
	case COMMENT_CMD_UNKNOWN:
		snprintf(out, size, "%s", c->line);
		break;
	}
}
