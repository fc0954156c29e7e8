/*
 * Unit tests for commands in tracker comments: what counts as a command
 * (quoted lines never do), the allowlist, and comment_cmd_run() on a
 * migrated database: executed once, refused once, ignored when quoted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "commands.h"

static volatile sig_atomic_t no_stop;

static void use_config(const char *text)
{
	struct config *old = (struct config *)cfg;
	struct config c;
	struct buf err = BUF_INIT;

	config_init(&c);
	if (config_parse(&c, text, "test.conf", &err))
		fail_msg("config: %s", err.ptr);
	config_install(&c);
	if (old) {
		config_release(old);
		free(old);
	}
	buf_release(&err);
}

static void test_parse(void **state)
{
	struct comment_cmd c[8];

	(void)state;
	assert_int_equal(comment_cmd_parse("bugbridge: test 301", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_TEST);
	assert_int_equal(c[0].attachment_id, 301);
	assert_string_equal(c[0].base, "");
	assert_int_equal(comment_cmd_parse("Please try this.\n\n  BugBridge:  bisect #77  \r\n",
					   c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_BISECT);
	assert_int_equal(c[0].attachment_id, 77);
	assert_string_equal(c[0].line, "BugBridge: bisect #77");
	assert_int_equal(comment_cmd_parse("bugbridge: retest\nbugbridge: ignore", c, 8), 2);
	assert_int_equal(c[0].kind, COMMENT_CMD_RETEST);
	assert_int_equal(c[1].kind, COMMENT_CMD_IGNORE);
	assert_int_equal(comment_cmd_parse("bugbridge: retest.", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_RETEST);
	assert_int_equal(comment_cmd_parse("bugbridge: help", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_HELP);

	/* a kernel, as people spell one */
	assert_int_equal(comment_cmd_parse("bugbridge: test on 6.12", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_TEST);
	assert_int_equal(c[0].attachment_id, 0);
	assert_string_equal(c[0].base, "6.12");
	assert_int_equal(comment_cmd_parse("bugbridge: test 4 on v6.12.y", c, 8), 1);
	assert_int_equal(c[0].attachment_id, 4);
	assert_string_equal(c[0].base, "6.12");
	assert_int_equal(comment_cmd_parse("bugbridge: test attachment 4 on 6.1.170-3", c, 8), 1);
	assert_string_equal(c[0].base, "6.1.170-3");
	assert_int_equal(comment_cmd_parse("bugbridge: bisect 5 on linux-6.1.y", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_BISECT);
	assert_string_equal(c[0].base, "6.1");
	assert_int_equal(comment_cmd_parse("bugbridge: bisect releases 6.1", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_RELEASES);
	assert_string_equal(c[0].base, "6.1");
	assert_int_equal(comment_cmd_parse("bugbridge: bisect releases", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_RELEASES);
	assert_string_equal(c[0].base, "");
	assert_int_equal(comment_cmd_parse("bugbridge: backtest", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_BACKTEST);
	assert_int_equal(c[0].attachment_id, 0);
	assert_int_equal(comment_cmd_parse("bugbridge: back-test #5", c, 8), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_BACKTEST);
	assert_int_equal(c[0].attachment_id, 5);

	/* quoted, in prose, a marker: not command lines */
	assert_int_equal(comment_cmd_parse("> bugbridge: test 301", c, 8), 0);
	assert_int_equal(comment_cmd_parse("  >> bugbridge: retest", c, 8), 0);
	assert_int_equal(comment_cmd_parse("I said bugbridge: retest yesterday", c, 8), 0);
	assert_int_equal(comment_cmd_parse("bugbridge-result: job 42", c, 8), 0);
	assert_int_equal(comment_cmd_parse("`bugbridge: test 4`: queued as job 7", c, 8), 0);
	assert_int_equal(comment_cmd_parse("", c, 8), 0);
	/* every line counts, only max are kept */
	assert_int_equal(comment_cmd_parse("bugbridge: retest\nbugbridge: retest\n"
					   "bugbridge: retest", c, 2), 3);
}

/* text's one command line is not understood; want: the command it meant, or NULL */
static void not_understood(const char *text, const char *want, const char *why)
{
	struct comment_cmd c[2];

	assert_int_equal(comment_cmd_parse(text, c, 2), 1);
	assert_int_equal(c[0].kind, COMMENT_CMD_UNKNOWN);
	if (want) {
		if (!c[0].suggestion || strcmp(c[0].hint, want))
			fail_msg("'%s': want the suggestion '%s', got '%s' (%s)", text, want,
				 c[0].hint, c[0].suggestion ? "a suggestion" : "no suggestion");
	} else {
		if (c[0].suggestion)
			fail_msg("'%s': no suggestion wanted, got '%s'", text, c[0].hint);
		if (!strstr(c[0].hint, why))
			fail_msg("'%s': hint '%s' lacks '%s'", text, c[0].hint, why);
	}
}

static void test_not_understood(void **state)
{
	char text[64];
	struct comment_cmd c;

	(void)state;
	not_understood("bugbridge: test 6.12", "test on 6.12", NULL);
	not_understood("bugbridge: test 4 6.12", "test 4 on 6.12", NULL);
	not_understood("bugbridge: test 4 v6.1.170", "test 4 on 6.1.170", NULL);
	not_understood("bugbridge: tset 4", "test 4", NULL);
	not_understood("bugbridge: testing 1", "test 1", NULL);
	not_understood("bugbridge: bisec 7", "bisect 7", NULL);
	not_understood("bugbridge: retest 4", "test 4", NULL);
	not_understood("bugbridge: retest please", "retest", NULL);
	not_understood("bugbridge: please test 4", "test 4", NULL);
	not_understood("bugbridge: test 12 and 13", "test 12", NULL);
	not_understood("bugbridge: test", NULL, "`test` needs an attachment number, or `on <kernel>`");
	not_understood("bugbridge: test 0", NULL, "`0` is not an attachment number");
	not_understood("bugbridge: test 1 on", NULL, "`on` needs a kernel");
	not_understood("bugbridge: test 1 on linux", NULL, "`linux` is not a kernel");
	not_understood("bugbridge: bisect", NULL, "needs the attachment number of a series");
	not_understood("bugbridge: I think the patch is wrong", NULL, "`I` is not a command");
	not_understood("bugbridge:", NULL, "no command after `bugbridge:`");
	not_understood("bugbridge: a b c d e f g h i j k l m n", NULL, "too long");
	/* a long line is cut to fit, never inside a UTF-8 character */
	{
		char longline[300] = "bugbridge: test 4 ";
		struct comment_cmd l;
		size_t n;

		for (int i = 0; i < 60; i++)
			strcat(longline, "\xc3\xa9");	/* é */
		assert_int_equal(comment_cmd_parse(longline, &l, 1), 1);
		n = strlen(l.line);
		assert_true(n < sizeof(l.line));
		assert_string_equal(l.line + n - 3, "...");
		assert_int_equal((unsigned char)l.line[n - 4], 0xa9);
		assert_int_equal(l.kind, COMMENT_CMD_UNKNOWN);
	}
	/* the suggestion is spelt as bugbridge spells commands */
	assert_int_equal(comment_cmd_parse("bugbridge: test 4 on 6.12", &c, 1), 1);
	comment_cmd_text(&c, text, sizeof(text));
	assert_string_equal(text, "test 4 on 6.12");
}

static void test_allowlist(void **state)
{
	(void)state;
	use_config("[triage]\nallow_commands = jejb@linux.ibm.com, Martin.Petersen@oracle.com\n");
	assert_true(comment_cmd_allowed("jejb@linux.ibm.com"));
	assert_true(comment_cmd_allowed("martin.petersen@oracle.com"));
	assert_false(comment_cmd_allowed("mallory@example.org"));
	assert_false(comment_cmd_allowed(""));
	use_config("");
	assert_false(comment_cmd_allowed("jejb@linux.ibm.com"));
}

static void exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("sql failed: %s: %s", msg, sql);
}

static long long count(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;

	assert_int_equal(sqlite3_prepare_v2(db->h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static const char patch[] =
	"From: Dev <dev@example.org>\n"
	"Subject: [PATCH] scsi: sr: fix capacity\n"
	"\n"
	"---\n"
	"--- a/drivers/scsi/sr.c\n"
	"+++ b/drivers/scsi/sr.c\n"
	"@@ -1,2 +1,2 @@\n"
	" a\n"
	"-b\n"
	"+c\n";

static void test_run_once(void **state)
{
	struct buf err = BUF_INIT;
	struct db db;
	sqlite3_stmt *st;
	int applied;

	(void)state;
	use_config("[triage]\nallow_commands = maint@example.org\n"
		   "[tracker]\nlogin = bot@example.org\n");
	assert_int_equal(db_open(&db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(&db, &applied, &err), 0);
	exec(&db, "INSERT INTO bugs (id) VALUES (9370);"
		  "INSERT INTO comments (id, bug_id, author, text) VALUES"
		  " (1, 9370, 'maint@example.org', 'Looks right.\nbugbridge: test 301\n'),"
		  " (2, 9370, 'mallory@example.org', 'bugbridge: retest'),"
		  " (3, 9370, 'maint@example.org', 'You wrote:\n> bugbridge: test 301\nok'),"
		  " (4, 9370, 'bot@example.org', 'bugbridge: retest'),"
		  " (5, 9370, 'maint@example.org', 'bugbridge: test 999'),"
		  " (6, 9370, 'mallory@example.org', 'just words'),"
		  " (10, 9370, 'mallory@example.org', 'bugbridge: test 301');"
		  "INSERT INTO comments (id, bug_id, author, text, is_private) VALUES"
		  " (11, 9370, 'maint@example.org', 'bugbridge: retest', 1);");
	assert_int_equal(sqlite3_prepare_v2(db.h, "INSERT INTO attachments (id, bug_id, file_name,"
		" is_patch, data) VALUES (301, 9370, 'sr-fix.patch', 1, ?)", -1, &st, NULL), 0);
	sqlite3_bind_blob(st, 1, patch, sizeof(patch) - 1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	assert_int_equal(comment_cmd_run(&db, &no_stop), 0);
	/* executed: one test job of attachment 301 with a baseline */
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs j JOIN candidates c"
			       " ON c.id = j.candidate_id WHERE c.source_id = 301"
			       " AND j.kind = 'test' AND j.with_baseline = 1"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs"), 1);
	/* refused once, for the account that is not allowed */
	/* once per bug and account, however often it tries */
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox"
			       " WHERE marker = 'bugbridge-refused: bug 9370 mallory@example.org'"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE marker LIKE"
			       " 'bugbridge-refused:%'"), 1);
	/* the allowed command is answered, naming its job, which knows its comment */
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE marker ="
			       " 'bugbridge-cmd: comment 1' AND payload LIKE '%queued as job 1:%'"), 1);
	assert_int_equal(count(&db, "SELECT asked_in FROM jobs WHERE id = 1"), 1);
	/* an attachment that is not there is answered, not queued */
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE marker ="
			       " 'bugbridge-cmd: comment 5' AND payload LIKE"
			       "'%not done: bug 9370 has no attachment 999 that bugbridge may test%'"), 1);
	/* a private comment is never read for commands: no job, no answer */
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox"
			       " WHERE marker = 'bugbridge-cmd: comment 11'"), 0);
	/* the quoted command is no command: no answer */
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox"
			       " WHERE marker = 'bugbridge-cmd: comment 3'"), 0);
	/* every human comment is handled; ours are not even looked at */
	assert_int_equal(count(&db, "SELECT group_concat(id) FROM comments WHERE handled = 0"
			       " AND is_private = 0"), 4);

	/* a second run does nothing more */
	assert_int_equal(comment_cmd_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox"), 3);

	/* retest re-runs the latest patch job; ignore stops the bug */
	exec(&db, "INSERT INTO comments (id, bug_id, author, text) VALUES"
		  " (7, 9370, 'maint@example.org', 'bugbridge: retest'),"
		  " (8, 9370, 'maint@example.org', 'bugbridge: ignore');");
	assert_int_equal(comment_cmd_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'"
			       " AND parent_id = 1"), 1);
	assert_int_equal(count(&db, "SELECT ignored FROM bugs WHERE id = 9370"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE state = 'queued'"), 0);
	/* asking for a job again lifts the ignore */
	exec(&db, "INSERT INTO comments (id, bug_id, author, text) VALUES"
		  " (9, 9370, 'maint@example.org', 'bugbridge: retest');");
	assert_int_equal(comment_cmd_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT ignored FROM bugs WHERE id = 9370"), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE state = 'queued'"), 1);
	db_close(&db);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_not_understood),
		cmocka_unit_test(test_allowlist),
		cmocka_unit_test(test_run_once),
	};
	int rc;

	use_config("");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	config_release((struct config *)cfg);
	free((void *)cfg);
	return rc;
}
