/* Unit tests for lib/config: the parser's errors, env overrides, secrets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

/* Parse text into a fresh config; return the error text ("" on success). */
static int parse(const char *text, struct config *c, struct buf *err)
{
	config_init(c);
	return config_parse(c, text, "test.conf", err);
}

static void expect_error(const char *text, const char *want)
{
	struct buf err = BUF_INIT;
	struct config c;

	assert_int_equal(parse(text, &c, &err), -1);
	if (!strstr(err.ptr, want))
		fail_msg("error '%s' does not contain '%s'", err.ptr, want);
	config_release(&c);
	buf_release(&err);
}

static void test_defaults(void **state)
{
	struct config c;

	(void)state;
	config_init(&c);
	assert_string_equal(config_get(&c, "db.path"), "bugbridge.db");
	assert_int_equal(config_get_int(&c, "tracker.poll_interval"), 60);
	assert_false(config_get_bool(&c, "triage.set_status"));
	assert_string_equal(config_get(&c, "runner.accel"), "auto");
	config_release(&c);
}

static void test_values_comments_quotes(void **state)
{
	struct buf err = BUF_INIT;
	struct config c;

	(void)state;
	assert_int_equal(parse("# comment\n"
			       "[tracker]\n"
			       "  url = http://bz.example/ # trailing comment\n"
			       "watch_components = IO/Storage:SCSI, Linux:Block Layer\n"
			       "login = \"bot#1 \\\"quoted\\\" \\\\ x\" ; comment\n"
			       "[runner]\r\n"
			       "accel=tcg\r\n"
			       "parallel = 4\n"
			       "[triage]\n"
			       "set_status = yes\n", &c, &err), 0);
	assert_string_equal(err.ptr, "");
	assert_string_equal(config_get(&c, "tracker.url"), "http://bz.example/");
	assert_string_equal(config_get(&c, "tracker.login"), "bot#1 \"quoted\" \\ x");
	assert_string_equal(config_get(&c, "runner.accel"), "tcg");
	assert_int_equal(config_get_int(&c, "runner.parallel"), 4);
	assert_true(config_get_bool(&c, "triage.set_status"));
	config_release(&c);
	buf_release(&err);
}

static void test_missing_equals(void **state)
{
	(void)state;
	expect_error("[db]\npath /tmp/x.db\n", "test.conf:2: missing '='");
}

static void test_unknown_section(void **state)
{
	(void)state;
	expect_error("[db]\npath = x\n[trackr]\nurl = y\n", "test.conf:3: unknown section [trackr]");
}

static void test_unknown_key(void **state)
{
	(void)state;
	expect_error("[tracker]\napikey = secret\n", "test.conf:2: unknown key 'apikey' in [tracker]");
}

static void test_unterminated_value(void **state)
{
	(void)state;
	expect_error("[smtp]\nfrom = \"bugbridge@example.com\n", "test.conf:2: unterminated value");
}

static void test_overlong_line(void **state)
{
	struct buf text = BUF_INIT;

	(void)state;
	buf_addstr(&text, "[tracker]\nurl = ");
	for (int i = 0; i < CONFIG_MAX_LINE; i++)
		buf_addch(&text, 'x');
	buf_addch(&text, '\n');
	expect_error(text.ptr, "test.conf:2: line too long");
	buf_release(&text);
}

static void test_key_outside_section_and_bad_header(void **state)
{
	(void)state;
	expect_error("path = x\n", "test.conf:1: key outside any [section]");
	expect_error("[db\npath = x\n", "test.conf:1: malformed section header");
	expect_error("[db]\n = x\n", "test.conf:2: missing key");
}

static void test_typed_values(void **state)
{
	(void)state;
	expect_error("[tracker]\npoll_interval = often\n", "poll_interval: 'often' is not a non-negative number");
	expect_error("[runner]\naccel = hvf\n", "accel: 'hvf' is not one of auto|kvm|tcg");
	expect_error("[triage]\nset_status = maybe\n", "set_status: 'maybe' is not true or false");
}

static void test_env_override(void **state)
{
	struct buf err = BUF_INIT;
	struct config c;

	(void)state;
	assert_int_equal(parse("[db]\npath = from-file.db\n", &c, &err), 0);
	setenv("BUGBRIDGE_DB_PATH", "from-env.db", 1);
	setenv("BUGBRIDGE_RUNNER_ACCEL", "kvm", 1);
	assert_int_equal(config_apply_env(&c, &err), 0);
	assert_string_equal(config_get(&c, "db.path"), "from-env.db");
	assert_string_equal(config_get(&c, "runner.accel"), "kvm");
	setenv("BUGBRIDGE_RUNNER_ACCEL", "warp", 1);
	assert_int_equal(config_apply_env(&c, &err), -1);
	assert_non_null(strstr(err.ptr, "BUGBRIDGE_RUNNER_ACCEL"));
	unsetenv("BUGBRIDGE_DB_PATH");
	unsetenv("BUGBRIDGE_RUNNER_ACCEL");
	config_release(&c);
	buf_release(&err);
}

