/*
 * bot: which tracker account is bugbridge's own (bot.c).
 *
 * A comment is ours only when the bot's account wrote it.  Anyone can type
 * a marker line ("bugbridge-result: job 42"), so a comment's text proves
 * nothing: not that it is ours (comments.is_ours, which the bug page, the
 * stale-bug check, owners, candidates and commands read), not that a write
 * already landed (outbox_post.c).  The bot's login is, in order:
 *
 *   - [tracker] login, when it is set;
 *   - else what the tracker said for this (url, key), remembered in
 *     tracker_state (schema/0019_ours.sql): GET /rest/whoami where the
 *     tracker has it (5.1+, BMO; asked once per key); the author of a
 *     comment whose id the tracker gave back when we posted it
 *     (outbox.remote_id); or GET /rest/valid_login about the author of a
 *     comment that carries a marker (5.0 and 5.2 lack whoami), until one
 *     answer is yes.
 *
 * Until the login is known, no comment is ours.  Once it is known (or when
 * it changes), every stored comment's is_ours is computed again
 * (bot_refresh); a comment whose ownership changes then is marked handled,
 * so that a command in an old comment is not acted on late.
 */
#ifndef BB_BOT_H
#define BB_BOT_H

#include <stdbool.h>
#include "bugzilla.h"
#include "db.h"
#include "sha256.h"

struct bot {
	struct buf login;		/* the bot's login; "" while unknown */
	const char *how;		/* config, whoami, posted, valid_login; NULL unknown */
	char key[SHA256_HEX_LEN];	/* the (url, key) fingerprint it belongs to */
	int whoami;			/* -1 not asked, 0 the tracker lacks it, 1 it has it */
	bool dirty;			/* learned since bot_load: bot_save stores it */
	char **not_bot;			/* valid_login said no (this run) */
	size_t nnot, alloc;
};

/* The (url, key) fingerprint: sha256 of both, so the key never leaves it. */
void bot_key(const struct bz *bz, char hex[SHA256_HEX_LEN]);

/* [tracker] login, or nothing known yet; release with bot_release(). */
void bot_init(struct bot *b, const struct bz *bz);
void bot_release(struct bot *b);
/* What the tracker said before for this (url, key), unless login is configured. */
int bot_load(struct bot *b, struct db *db);

static inline bool bot_known(const struct bot *b) { return b->login.len > 0; }
/* Did the bot's account write a comment of author?  false while unknown. */
bool bot_wrote(const struct bot *b, const char *author);
/* Does text have a line "bugbridge-<word>:" (what the bot's comments carry)? */
bool bot_marker_line(const char *text);

/*
 * Is author the bot's account?  1 yes, 0 no, -1 the tracker could not say
 * (bz tells why).  Asks GET /rest/whoami once per key, else valid_login
 * once per author and run; what it learns is kept for bot_save().
 */
int bot_is(struct bot *b, struct bz *bz, const char *author);

/*
 * Learn the login from a poll's comments, reading only: a comment whose id
 * one of our posts got back is the bot's; failing that, the author of each
 * comment not stored yet that carries a marker line is asked about
 * (bot_is).  -1 when the tracker could not answer (the poll then fails and
 * is retried); a tracker that refuses to say is warned about, not an error.
 */
int bot_identify(struct bot *b, struct bz *bz, struct db *db, const struct bz_comment_list *cl);

/*
 * In the caller's transaction: remember what was learned, and compute
 * is_ours again for every stored comment if the login is known and differs
 * from the one it was computed for.
 */
int bot_save(struct bot *b, struct db *db);
/* The same correction with login (when not ""); *changed how many comments moved. */
int bot_refresh(struct db *db, const char *login, int *changed);

#endif
