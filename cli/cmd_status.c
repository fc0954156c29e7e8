/*
 * bugbridge status: the numbers an operator checks first.  --json prints the
 * same as one object for scripts.  Never prints a secret: only counts,
 * states and the last errors (which are redacted where they are stored).
 */
#include "app.h"
#include "cli.h"
#include "config.h"
#include "db.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

DB_SQL(sql_status_bugs,
       "SELECT count(*), coalesce(sum(is_open), 0), coalesce(sum(needs_attention), 0) FROM bugs");
DB_SQL(sql_status_jobs, "SELECT state, count(*) FROM jobs GROUP BY state");
DB_SQL(sql_status_outbox, "SELECT state, count(*) FROM outbox GROUP BY state");
DB_SQL(sql_status_outbox_err,
       "SELECT kind, bug_id, last_error FROM outbox"
       " WHERE state IN ('failed', 'held') OR (state = 'pending' AND attempts > 0)"
       " ORDER BY id DESC LIMIT 5");
DB_SQL(sql_status_poll,
       "SELECT cursor, last_poll, last_ok, last_error, requests FROM poll_state WHERE id = 1");

static const char usage[] =
	"usage: bugbridge status [--json]\n"
	"\n"
	"Bug, job queue, outbox and poller counts from the database.\n";

static json_object *group_counts(struct db *db, const char *sql, const char *const *states)
{
	json_object *obj = json_object_new_object();
	sqlite3_stmt *st;

	for (int i = 0; states[i]; i++)
		json_object_object_add(obj, states[i], json_object_new_int(0));
	st = db_stmt(db, sql);
	while (st && sqlite3_step(st) == SQLITE_ROW)
		json_object_object_add(obj, db_col_text(st, 0),
				       json_object_new_int(sqlite3_column_int(st, 1)));
	return obj;
}

static json_object *collect(struct db *db)
{
	static const char *const job_states[] = { "queued", "running", "done", "cancelled", NULL };
	static const char *const outbox_states[] = { "pending", "sending", "sent", "failed", "held", NULL };
	json_object *root = json_object_new_object(), *bugs = json_object_new_object();
	json_object *poll = json_object_new_object(), *problems = json_object_new_array();
	sqlite3_stmt *st;

	json_object_object_add(root, "database", json_object_new_string(cfg_str("db.path")));
	json_object_object_add(root, "schema_version", json_object_new_int(db_version(db)));
	st = db_stmt(db, sql_status_bugs);
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object_object_add(bugs, "watched", json_object_new_int(sqlite3_column_int(st, 0)));
		json_object_object_add(bugs, "open", json_object_new_int(sqlite3_column_int(st, 1)));
		json_object_object_add(bugs, "needs_attention",
				       json_object_new_int(sqlite3_column_int(st, 2)));
	}
	json_object_object_add(root, "bugs", bugs);
	json_object_object_add(root, "jobs", group_counts(db, sql_status_jobs, job_states));
	json_object_object_add(root, "outbox", group_counts(db, sql_status_outbox, outbox_states));
	st = db_stmt(db, sql_status_outbox_err);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object *p = json_object_new_object();
		json_object_object_add(p, "kind", json_object_new_string(db_col_text(st, 0)));
		json_object_object_add(p, "bug", json_object_new_int64(sqlite3_column_int64(st, 1)));
		json_object_object_add(p, "error", json_object_new_string(db_col_text(st, 2)));
		json_object_array_add(problems, p);
	}
	json_object_object_add(root, "outbox_problems", problems);
	st = db_stmt(db, sql_status_poll);
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object_object_add(poll, "cursor", json_object_new_string(db_col_text(st, 0)));
		json_object_object_add(poll, "last_poll", json_object_new_int64(sqlite3_column_int64(st, 1)));
		json_object_object_add(poll, "last_ok", json_object_new_int64(sqlite3_column_int64(st, 2)));
		json_object_object_add(poll, "last_error", json_object_new_string(db_col_text(st, 3)));
		json_object_object_add(poll, "requests", json_object_new_int64(sqlite3_column_int64(st, 4)));
	}
	json_object_object_add(root, "poll", poll);
	return root;
}

static void print_counts(const char *label, json_object *obj)
{
	const char *sep = "";

	printf("%-9s", label);
	json_object_object_foreach(obj, key, val) {
		printf("%s%d %s", sep, json_object_get_int(val), key);
		sep = ", ";
	}
	putchar('\n');
}

static void print_time(const char *label, json_object *v)
{
	time_t t = json_object_get_int64(v);
	char stamp[32] = "never";

	if (t)
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	printf("%s %s", label, stamp);
}

static void print_text(json_object *root)
{
	json_object *bugs, *poll, *problems;

	json_object_object_get_ex(root, "bugs", &bugs);
	json_object_object_get_ex(root, "poll", &poll);
	json_object_object_get_ex(root, "outbox_problems", &problems);
	printf("database %s (schema %d)\n",
	       json_object_get_string(json_object_object_get(root, "database")),
	       json_object_get_int(json_object_object_get(root, "schema_version")));
	print_counts("bugs", bugs);
	print_counts("jobs", json_object_object_get(root, "jobs"));
	print_counts("outbox", json_object_object_get(root, "outbox"));
	for (size_t i = 0; i < json_object_array_length(problems); i++) {
		json_object *p = json_object_array_get_idx(problems, i);
		printf("  %s for bug %d: %s\n",
		       json_object_get_string(json_object_object_get(p, "kind")),
		       json_object_get_int(json_object_object_get(p, "bug")),
		       json_object_get_string(json_object_object_get(p, "error")));
	}
	print_time("poll     last", json_object_object_get(poll, "last_poll"));
	print_time(", last ok", json_object_object_get(poll, "last_ok"));
	printf(", cursor %s\n", *json_object_get_string(json_object_object_get(poll, "cursor")) ?
	       json_object_get_string(json_object_object_get(poll, "cursor")) : "none");
	if (*json_object_get_string(json_object_object_get(poll, "last_error")))
		printf("  last error: %s\n",
		       json_object_get_string(json_object_object_get(poll, "last_error")));
}

int cmd_status(int argc, char **argv)
{
	struct buf err = BUF_INIT;
	bool json = false;
	json_object *root;
	struct db db;

	if (cmd_wants_help(argc, argv, usage))
		return 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else {
			fprintf(stderr, "bugbridge status: unknown argument '%s'\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (app_open_db(&db, false, &err)) {
		fprintf(stderr, "bugbridge: %s\n", err.ptr);
		buf_release(&err);
		return 1;
	}
	root = collect(&db);
	if (json)
		puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		print_text(root);
	json_object_put(root);
	db_close(&db);
	return 0;
}
