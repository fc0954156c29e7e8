/*
 * bot: which tracker account is ours, from the configuration or learned
 * from the tracker.  See bot.h.
 *
 * The tracker is asked as little as possible: whoami once per (url, key)
 * (a 404 from 5.0 or 5.2 is remembered too), and valid_login only while
 * the login is unknown, about the authors of new comments that carry a
 * marker line, each at most once per run.  The cheapest source needs no
 * request at all: our own posts got their comment ids back, and the poll
 * that fetches such a comment sees its author.
 */
#include "bot.h"
#include "tracker.h"
#include "config.h"
#include "log.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

DB_SQL(sql_bot_load,
       "SELECT IFNULL(bot_login, ''), IFNULL(bot_how, ''), IFNULL(bot_whoami, -1),"
       " IFNULL(bot_key, ''), IFNULL(ours_login, '') FROM tracker_state WHERE id = 1");
DB_SQL(sql_bot_save,
       "UPDATE tracker_state SET bot_login = NULLIF(?1, ''), bot_how = ?2,"
       " bot_whoami = NULLIF(?3, -1), bot_key = ?4 WHERE id = 1");
DB_SQL(sql_bot_ours_login, "SELECT IFNULL(ours_login, '') FROM tracker_state WHERE id = 1");
DB_SQL(sql_bot_recompute,
       "UPDATE comments SET is_ours = (author = ?1 COLLATE NOCASE), handled = 1"
       " WHERE is_ours IS NOT (author = ?1 COLLATE NOCASE)");
DB_SQL(sql_bot_set_ours_login, "UPDATE tracker_state SET ours_login = ?1 WHERE id = 1");
DB_SQL(sql_bot_posted,
       "SELECT 1 FROM outbox WHERE remote_id = ? AND kind = 'comment' AND state = 'sent'");
DB_SQL(sql_bot_comment_have, "SELECT 1 FROM comments WHERE id = ?");

void bot_key(const struct bz *bz, char hex[SHA256_HEX_LEN])
{
	struct buf s = BUF_INIT;

	buf_addf(&s, "%s\n%s", bz->url, bz->api_key);
	sha256_hex(s.ptr, s.len, hex);
	memset(s.ptr, 0, s.len);
	buf_release(&s);
}

void bot_init(struct bot *b, const struct bz *bz)
{
	memset(b, 0, sizeof(*b));
	buf_init(&b->login, 0);
	b->whoami = -1;
	bot_key(bz, b->key);
	buf_addstr(&b->login, cfg_str("tracker.login"));
	if (b->login.len)
		b->how = "config";
}

void bot_release(struct bot *b)
{
	buf_release(&b->login);
	for (size_t i = 0; i < b->nnot; i++)
		free(b->not_bot[i]);
	free(b->not_bot);
	memset(b, 0, sizeof(*b));
}

