/*
 * Unit tests for server/bugzilla_json.c: decoding the bodies a real
 * Bugzilla 5.2 sent (../shared/bugzilla/recordings/NN-name.json), plus the
 * variations other versions send and bodies that must be refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bugzilla.h"

static char shared_dir[4096];

static int find_shared(void **state)
{
	const char *env = getenv("BB_SHARED"), *src = getenv("BB_SRC");
	const char *tries[4] = { env, NULL, "../shared", "/work/shared" };
	char from_src[4096];

	(void)state;
	if (src) {
		snprintf(from_src, sizeof(from_src), "%s/../shared", src);
		tries[1] = from_src;
	}
	for (int i = 0; i < 4; i++) {
		char probe[4200];

		if (!tries[i])
			continue;
		snprintf(probe, sizeof(probe), "%s/bugzilla/recordings/01-version.json", tries[i]);
		if (!access(probe, R_OK)) {
			snprintf(shared_dir, sizeof(shared_dir), "%s", tries[i]);
			return 0;
		}
	}
	fprintf(stderr, "cannot find ../shared/bugzilla/recordings (set BB_SHARED)\n");
	return -1;
}

/* The response body of recording `name`, and its HTTP status. */
static char *recorded(const char *name, long *status)
{
	char path[4300];
	json_object *rec, *resp, *body, *st;
	char *out;

	snprintf(path, sizeof(path), "%s/bugzilla/recordings/%s.json", shared_dir, name);
	rec = json_object_from_file(path);
	assert_non_null(rec);
	assert_true(json_object_object_get_ex(rec, "response", &resp));
	assert_true(json_object_object_get_ex(resp, "body", &body));
	if (status && json_object_object_get_ex(resp, "status", &st))
		*status = json_object_get_int(st);
	out = strdup(json_object_get_string(body));
	json_object_put(rec);
	return out;
}

static void test_version_and_time(void **state)
{
	struct buf v = BUF_INIT, err = BUF_INIT;
	char *body = recorded("01-version", NULL);

	(void)state;
	assert_int_equal(bz_parse_version(body, &v, &err), 0);
	assert_string_equal(v.ptr, "5.2");
	free(body);
	buf_reset(&v);
	body = recorded("02-time", NULL);
	assert_int_equal(bz_parse_time(body, &v, &err), 0);
	assert_string_equal(v.ptr, "2026-12-03T08:33:41Z");
	free(body);
	/* an HTML page or another JSON service is not a Bugzilla */
	buf_reset(&v);
	assert_int_equal(bz_parse_version("<html><body>Directory listing</body></html>", &v, &err), -1);
	assert_non_null(strstr(err.ptr, "not JSON"));
	buf_reset(&err);
	assert_int_equal(bz_parse_version("{\"name\":\"something else\"}", &v, &err), -1);
	assert_string_equal(err.ptr, "version: expected string, got null");
	buf_release(&v);
	buf_release(&err);
}

static void test_bug_full(void **state)
{
	struct bz_bug_list bugs = { 0 };
	struct buf err = BUF_INIT;
	char *body = recorded("03-bug-get-anon", NULL);

	(void)state;
	assert_int_equal(bz_parse_bugs(body, &bugs, &err), 0);
	assert_int_equal(bugs.n, 1);
	assert_int_equal(bugs.v[0].id, 9370);
	assert_string_equal(bugs.v[0].product, "IO/Storage");
	assert_string_equal(bugs.v[0].component, "SCSI");
	assert_string_equal(bugs.v[0].summary,
			    "v2.6.24-rc2-409-g9418d5d: attempt to access beyond end of device");
	assert_string_equal(bugs.v[0].status, "UNCONFIRMED");
	assert_string_equal(bugs.v[0].resolution, "");
	assert_string_equal(bugs.v[0].keywords, "regression");
	assert_string_equal(bugs.v[0].creator, "user@example.com");
	assert_string_equal(bugs.v[0].last_change_time, "2026-12-03T08:33:40Z");
	assert_true(bugs.v[0].is_open);
	free(body);
	/* the path form adds "faults" and "update_token": still one bug */
	body = recorded("04-bug-get-path-apikey", NULL);
	assert_int_equal(bz_parse_bugs(body, &bugs, &err), 0);
	assert_int_equal(bugs.n, 2);
	assert_int_equal(bugs.v[1].id, 9370);
	free(body);
	bz_bug_list_release(&bugs);
	buf_release(&err);
}

