/*
 * mirror: the tracker's side of [triage] mirror = keywords.
 *
 * Bugzilla refuses a whole update when one keyword in it does not exist
 * (code 51, nothing of the update stored), so a tracker whose admin has not
 * created the bugbridge-<state> keywords would lose the whiteboard with
 * them.  So bugbridged asks the tracker for its keywords at start-up
 * (mirror_check) and remembers the missing ones in
 * tracker_state.keywords_missing; a refusal with code 51 does the same.
 * While some are missing, the poster sends each update without its
 * keywords (the whiteboard and status still land) and notes the refused
 * part on the outbox row (outbox.refused), which the overview lists.  The
 * next start-up check clears the note once an admin created the keywords.
 */
#include "mirror.h"
#include "bugzilla.h"
#include "config.h"
#include "log.h"
#include "redact.h"
#include "xalloc.h"
#include "tracker.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The states of triage/triage_state.c, each mirrored as bugbridge-<state>. */
static const char *const states[] = {
	"new", "needs-repro", "reproduced", "fix-candidate", "fix-verified",
	"not-reproducible", "duplicate",
};

DB_SQL(sql_mirror_missing_get, "SELECT keywords_missing FROM tracker_state WHERE id = 1");
DB_SQL(sql_mirror_missing_set, "UPDATE tracker_state SET keywords_missing = ? WHERE id = 1");

bool mirror_wants_keywords(void)
{
	int n = 0;
	char **list = config_split_list(cfg_str("triage.mirror"), &n);
	bool found = false;

	for (int i = 0; i < n; i++)
		found |= !strcasecmp(list[i], "keywords");
	config_list_free(list);
	return found;
}

char *mirror_keywords_missing(struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_mirror_missing_get);
	char *v = NULL;

	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = xstrdup(db_col_text(st, 0));
	sqlite3_reset(st);
	return v;
}

int mirror_note_missing(struct db *db, const char *why)
{
	sqlite3_stmt *st = db_stmt(db, sql_mirror_missing_set);

	if (!st)
		return -1;
	if (why)
		db_bind_text(st, 1, why);
	return db_step_done(db, st);
}

bool mirror_strip_keywords(const char *payload, struct buf *rest)
{
	json_object *o = json_tokener_parse(payload);
	bool had = o && json_object_object_get_ex(o, "keywords", NULL);

	buf_reset(rest);
	if (had) {
		json_object_object_del(o, "keywords");
		if (json_object_object_length(o))
			buf_addstr(rest, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	}
	json_object_put(o);
	return had;
}

/* {"fields": [{"values": [{"name": "regression"}, ...]}]}: is kw among them? */
static bool field_has(json_object *root, const char *kw)
{
	json_object *fields = NULL, *values = NULL;

	if (!json_object_object_get_ex(root, "fields", &fields) ||
	    !json_object_is_type(fields, json_type_array) || !json_object_array_length(fields) ||
	    !json_object_object_get_ex(json_object_array_get_idx(fields, 0), "values", &values))
		return false;
	for (size_t i = 0; i < json_object_array_length(values); i++) {
		json_object *v = json_object_array_get_idx(values, i), *name = NULL;

		if (json_object_object_get_ex(v, "name", &name) &&
		    !strcmp(json_object_get_string(name), kw))
			return true;
	}
	return false;
}

/* The bugbridge-* keywords the answer lacks, ", "-joined, into missing. */
static int list_missing(const char *body, struct buf *missing)
{
	json_object *root = json_tokener_parse(body), *fields = NULL;

	if (!root || !json_object_object_get_ex(root, "fields", &fields)) {
		json_object_put(root);
		return -1;
	}
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		char kw[64];

		snprintf(kw, sizeof(kw), "bugbridge-%s", states[i]);
		if (!field_has(root, kw))
			buf_addf(missing, "%s%s", missing->len ? ", " : "", kw);
	}
	json_object_put(root);
	return 0;
}

int mirror_check(struct db *db, const volatile sig_atomic_t *stop)
{
	struct buf err = BUF_INIT, body = BUF_INIT, missing = BUF_INIT;
	struct bz bz;
	int ret = -1;

	if (!mirror_wants_keywords())
		return mirror_note_missing(db, NULL);
	if (bz_init_config(&bz, stop, &err)) {
		redact_buf(&err);
		log_warn("mirror: cannot check the tracker's keywords: %s", err.ptr);
		goto out_err;
	}
	if (bz_field(&bz, "keywords", &body) || list_missing(body.ptr, &missing)) {
		log_warn("mirror: cannot read the tracker's keywords (%s); a refused keyword"
			 " will be left out of later updates", bz.errmsg.len ? bz.errmsg.ptr :
			 "GET /rest/field/bug/keywords: not a list of fields");
		goto out;
	}
	if (missing.len) {
		log_warn("mirror: [triage] mirror has keywords, but the tracker has no keyword %s;"
			 " until an admin creates them (Administration > Keywords) and bugbridged"
			 " restarts, only the other fields are mirrored", missing.ptr);
		ret = mirror_note_missing(db, missing.ptr);
	} else {
		log_info("mirror: the tracker has every bugbridge-* keyword");
		ret = mirror_note_missing(db, NULL);
	}
out:
	bz_release(&bz);
out_err:
	buf_release(&err);
	buf_release(&body);
	buf_release(&missing);
	return ret;
}