static void test_load_missing_file(void **state)
{
	struct buf err = BUF_INIT;
	struct config c;

	(void)state;
	assert_int_equal(config_load(&c, "/nonexistent/bugbridge.conf", &err), -1);
	assert_non_null(strstr(err.ptr, "cannot read config '/nonexistent/bugbridge.conf'"));
	config_release(&c);
	buf_release(&err);
}

static void test_secret_file_and_masking(void **state)
{
	char path[] = "/tmp/bbsecretXXXXXX";
	struct buf err = BUF_INIT, text = BUF_INIT, secret = BUF_INIT, dump = BUF_INIT;
	struct config c;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "s3cr3t-key\nignored\n", 19), 19);
	close(fd);
	buf_addf(&text, "[tracker]\napi_key_file = %s\n[web]\ntoken = tok-123\n", path);
	assert_int_equal(parse(text.ptr, &c, &err), 0);
	assert_int_equal(config_secret(&c, "tracker.api_key", &secret, &err), 0);
	assert_string_equal(secret.ptr, "s3cr3t-key");
	assert_int_equal(config_secret(&c, "web.token", &secret, &err), 0);
	assert_string_equal(secret.ptr, "tok-123");
	config_dump(&c, &dump, false);
	assert_null(strstr(dump.ptr, "tok-123"));
	assert_non_null(strstr(dump.ptr, "token = (set)"));
	unlink(path);
	assert_int_equal(config_secret(&c, "tracker.api_key", &secret, &err), -1);
	config_release(&c);
	buf_release(&err);
	buf_release(&text);
	buf_release(&secret);
	buf_release(&dump);
}

/* The dashboard's configuration: every secret and secret file blank but the token. */
static void test_write_restricted(void **state)
{
	char path[] = "/tmp/bbtokenXXXXXX";
	struct buf err = BUF_INIT, text = BUF_INIT, out = BUF_INIT, secret = BUF_INIT;
	struct config c, d;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "tok-from-file\n", 14), 14);
	close(fd);
	buf_addf(&text, "[tracker]\napi_key = key-0123456789\napi_key_file = /k\n"
		 "watch_bugs = 9370, 9371\n[web]\ntoken_file = %s\nlisten = \"127.0.0.1:8 # x\"\n"
		 "[smtp]\npassword = smtp-pass-0123\npassword_file = /p\n"
		 "[lava]\ntoken = lava-tok-0123\n", path);
	assert_int_equal(parse(text.ptr, &c, &err), 0);
	assert_int_equal(config_write_restricted(&c, "web.token", &out, &err), 0);
	assert_null(strstr(out.ptr, "key-0123456789"));
	assert_null(strstr(out.ptr, "smtp-pass-0123"));
	assert_null(strstr(out.ptr, "lava-tok-0123"));
	assert_null(strstr(out.ptr, path));
	assert_null(strstr(out.ptr, "= /k"));
	/* it parses, and holds what the dashboard needs */
	assert_int_equal(parse(out.ptr, &d, &err), 0);
	/* the token only as its hash: enough to check one, not to present it */
	assert_null(strstr(out.ptr, "tok-from-file"));
	assert_int_equal(config_secret(&d, "web.token", &secret, &err), 0);
	assert_string_equal(secret.ptr, "sha256:"
			    "3c80c3840dfb80dc05c6138c4a9420cf03aceb5f81e4a344de52dce843c557d0");
	assert_int_equal(config_secret(&d, "tracker.api_key", &secret, &err), 0);
	assert_string_equal(secret.ptr, "");
	assert_string_equal(config_get(&d, "web.listen"), "127.0.0.1:8 # x");
	assert_string_equal(config_get(&d, "tracker.watch_bugs"), "9370, 9371");
	unlink(path);
	config_release(&c);
	config_release(&d);
	buf_release(&err);
	buf_release(&text);
	buf_release(&out);
	buf_release(&secret);
}

static void test_example_round_trips(void **state)
{
	struct buf err = BUF_INIT, example = BUF_INIT;
	struct config c;

	(void)state;
	config_init(&c);
	config_dump(&c, &example, true);
	config_release(&c);
	/* the generated example must itself be a valid config */
	assert_int_equal(parse(example.ptr, &c, &err), 0);
	assert_string_equal(config_get(&c, "smtp.url"), "smtp://127.0.0.1:2525");
	config_release(&c);
	buf_release(&err);
	buf_release(&example);
}