/* Groups of a private bug (recording 30), and GET /rest/user with and without them. */
static void test_groups_and_users(void **state)
{
	struct bz_bug_list bugs = { 0 };
	struct bz_user_list users = { 0 };
	struct buf err = BUF_INIT;
	char *body = recorded("30-private-bug-admin-query", NULL);

	(void)state;
	assert_int_equal(bz_parse_bugs(body, &bugs, &err), 0);
	assert_int_equal(bugs.v[0].id, 9373);
	assert_string_equal(bugs.v[0].groups, "kernel-security");
	free(body);
	body = recorded("03-bug-get-anon", NULL);
	assert_int_equal(bz_parse_bugs(body, &bugs, &err), 0);
	assert_string_equal(bugs.v[1].groups, "");
	free(body);
	body = recorded("24-user-get", NULL);
	assert_int_equal(bz_parse_users(body, &users, &err), 0);
	assert_int_equal(users.n, 1);
	assert_string_equal(users.v[0].name, "bot@example.com");
	assert_string_equal(users.v[0].groups, "bz_canusewhines, canconfirm, editbugs");
	free(body);
	/* without the right to see them (anonymous): unknown, not "none" */
	body = recorded("52-err-header-auth-ignored-read", NULL);
	assert_int_equal(bz_parse_users(body, &users, &err), 0);
	assert_int_equal(users.n, 2);
	assert_null(users.v[1].groups);
	free(body);
	assert_int_equal(bz_parse_users("{\"users\": [{\"name\": \"x\", \"groups\": [1]}]}",
					&users, &err), -1);
	assert_int_equal(users.n, 2);
	assert_int_equal(bz_parse_users("[]", &users, &err), -1);
	bz_bug_list_release(&bugs);
	bz_user_list_release(&users);
	buf_release(&err);
}

/* Who the key is: valid_login (recording 23), whoami (not in 5.2: 33; BMO's shape). */
static void test_whoami_valid_login(void **state)
{
	struct buf login = BUF_INIT, err = BUF_INIT, msg = BUF_INIT;
	long status = 0, code = 0;
	bool yes = false;
	char *body = recorded("23-valid-login", NULL);

	(void)state;
	assert_int_equal(bz_parse_valid_login(body, &yes, &err), 0);
	assert_true(yes);
	free(body);
	assert_int_equal(bz_parse_valid_login("{\"result\":false}", &yes, &err), 0);
	assert_false(yes);
	assert_int_equal(bz_parse_valid_login("{\"result\":1}", &yes, &err), -1);
	body = recorded("33-whoami-missing", &status);
	assert_int_equal(status, 404);
	assert_int_equal(bz_parse_error(body, &code, &msg), 0);
	assert_int_equal(code, 32614);
	assert_int_equal(bz_err_from_code(code), BZ_ERR_NOT_FOUND);
	free(body);
	assert_int_equal(bz_parse_whoami("{\"id\":2,\"real_name\":\"Kernel Bot\",\"nick\":\"bot\","
					 "\"name\":\"bot@example.com\",\"mfa_status\":false}",
					 &login, &err), 0);
	assert_string_equal(login.ptr, "bot@example.com");
	assert_int_equal(bz_parse_whoami("{\"id\":2,\"name\":\"\"}", &login, &err), -1);
	assert_int_equal(bz_parse_whoami("{\"id\":2}", &login, &err), -1);
	buf_release(&login);
	buf_release(&err);
	buf_release(&msg);
}

static void test_bug_search_shapes(void **state)
{
	struct bz_bug_list bugs = { 0 };
	struct buf err = BUF_INIT;
	char *body = recorded("05-bug-get-include-fields", NULL);

	(void)state;
	assert_int_equal(bz_parse_bugs(body, &bugs, &err), 0);
	assert_int_equal(bugs.n, 3);
	assert_int_equal(bugs.v[2].id, 9372);
	assert_string_equal(bugs.v[1].component, "Block Layer");
	/* include_fields left these out: they read as empty, not as an error */
	assert_string_equal(bugs.v[2].creator, "");
	free(body);
	bz_bug_list_release(&bugs);
	body = recorded("10-bug-search-last-change-time", NULL);
	assert_int_equal(bz_parse_bugs(body, &bugs, &err), 0);
	assert_int_equal(bugs.n, 3);
	assert_string_equal(bugs.v[0].last_change_time, "2026-12-03T08:33:40Z");
	free(body);
	bz_bug_list_release(&bugs);
	body = recorded("13-bug-search-last-change-time-none", NULL);
	assert_int_equal(bz_parse_bugs(body, &bugs, &err), 0);
	assert_int_equal(bugs.n, 0);
	free(body);
	bz_bug_list_release(&bugs);
	buf_release(&err);
}

