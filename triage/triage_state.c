/*
 * triage_state: the per-bug triage state machine and its mirror in the
 * tracker.
 *
 *   new -> needs-repro -> reproduced -> fix-candidate -> fix-verified
 *                     \-> not-reproducible        duplicate (duplicates.c)
 *
 * Only evidence moves a bug: the unpatched baseline failing (reproduced),
 * a patch turning that failure into a pass (fix-candidate), the same patch
 * passing again on a re-run (fix-verified).  A baseline that passes without
 * a signature makes a new bug not-reproducible; later failing evidence
 * still reproduces it.  Infra errors say nothing and move nothing, and
 * `duplicate` is left to humans once set.
 *
 * The mirror is what admins chose in [triage] mirror: a "[bugbridge:
 * state]" tag in the whiteboard (replacing our previous tag, keeping the
 * rest), "bugbridge-<state>" keywords, and only with set_status = true a
 * status change.  Nothing here closes a bug unless set_status says so.
 */
#include "triage_state.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "outbox.h"

#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const state_names[] = {
	[TRIAGE_NEW] = "new",
	[TRIAGE_NEEDS_REPRO] = "needs-repro",
	[TRIAGE_REPRODUCED] = "reproduced",
	[TRIAGE_FIX_CANDIDATE] = "fix-candidate",
	[TRIAGE_FIX_VERIFIED] = "fix-verified",
	[TRIAGE_NOT_REPRODUCIBLE] = "not-reproducible",
	[TRIAGE_DUPLICATE] = "duplicate",
};

const char *triage_state_name(enum triage_state s)
{
	if ((unsigned)s >= sizeof(state_names) / sizeof(state_names[0]))
		return "new";
	return state_names[s];
}

int triage_state_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (name && !strcmp(name, state_names[i]))
			return (int)i;
	return -1;
}

static bool not_yet_reproduced(enum triage_state s)
{
	return s == TRIAGE_NEW || s == TRIAGE_NEEDS_REPRO || s == TRIAGE_NOT_REPRODUCIBLE;
}

enum triage_state triage_next(enum triage_state cur, const struct triage_fact *f)
{
	if (f->infra || cur == TRIAGE_DUPLICATE)
		return cur;
	/* a re-run of a fix decides whether the fix holds */
	if (f->is_retest && f->has_patch && f->patched_ran &&
	    (cur == TRIAGE_FIX_CANDIDATE || cur == TRIAGE_FIX_VERIFIED))
		return f->patched_passed ? TRIAGE_FIX_VERIFIED : TRIAGE_REPRODUCED;
	if (f->has_patch && f->baseline_ran && f->baseline_failed &&
	    f->patched_ran && f->patched_passed)
		return cur == TRIAGE_FIX_VERIFIED ? cur : TRIAGE_FIX_CANDIDATE;
	if (f->baseline_ran && f->baseline_failed)
		return not_yet_reproduced(cur) ? TRIAGE_REPRODUCED : cur;
	if (f->baseline_ran)
		return cur == TRIAGE_NEW || cur == TRIAGE_NEEDS_REPRO ?
			TRIAGE_NOT_REPRODUCIBLE : cur;
	return cur == TRIAGE_NEW ? TRIAGE_NEEDS_REPRO : cur;
}

static bool mirror_has(const char *what)
{
	int n = 0;
	char **list = config_split_list(cfg_str("triage.mirror"), &n);
	bool found = false;

	for (int i = 0; i < n; i++)
		if (!strcasecmp(list[i], what))
			found = true;
	config_list_free(list);
	return found;
}

void triage_whiteboard(const char *wb, enum triage_state s, struct buf *out)
{
	const char *p = wb;

	buf_reset(out);
	while (*p) {
		const char *tag = strstr(p, "[bugbridge:");
		const char *end = tag ? strchr(tag, ']') : NULL;

		if (!tag || !end) {
			buf_addstr(out, p);
			break;
		}
		buf_add(out, p, tag - p);
		p = end + 1;
	}
	/* collapse the blanks our old tag leaves behind */
	buf_trim(out);
	for (size_t i = 0; i + 1 < out->len; i++) {
		if (out->ptr[i] == ' ' && out->ptr[i + 1] == ' ') {
			memmove(out->ptr + i, out->ptr + i + 1, out->len - i);
			out->len--;
			i--;
		}
	}
	if (out->len)
		buf_addch(out, ' ');
	buf_addf(out, "[bugbridge: %s]", triage_state_name(s));
}

/* Our keyword for s, and the other bugbridge-* keywords the bug has. */
static void add_keywords(json_object *body, const char *keywords, enum triage_state s)
{
	json_object *kw = json_object_new_object();
	json_object *add = json_object_new_array();
	json_object *remove = json_object_new_array();
	char mine[64];
	char *copy = xstrdup(keywords ? keywords : "");
	char *save = NULL;

	snprintf(mine, sizeof(mine), "bugbridge-%s", triage_state_name(s));
	json_object_array_add(add, json_object_new_string(mine));
	for (char *k = strtok_r(copy, ", ", &save); k; k = strtok_r(NULL, ", ", &save))
		if (!strncmp(k, "bugbridge-", 10) && strcmp(k, mine))
			json_object_array_add(remove, json_object_new_string(k));
	free(copy);
	json_object_object_add(kw, "add", add);
	if (json_object_array_length(remove))
		json_object_object_add(kw, "remove", remove);
	else
		json_object_put(remove);
	json_object_object_add(body, "keywords", kw);
}