static void test_split_list(void **state)
{
	int n;
	char **list = config_split_list(" IO/Storage:SCSI ,Linux:Block Layer,, 9370", &n);

	(void)state;
	assert_int_equal(n, 3);
	assert_string_equal(list[0], "IO/Storage:SCSI");
	assert_string_equal(list[1], "Linux:Block Layer");
	assert_string_equal(list[2], "9370");
	assert_null(list[3]);
	config_list_free(list);
}

/* config_unworkable(who) over text: how many problems, and the first's text. */
static int unworkable(const char *text, unsigned who, struct buf *why)
{
	struct buf err = BUF_INIT;
	struct config c;
	int n;

	assert_int_equal(parse(text, &c, &err), 0);
	buf_reset(why);
	n = config_unworkable(&c, who, why);
	config_release(&c);
	buf_release(&err);
	return n;
}

static void test_unworkable(void **state)
{
	const unsigned both = CONFIG_DAEMON | CONFIG_RUNNER;
	struct buf why = BUF_INIT;

	(void)state;
	assert_int_equal(unworkable("", both, &why), 0);
	assert_int_equal(unworkable("[runner]\nbackend = lava\n[lava]\nurl = http://lab\n"
				    "token = t0123456789\n", both, &why), 1);
	assert_non_null(strstr(why.ptr, "relative URLs"));
	/* the dashboard does not need the lab's token or URL, the runner does */
	assert_int_equal(unworkable("[runner]\nbackend = lava\n[web]\nbase_url = http://bb\n",
				    CONFIG_DAEMON, &why), 0);
	assert_int_equal(unworkable("[runner]\nbackend = lava\n[web]\nbase_url = http://bb\n",
				    CONFIG_RUNNER, &why), 2);
	assert_non_null(strstr(why.ptr, "[lava] url is not set"));
	assert_non_null(strstr(why.ptr, "neither [lava] token nor token_file"));
	assert_int_equal(unworkable("[runner]\nbackend = lava\n[web]\nbase_url = /bb\n",
				    CONFIG_DAEMON, &why), 1);
	assert_non_null(strstr(why.ptr, "[web] base_url '/bb' is not an absolute http(s) URL"));
	/* a lab on this host may fetch from the disk */
	assert_int_equal(unworkable("[runner]\nbackend = lava\n[lava]\nartifacts_dir = /a\n"
				    "artifacts_url = file:///a\n", CONFIG_DAEMON, &why), 0);
	assert_int_equal(unworkable("[runner]\nbackend = lava\n[lava]\nartifacts_dir = /a\n"
				    "[web]\nbase_url = http://bb\n", CONFIG_DAEMON, &why), 1);
	assert_non_null(strstr(why.ptr, "where nothing serves them"));
	assert_int_equal(unworkable("[tracker]\nurl = bugzilla.example.org\n", CONFIG_RUNNER,
				    &why), 0);
	assert_int_equal(unworkable("[tracker]\nurl = bugzilla.example.org\n", CONFIG_DAEMON,
				    &why), 1);
	assert_int_equal(unworkable("[smtp]\nurl = mailto:x\n[digest]\nevery = never\n",
				    CONFIG_DAEMON, &why), 0);
	assert_int_equal(unworkable("[smtp]\nurl = mailto:x\n", CONFIG_DAEMON, &why), 1);
	assert_int_equal(unworkable("[tracker]\napi_key_file = /nonexistent/key\n",
				    CONFIG_DAEMON, &why), 1);
	assert_non_null(strstr(why.ptr, "cannot read secret file '/nonexistent/key'"));
	assert_true(config_absolute_url("https://x.org/a", false));
	assert_false(config_absolute_url("http:///a", false));
	assert_false(config_absolute_url("file:///a", false));
	assert_true(config_absolute_url("file:///a", true));
	buf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values_comments_quotes),
		cmocka_unit_test(test_missing_equals),
		cmocka_unit_test(test_unknown_section),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_unterminated_value),
		cmocka_unit_test(test_overlong_line),
		cmocka_unit_test(test_key_outside_section_and_bad_header),
		cmocka_unit_test(test_typed_values),
		cmocka_unit_test(test_env_override),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_secret_file_and_masking),
		cmocka_unit_test(test_write_restricted),
		cmocka_unit_test(test_example_round_trips),
		cmocka_unit_test(test_split_list),
		cmocka_unit_test(test_unworkable),
	};
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