static void test_comments(void **state)
{
	struct bz_comment_list c = { 0 };
	struct buf err = BUF_INIT;
	char *body = recorded("15-comments-get", NULL);

	(void)state;
	assert_int_equal(bz_parse_comments(body, 9370, &c, &err), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.v[0].id, 1);
	assert_int_equal(c.v[0].count, 0);
	assert_int_equal(c.v[0].attachment_id, 0);
	assert_string_equal(c.v[1].creator, "admin@example.com");
	assert_int_equal(c.v[2].attachment_id, 1);
	assert_string_equal(c.v[2].time, "2026-12-03T08:33:40Z");
	assert_false(c.v[2].is_private);
	assert_non_null(strstr(c.v[2].text, "Created attachment 1\n"));
	/* asking for the wrong bug is a shape error naming the member */
	assert_int_equal(bz_parse_comments(body, 9371, &c, &err), -1);
	assert_string_equal(err.ptr, "bugs.9371: expected object, got null");
	assert_int_equal(c.n, 3);
	free(body);
	bz_comment_list_release(&c);
	body = recorded("17-comments-new-since", NULL);
	assert_int_equal(bz_parse_comments(body, 9370, &c, &err), 0);
	assert_int_equal(c.n, 0);
	free(body);
	bz_comment_list_release(&c);
	buf_release(&err);
}

static void test_attachments(void **state)
{
	struct bz_attachment_list a = { 0 };
	struct buf err = BUF_INIT, seed = BUF_INIT;
	char path[4300];
	char *body = recorded("19-attachments-get", NULL);

	(void)state;
	assert_int_equal(bz_parse_attachments(body, 9370, &a, &err), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].id, 1);
	assert_true(a.v[0].is_patch);		/* sent as the integer 1 */
	assert_false(a.v[0].is_obsolete);	/* the integer 0 */
	assert_true(a.v[0].has_data);
	assert_int_equal(a.v[0].size, 12302);
	assert_int_equal(a.v[0].data_len, 12302);
	assert_string_equal(a.v[0].file_name, "0001-scsi-revert-get-rid-of-scsi_cmnd-done.patch");
	/* the decoded data is the seed patch byte for byte */
	snprintf(path, sizeof(path),
		 "%s/seeds/001-patch-scsi-revert-scsi-get-rid-of-scsi-cmnd-done.patch", shared_dir);
	assert_int_equal(buf_read_file(&seed, path), 0);
	assert_int_equal(seed.len, a.v[0].data_len);
	assert_memory_equal(seed.ptr, a.v[0].data, seed.len);
	free(body);
	bz_attachment_list_release(&a);
	body = recorded("20-attachments-get-nodata", NULL);
	assert_int_equal(bz_parse_attachments(body, 9372, &a, &err), 0);
	assert_int_equal(a.n, 2);
	assert_true(a.v[0].is_obsolete);
	assert_true(a.v[0].is_patch);
	assert_false(a.v[1].is_patch);
	assert_false(a.v[1].has_data);
	assert_string_equal(a.v[1].file_name, "sd-v2.txt");
	free(body);
	bz_attachment_list_release(&a);
	body = recorded("21-attachment-get-by-id", NULL);
	assert_int_equal(bz_parse_attachment_map(body, &a, &err), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].bug_id, 9372);
	free(body);
	bz_attachment_list_release(&a);
	/* a nonexistent attachment: 200 with empty maps, no items */
	body = recorded("63-err-attachment-not-found", NULL);
	assert_int_equal(bz_parse_attachment_map(body, &a, &err), 0);
	assert_int_equal(a.n, 0);
	free(body);
	buf_release(&seed);
	buf_release(&err);
}

