/*
 * tracker_check: what `bugbridge config check` asks the tracker (tracker.h):
 * does [tracker] url answer as a Bugzilla, is the key valid, whose is it,
 * and in which groups is that account.
 *
 * Whose: GET /rest/whoami where the tracker has it (5.1+, BMO); upstream
 * 5.0 and 5.2 have no such call (404, code 32614), and there nothing tells
 * a key's owner but GET /rest/valid_login?login=L, which says whether the
 * key is L's: so [tracker] login is confirmed, or, without one, the login
 * bugbridged learned for this url and key (bot.h, kept in the database);
 * failing both, the key is shown valid (a bad key is refused, code 306, by
 * any call with it) and its owner unknown.  Groups: GET /rest/user?names=L, which shows an account its
 * own groups.  Each question is asked once (no retries): what does not
 * answer now is the finding.
 */
#include "tracker.h"
#include "bot.h"
#include "bugzilla.h"
#include "check.h"
#include "config.h"

#include <string.h>
#include <strings.h>
#include <unistd.h>

/* valid_login for a name no account has: false for a good key, 306 for a bad one */
#define CHECK_NOBODY "bugbridge-config-check@invalid"

/* What bugbridged learned of this (url, key)'s account (only read); "" none. */
static void learned(const struct bz *bz, struct buf *login, const char **how)
{
	struct buf err = BUF_INIT;
	struct db db = { 0 };
	struct bot b;

	bot_init(&b, bz);
	if (!access(cfg_str("db.path"), R_OK) && !db_open(&db, cfg_str("db.path"), &err) &&
	    db_version(&db) == db_latest_version() && !bot_load(&b, &db) && bot_known(&b)) {
		buf_addstr(login, b.login.ptr);
		*how = b.how;
	}
	db_close(&db);
	bot_release(&b);
	buf_release(&err);
}

/* The key's owner into login ("" when the tracker cannot say); -1: key refused. */
static int key_owner(struct check *c, struct bz *bz, struct buf *login)
{
	const char *mine = cfg_str("tracker.login"), *how = "config";
	bool yes = false;

	if (!bz_whoami(bz, login)) {
		if (*mine && strcasecmp(mine, login->ptr)) {
			check_fail(c, "tracker key", "valid, but %s's, not the key of [tracker]"
				   " login '%s'", login->ptr, mine);
			return -1;
		}
		check_ok(c, "tracker key", "valid, %s's (GET /rest/whoami)", login->ptr);
		return 0;
	}
	if (bz->err != BZ_ERR_NOT_FOUND)
		goto refused;
	/* 5.0, 5.2 */
	if (!*mine)
		learned(bz, login, &how);
	if (bz_valid_login(bz, *mine ? mine : login->len ? login->ptr : CHECK_NOBODY, &yes))
		goto refused;
	if (*mine && !yes) {
		check_fail(c, "tracker key", "valid, but not the key of [tracker] login '%s'"
			   " (GET /rest/valid_login)", mine);
		return -1;
	}
	if (!*mine && login->len && !yes) {
		check_fail(c, "tracker key", "valid, but no longer %s's, whom bugbridged learned"
			   " for it (%s)", login->ptr, how);
		return -1;
	}
	if (!*mine && !login->len) {
		check_warn(c, "tracker key", "valid; whose, this tracker does not say (no"
			   " /rest/whoami before Bugzilla 5.1) and bugbridged has not learned yet:"
			   " set [tracker] login to the bot's account");
		return 0;
	}
	if (*mine)
		buf_addstr(login, mine);
	check_ok(c, "tracker key", "valid, %s's (%s%s; GET /rest/valid_login confirms)",
		 login->ptr, *mine ? "[tracker] login" : "learned by bugbridged: ",
		 *mine ? "" : how);
	return 0;
refused:
	check_fail(c, "tracker key", "%s%s", bz->err == BZ_ERR_LOGIN ? "refused: " : "",
		   bz->errmsg.ptr);
	return -1;
}

static void groups(struct check *c, struct bz *bz, const char *login)
{
	struct bz_user_list users = { 0 };

	if (bz_users(bz, &login, 1, &users))
		check_fail(c, "tracker groups", "%s", bz->errmsg.ptr);
	else if (!users.n)
		check_fail(c, "tracker groups", "the tracker knows no account %s", login);
	else if (!users.v[0].groups)
		check_warn(c, "tracker groups", "the tracker does not show %s's groups", login);
	else
		check_ok(c, "tracker groups", "%s is in %s", login,
			 *users.v[0].groups ? users.v[0].groups : "no group");
	bz_user_list_release(&users);
}

void tracker_check(struct check *c)
{
	struct buf err = BUF_INIT, version = BUF_INIT, login = BUF_INIT;
	struct bz bz;

	if (bz_init_config(&bz, NULL, &err)) {
		check_fail(c, "tracker", "%s", err.ptr);
		buf_release(&err);
		return;
	}
	bz.http.opts.retries = 0;
	if (bz_version(&bz, &version)) {
		check_fail(c, "tracker", "%s%s%s", strstr(bz.errmsg.ptr, bz.url) ? "" : bz.url,
			   strstr(bz.errmsg.ptr, bz.url) ? "" : ": ", bz.errmsg.ptr);
		check_skip(c, "tracker key", "the tracker did not answer");
		goto out;
	}
	check_ok(c, "tracker", "%s answers (Bugzilla %s)", bz.url, version.ptr);
	if (!*bz.api_key)
		check_fail(c, "tracker key", "none ([tracker] api_key or api_key_file): bugbridge"
			   " would read public bugs only and post nothing");
	else if (!key_owner(c, &bz, &login) && login.len)
		groups(c, &bz, login.ptr);
out:
	bz_release(&bz);
	buf_release(&err);
	buf_release(&version);
	buf_release(&login);
}
