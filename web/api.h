/*
 * api: helpers shared by the JSON API handlers (api_*.c).
 *
 * Rows become objects by column name: the SELECT's aliases are the API's
 * field names, so the query documents the output.  SQL NULL becomes JSON
 * null, integers stay integers.  json-c references: every function that
 * returns a json_object hands over one reference to the caller; api_send
 * takes it back.
 */
#ifndef BB_API_H
#define BB_API_H

#include <json-c/json.h>
#include "http.h"

/* The current row of st as an object keyed by column names. */
struct json_object *api_row(sqlite3_stmt *st);
/* Step st to the end, collecting api_row()s; NULL on a database error. */
struct json_object *api_rows(struct db *db, sqlite3_stmt *st);
/* o[key] = api_rows() of sql with id bound as its one parameter. */
int api_add_rows(struct db *db, struct json_object *o, const char *key,
		 const char *sql, sqlite3_int64 id);
/* Serialise o into resp as application/json with status; drops o. */
int api_send(struct http_response *resp, int status, struct json_object *o);
/* Parse ?name= as a count in [1, max], default def; -1 (and a 400) if bad. */
int api_limit(struct http_request *req, struct http_response *resp, const char *name,
	      long def, long max, long *out);

#endif