/* 5.1+ and BMO send the flags as booleans. */
static void test_attachment_boolean_flags(void **state)
{
	static const char body[] =
		"{\"bugs\":{\"9\":[{\"id\":4,\"is_patch\":true,\"is_obsolete\":false,"
		"\"is_private\":false,\"data\":\"ZGlmZg==\"}]},\"attachments\":{}}";
	struct bz_attachment_list a = { 0 };
	struct buf err = BUF_INIT;

	(void)state;
	assert_int_equal(bz_parse_attachments(body, 9, &a, &err), 0);
	assert_true(a.v[0].is_patch);
	assert_false(a.v[0].is_obsolete);
	assert_int_equal(a.v[0].data_len, 4);
	assert_memory_equal(a.v[0].data, "diff", 4);
	assert_int_equal(a.v[0].bug_id, 9);
	bz_attachment_list_release(&a);
	buf_release(&err);
}

static void test_statuses(void **state)
{
	struct bz_status_list s = { 0 };
	struct buf err = BUF_INIT;
	char *body = recorded("25-field-bug-status", NULL);
	int open = 0, closed = 0;

	(void)state;
	assert_int_equal(bz_parse_statuses(body, &s, &err), 0);
	assert_int_equal(s.n, 5);
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].is_open)
			open++;
		else
			closed++;
		if (!strcmp(s.v[i].name, "RESOLVED"))
			assert_false(s.v[i].is_open);
		if (!strcmp(s.v[i].name, "IN_PROGRESS"))
			assert_true(s.v[i].is_open);
	}
	assert_int_equal(open, 3);
	assert_int_equal(closed, 2);
	free(body);
	bz_status_list_release(&s);
	buf_release(&err);
}

static void expect_error(const char *rec, long want_code, enum bz_err want, const char *msg)
{
	struct buf m = BUF_INIT;
	long code, status = 0;
	char *body = recorded(rec, &status);

	assert_int_equal(bz_parse_error(body, &code, &m), 0);
	assert_int_equal(code, want_code);
	assert_int_equal(bz_err_from_code(code), want);
	assert_non_null(strstr(m.ptr, msg));
	assert_true(status >= 400);
	free(body);
	buf_release(&m);
}

static void test_errors(void **state)
{
	struct buf m = BUF_INIT;
	long code;
	char *body;

	(void)state;
	expect_error("53-err-bad-api-key", 306, BZ_ERR_LOGIN, "The API key you specified is invalid");
	expect_error("72-err-login-required-write", 410, BZ_ERR_LOGIN, "You must log in");
	expect_error("51-err-header-auth-ignored-write", 410, BZ_ERR_LOGIN, "You must log in");
	expect_error("55-err-bug-not-found-path", 101, BZ_ERR_NOT_FOUND, "Bug #999999 does not exist");
	expect_error("27-private-bug-anon-path", 102, BZ_ERR_NO_PERMISSION, "not authorized");
	expect_error("70-err-no-permission-whiteboard", 115, BZ_ERR_NO_PERMISSION, "Whiteboard");
	expect_error("77-err-unknown-resource", 32614, BZ_ERR_NOT_FOUND, "REST API resource");
	expect_error("65-err-status-unknown", 51, BZ_ERR_NOT_FOUND, "no status named 'NEW'");
	expect_error("74-err-comment-too-long", 114, BZ_ERR_INVALID, "65535");
	expect_error("82-err-bad-last-change-time", 56, BZ_ERR_INVALID, "not a legal date");
	/* success bodies are not errors */
	body = recorded("37-comment-add", NULL);
	assert_int_equal(bz_parse_error(body, &code, &m), -1);
	free(body);
	buf_release(&m);
}

static void test_comment_id(void **state)
{
	struct buf err = BUF_INIT;
	long id = 0, status = 0;
	char *body = recorded("37-comment-add", &status);

	(void)state;
	assert_int_equal(status, 201);
	assert_int_equal(bz_parse_id(body, &id, &err), 0);
	assert_int_equal(id, 11);
	free(body);
	assert_int_equal(bz_parse_id("{\"id\":\"11\"}", &id, &err), -1);
	assert_string_equal(err.ptr, "answer.id: expected an integer, got string");
	buf_release(&err);
}

