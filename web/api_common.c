/*
 * api_common: turning SQLite rows into JSON and sending it.  See api.h.
 */
#include "api.h"
#include "log.h"

#include <stdlib.h>

static struct json_object *column(sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		return json_object_new_int64(sqlite3_column_int64(st, col));
	case SQLITE_FLOAT:
		return json_object_new_double(sqlite3_column_double(st, col));
	case SQLITE_NULL:
		return NULL;
	default:
		return json_object_new_string(db_col_text(st, col));
	}
}

struct json_object *api_row(sqlite3_stmt *st)
{
	struct json_object *o = json_object_new_object();
	int n = sqlite3_column_count(st);

	for (int i = 0; i < n; i++)
		json_object_object_add(o, sqlite3_column_name(st, i), column(st, i));
	return o;
}

struct json_object *api_rows(struct db *db, sqlite3_stmt *st)
{
	struct json_object *a = json_object_new_array();
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_object_array_add(a, api_row(st));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		error("http: api: %s", db_errmsg(db));
		json_object_put(a);
		return NULL;
	}
	return a;
}

int api_send(struct http_response *resp, int status, struct json_object *o)
{
	buf_reset(&resp->body);
	buf_addstr(&resp->body, json_object_to_json_string_ext(o,
		   JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	buf_addch(&resp->body, '\n');
	json_object_put(o);
	resp->status = status;
	resp->content_type = "application/json";
	return 0;
}

int api_limit(struct http_request *req, struct http_response *resp, const char *name,
	      long def, long max, long *out)
{
	const char *arg = http_query(req, name);
	sqlite3_int64 v;

	*out = def;
	if (!arg)
		return 0;
	if (http_parse_id(arg, &v) || v > max) {
		http_error(resp, 400, "bad %s: want a number from 1 to %ld", name, max);
		return -1;
	}
	*out = (long)v;
	return 0;
}

int api_add_rows(struct db *db, struct json_object *o, const char *key,
		 const char *sql, sqlite3_int64 id)
{
	sqlite3_stmt *st = db_stmt(db, sql);
	struct json_object *rows;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rows = api_rows(db, st);
	if (!rows)
		return -1;
	json_object_object_add(o, key, rows);
	return 0;
}