static void add_status(json_object *body, enum triage_state s, const char *status,
		       sqlite3_int64 dupe_of)
{
	switch (s) {
	case TRIAGE_REPRODUCED:
		if (status && !strcmp(status, "UNCONFIRMED"))
			json_object_object_add(body, "status", json_object_new_string("CONFIRMED"));
		break;
	case TRIAGE_FIX_VERIFIED:
		json_object_object_add(body, "status", json_object_new_string("RESOLVED"));
		json_object_object_add(body, "resolution", json_object_new_string("FIXED"));
		break;
	case TRIAGE_DUPLICATE:
		if (dupe_of)
			json_object_object_add(body, "dupe_of", json_object_new_int64(dupe_of));
		break;
	default:
		break;
	}
}

int triage_mirror_payload(enum triage_state s, const char *whiteboard,
			  const char *keywords, const char *status,
			  sqlite3_int64 dupe_of, struct buf *out)
{
	json_object *body = json_object_new_object();
	int ret = 1;

	buf_reset(out);
	if (mirror_has("whiteboard")) {
		struct buf wb = BUF_INIT;

		triage_whiteboard(whiteboard ? whiteboard : "", s, &wb);
		json_object_object_add(body, "whiteboard", json_object_new_string(wb.ptr));
		buf_release(&wb);
	}
	if (mirror_has("keywords"))
		add_keywords(body, keywords, s);
	if (cfg_bool("triage.set_status"))
		add_status(body, s, status, dupe_of);
	if (json_object_object_length(body)) {
		buf_addstr(out, json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
		ret = 0;
	}
	json_object_put(body);
	return ret;
}

DB_SQL(sql_state_bug,
       "SELECT triage_state, whiteboard, keywords, status FROM bugs WHERE id = ?");
DB_SQL(sql_state_set,
       "UPDATE bugs SET triage_state = ?, duplicate_of = ?, updated_at = strftime('%s', 'now')"
       " WHERE id = ?");
DB_SQL(sql_state_whiteboard, "UPDATE bugs SET whiteboard = ? WHERE id = ?");

static int queue_mirror(struct db *db, sqlite3_int64 bug_id, enum triage_state s,
			sqlite3_int64 cause_job, sqlite3_int64 dupe_of,
			const char *wb, const char *kw, const char *status)
{
	struct buf payload = BUF_INIT, marker = BUF_INIT, newwb = BUF_INIT;
	int ret = 0;

	if (triage_mirror_payload(s, wb, kw, status, dupe_of, &payload))
		goto out;
	buf_addf(&marker, "bugbridge-state: bug %lld %s job %lld", (long long)bug_id,
		 triage_state_name(s), (long long)cause_job);
	ret = outbox_add(db, "update", bug_id, cause_job, marker.ptr, payload.ptr);
	if (!ret && mirror_has("whiteboard")) {
		/* what we asked the tracker for, until the next poll shows it */
		sqlite3_stmt *st = db_stmt(db, sql_state_whiteboard);

		triage_whiteboard(wb, s, &newwb);
		if (!st)
			ret = -1;
		else {
			db_bind_text(st, 1, newwb.ptr);
			sqlite3_bind_int64(st, 2, bug_id);
			ret = db_step_done(db, st);
		}
	}
out:
	buf_release(&payload);
	buf_release(&marker);
	buf_release(&newwb);
	return ret;
}

int triage_set_state(struct db *db, sqlite3_int64 bug_id, enum triage_state s,
		     sqlite3_int64 cause_job, sqlite3_int64 dupe_of)
{
	sqlite3_stmt *st = db_stmt(db, sql_state_bug);
	char *wb = NULL, *kw = NULL, *status = NULL;
	int cur, ret = -1, rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : error("triage: cannot read bug %lld: %s",
						      (long long)bug_id, db_errmsg(db));
	}
	cur = triage_state_parse(db_col_text(st, 0));
	wb = xstrdup(db_col_text(st, 1));
	kw = xstrdup(db_col_text(st, 2));
	status = xstrdup(db_col_text(st, 3));
	sqlite3_reset(st);
	if (cur == (int)s) {
		ret = 0;
		goto out;
	}
	st = db_stmt(db, sql_state_set);
	if (!st)
		goto out;
	db_bind_text(st, 1, triage_state_name(s));
	if (dupe_of)
		sqlite3_bind_int64(st, 2, dupe_of);
	sqlite3_bind_int64(st, 3, bug_id);
	if (db_step_done(db, st))
		goto out;
	log_info("triage: bug %lld %s -> %s (job %lld)", (long long)bug_id,
		 triage_state_name(cur < 0 ? TRIAGE_NEW : cur), triage_state_name(s),
		 (long long)cause_job);
	ret = queue_mirror(db, bug_id, s, cause_job, dupe_of, wb, kw, status);
out:
	free(wb);
	free(kw);
	free(status);
	return ret;
}
