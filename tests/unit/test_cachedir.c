/*
 * Unit tests for lib/cachedir: the one rule for the cache directory,
 * shared by the runner and triage's owners ([runner] cache_dir, else
 * $XDG_CACHE_HOME/bugbridge, else $HOME/.cache/bugbridge, else an error).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cachedir.h"
#include "config.h"

static void uninstall(void)
{
	if (!cfg)
		return;
	config_release((struct config *)cfg);
	free((void *)cfg);
	cfg = NULL;
}

static void install(const char *text)
{
	struct config c;
	struct buf err = BUF_INIT;

	uninstall();
	config_init(&c);
	assert_int_equal(config_parse(&c, text, "test", &err), 0);
	config_install(&c);
	buf_release(&err);
}

static void expect(const char *want)
{
	struct buf dir = BUF_INIT;

	if (want) {
		assert_int_equal(cache_dir(&dir), 0);
		assert_string_equal(dir.ptr, want);
	} else {
		assert_int_equal(cache_dir(&dir), -1);
	}
	buf_release(&dir);
}

static void test_configured_wins(void **state)
{
	(void)state;
	install("[runner]\ncache_dir = /srv/bb-cache\n");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	setenv("HOME", "/home/bb", 1);
	expect("/srv/bb-cache");
}

static void test_xdg_then_home(void **state)
{
	(void)state;
	install("");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	setenv("HOME", "/home/bb", 1);
	expect("/xdg/bugbridge");
	setenv("XDG_CACHE_HOME", "relative", 1);	/* only absolute paths count */
	expect("/home/bb/.cache/bugbridge");
	unsetenv("XDG_CACHE_HOME");
	expect("/home/bb/.cache/bugbridge");
}

static void test_nothing_is_an_error(void **state)
{
	(void)state;
	install("");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	expect(NULL);		/* never a guess like /tmp */
	setenv("HOME", "", 1);
	expect(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_configured_wins),
		cmocka_unit_test(test_xdg_then_home),
		cmocka_unit_test(test_nothing_is_an_error),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	uninstall();
	return rc;
}