/* The stored how, as one of our constant strings (the struct keeps no copy). */
static const char *how_name(const char *s)
{
	static const char *const names[] = { "whoami", "posted", "valid_login" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return names[i];
	return "tracker";
}

int bot_load(struct bot *b, struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_bot_load);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	/* what the tracker said holds for the key it was said about */
	if (rc == SQLITE_ROW && !strcmp(db_col_text(st, 3), b->key)) {
		b->whoami = sqlite3_column_int(st, 2);
		if (!bot_known(b) && *db_col_text(st, 0)) {
			buf_addstr(&b->login, db_col_text(st, 0));
			b->how = how_name(db_col_text(st, 1));
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : error("bot: %s", db_errmsg(db));
}

bool bot_wrote(const struct bot *b, const char *author)
{
	return bot_known(b) && author && !strcasecmp(author, b->login.ptr);
}

bool bot_marker_line(const char *text)
{
	for (const char *p = text; p && *p;) {
		if (!strncmp(p, "bugbridge-", 10)) {
			const char *q = p + 10;

			while (*q >= 'a' && *q <= 'z')
				q++;
			if (q > p + 10 && *q == ':')
				return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static void learn(struct bot *b, const char *login, const char *how)
{
	buf_reset(&b->login);
	buf_addstr(&b->login, login);
	b->how = how;
	b->dirty = true;
	log_info("tracker: the bot's account is %s (%s)", login,
		 !strcmp(how, "posted") ? "the author of a comment we posted" :
		 !strcmp(how, "whoami") ? "GET /rest/whoami" : "GET /rest/valid_login");
}

static bool said_no(const struct bot *b, const char *author)
{
	for (size_t i = 0; i < b->nnot; i++)
		if (!strcasecmp(b->not_bot[i], author))
			return true;
	return false;
}

/* whoami once per key: 0 asked (or known), -1 the tracker did not answer. */
static int ask_whoami(struct bot *b, struct bz *bz)
{
	struct buf me = BUF_INIT;

	if (b->whoami >= 0)
		return 0;
	if (!bz_whoami(bz, &me)) {
		b->whoami = 1;
		learn(b, me.ptr, "whoami");
	} else if (bz->err == BZ_ERR_NOT_FOUND) {
		b->whoami = 0;	/* 5.0, 5.2: valid_login per author instead */
		b->dirty = true;
	} else {
		buf_release(&me);
		return -1;
	}
	buf_release(&me);
	return 0;
}

int bot_is(struct bot *b, struct bz *bz, const char *author)
{
	bool yes = false;

	if (!bot_known(b) && ask_whoami(b, bz))
		return -1;
	if (bot_known(b))
		return bot_wrote(b, author);
	if (!author || !*author || said_no(b, author))
		return 0;
	if (bz_valid_login(bz, author, &yes))
		return -1;
	if (yes) {
		learn(b, author, "valid_login");
		return 1;
	}
	XGROW(b->not_bot, b->nnot + 1, b->alloc);
	b->not_bot[b->nnot++] = xstrdup(author);
	return 0;
}

static bool row_exists(struct db *db, const char *sql, long id)
{
	sqlite3_stmt *st = db_stmt(db, sql);
	bool yes = false;

	if (st) {
		sqlite3_bind_int64(st, 1, id);
		yes = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
	}
	return yes;
}

/* The tracker could not answer (retry the poll), rather than would not say. */
static bool transient(const struct bz *bz)
{
	return bz->err == BZ_ERR_TRANSPORT || bz->err == BZ_ERR_SERVER ||
	       bz->err == BZ_ERR_LOGIN || bz->err == BZ_ERR_MALFORMED;
}

int bot_identify(struct bot *b, struct bz *bz, struct db *db, const struct bz_comment_list *cl)
{
	for (size_t i = 0; i < cl->n && !bot_known(b); i++)
		if (row_exists(db, sql_bot_posted, cl->v[i].id))
			learn(b, cl->v[i].creator, "posted");
	for (size_t i = 0; i < cl->n && !bot_known(b); i++) {
		const struct bz_comment *c = &cl->v[i];

		if (!bot_marker_line(c->text) || row_exists(db, sql_bot_comment_have, c->id))
			continue;
		if (bot_is(b, bz, c->creator) >= 0)
			continue;
		if (transient(bz))
			return -1;
		log_warn("poll: the tracker would not say whether %s is the bot's account (%s):"
			 " set [tracker] login; its comments are not taken for ours meanwhile",
			 c->creator, bz->errmsg.ptr);
		return 0;
	}
	return 0;
}

int bot_save(struct bot *b, struct db *db)
{
	sqlite3_stmt *st;
	int changed = 0;

	/* a configured login is never stored: it may change with the configuration */
	if (b->dirty && strcmp(b->how ? b->how : "", "config")) {
		st = db_stmt(db, sql_bot_save);
		if (!st)
			return -1;
		db_bind_text(st, 1, b->login.ptr);
		db_bind_text(st, 2, b->how ? b->how : "");
		sqlite3_bind_int(st, 3, b->whoami);
		db_bind_text(st, 4, b->key);
		if (db_step_done(db, st))
			return -1;
	}
	b->dirty = false;
	return bot_known(b) ? bot_refresh(db, b->login.ptr, &changed) : 0;
}

int bot_refresh(struct db *db, const char *login, int *changed)
{
	sqlite3_stmt *st = db_stmt(db, sql_bot_ours_login);
	bool same;

	*changed = 0;
	if (!st || !*login)
		return st ? 0 : -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return error("bot: cannot read tracker_state: %s", db_errmsg(db));
	}
	same = !strcmp(db_col_text(st, 0), login);
	sqlite3_reset(st);
	if (same)
		return 0;
	st = db_stmt(db, sql_bot_recompute);
	if (!st)
		return -1;
	db_bind_text(st, 1, login);
	if (db_step_done(db, st))
		return error("bot: cannot correct comments.is_ours: %s", db_errmsg(db));
	*changed = sqlite3_changes(db->h);
	st = db_stmt(db, sql_bot_set_ours_login);
	if (!st)
		return -1;
	db_bind_text(st, 1, login);
	if (db_step_done(db, st))
		return -1;
	if (*changed)
		log_info("tracker: %d stored comments corrected: ours are those by %s, whatever"
			 " markers the others carry", *changed, login);
	return 0;
}

int tracker_ours_refresh(struct db *db)
{
	struct buf err = BUF_INIT;
	struct bz bz;
	struct bot b;
	int changed = 0, ret = 0;

	/* without a usable [tracker] there is nothing to say yet; the poll says why */
	if (bz_init_config(&bz, NULL, &err)) {
		buf_release(&err);
		return 0;
	}
	bot_init(&b, &bz);
	if (bot_load(&b, db)) {
		ret = -1;
	} else if (bot_known(&b)) {
		ret = db_begin(db);
		if (!ret && bot_refresh(db, b.login.ptr, &changed)) {
			db_rollback(db);
			ret = -1;
		} else if (!ret) {
			ret = db_commit(db);
		}
	}
	bot_release(&b);
	bz_release(&bz);
	buf_release(&err);
	return ret;
}