/* Bodies that must be refused with a message naming the problem. */
static void test_malformed(void **state)
{
	struct bz_bug_list bugs = { 0 };
	struct bz_comment_list c = { 0 };
	struct bz_attachment_list a = { 0 };
	struct buf err = BUF_INIT;
	char *body = recorded("19-attachments-get", NULL);

	(void)state;
	/* a truncated body */
	body[strlen(body) / 2] = '\0';
	assert_int_equal(bz_parse_attachments(body, 9370, &a, &err), -1);
	assert_non_null(strstr(err.ptr, "not JSON"));
	assert_int_equal(a.n, 0);
	free(body);
	buf_reset(&err);
	assert_int_equal(bz_parse_bugs("{\"bugs\":[{\"id\":9370},{\"id\":\"9371\"}]}", &bugs, &err), -1);
	assert_string_equal(err.ptr, "bugs[1].id: expected an integer, got string");
	assert_int_equal(bugs.n, 0);	/* nothing half-parsed is kept */
	buf_reset(&err);
	assert_int_equal(bz_parse_bugs("{\"bugs\":{}}", &bugs, &err), -1);
	assert_string_equal(err.ptr, "bugs: expected array, got object");
	buf_reset(&err);
	assert_int_equal(bz_parse_bugs("[1,2]", &bugs, &err), -1);
	buf_reset(&err);
	assert_int_equal(bz_parse_bugs("{\"bugs\":[{\"id\":1,\"summary\":7}]}", &bugs, &err), -1);
	assert_string_equal(err.ptr, "bugs[0].summary: expected a string, got int");
	buf_reset(&err);
	assert_int_equal(bz_parse_bugs("{\"bugs\":[]} trailing", &bugs, &err), -1);
	buf_reset(&err);
	assert_int_equal(bz_parse_bugs("", &bugs, &err), -1);
	buf_reset(&err);
	assert_int_equal(bz_parse_comments("{\"bugs\":{\"5\":{\"comments\":[{\"text\":\"x\"}]}}}",
					   5, &c, &err), -1);
	assert_string_equal(err.ptr, "bugs.5.comments[0].id: missing");
	buf_reset(&err);
	assert_int_equal(bz_parse_attachments("{\"bugs\":{\"5\":[{\"id\":1,\"is_patch\":\"yes\"}]}}",
					      5, &a, &err), -1);
	assert_string_equal(err.ptr, "bugs.5[0].is_patch: expected a boolean or 0/1, got string");
	buf_reset(&err);
	assert_int_equal(bz_parse_attachments("{\"bugs\":{\"5\":[{\"id\":1,\"data\":\"@@@@\"}]}}",
					      5, &a, &err), -1);
	assert_string_equal(err.ptr, "bugs.5[0].data: not valid base64");
	bz_bug_list_release(&bugs);
	bz_comment_list_release(&c);
	bz_attachment_list_release(&a);
	buf_release(&err);
}

/* The tracker's 65,535-character limit: counted in characters, marker kept. */
static void test_comment_fit(void **state)
{
	struct buf text = BUF_INIT, out = BUF_INIT;
	size_t chars = 0;

	(void)state;
	bz_comment_fit("short\nbugbridge-result: job 1\n", "bugbridge-result: job 1", 100, &out);
	assert_string_equal(out.ptr, "short\nbugbridge-result: job 1\n");
	/* 3000 two-byte characters (6000 bytes) fit a 3100-character limit */
	for (int i = 0; i < 3000; i++)
		buf_addstr(&text, "\xc3\xa9");
	bz_comment_fit(text.ptr, "m", 3100, &out);
	assert_int_equal(out.len, 6000);
	/* 200 lines, then the marker: cut to 1000 characters, marker last */
	buf_reset(&text);
	for (int i = 0; i < 200; i++)
		buf_addf(&text, "line %03d \xc3\xa9\xc3\xa9\xc3\xa9\n", i);
	buf_addstr(&text, "\nbugbridge-result: job 42\n");
	bz_comment_fit(text.ptr, "bugbridge-result: job 42", 1000, &out);
	for (size_t i = 0; i < out.len; i++)
		chars += ((unsigned char)out.ptr[i] & 0xc0) != 0x80;
	assert_true(chars <= 1000);
	assert_true(chars > 800);
	assert_non_null(strstr(out.ptr, "cut by bugbridge"));
	assert_true(!strcmp(out.ptr + out.len - 25, "bugbridge-result: job 42\n"));
	/* the cut falls at a line end, not inside a character */
	assert_non_null(strstr(out.ptr, "\xc3\xa9\n\n[... cut"));
	buf_release(&text);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_and_time),
		cmocka_unit_test(test_bug_full),
		cmocka_unit_test(test_groups_and_users),
		cmocka_unit_test(test_bug_search_shapes),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_attachments),
		cmocka_unit_test(test_attachment_boolean_flags),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_comment_id),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_comment_fit),
		cmocka_unit_test(test_whoami_valid_login),
	};
	return cmocka_run_group_tests(tests, find_shared, NULL);
}
