/*
 * Unit tests for lib/wfile: a whole file written in place or by a rename
 * (never half a file for a reader, never through a link), with no
 * temporary file left behind, also when the write fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wfile.h"
#include "buf.h"

static char dir[] = "/tmp/bb-wfile-XXXXXX";

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void path_of(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

static void test_atomic_replaces(void **state)
{
	struct buf b = BUF_INIT;
	char path[128];

	(void)state;
	path_of(path, sizeof(path), "version");
	assert_int_equal(write_file(path, "6.1.1\n", 6, WF_ATOMIC | WF_SYNC), 0);
	assert_int_equal(write_file(path, "6.1.2\n", 6, WF_ATOMIC), 0);
	assert_int_equal(buf_read_file(&b, path), 0);
	assert_string_equal(b.ptr, "6.1.2\n");
	assert_int_equal(entries(), 1);		/* no temporary file left */
	unlink(path);
	buf_release(&b);
}

static void test_links_never_followed(void **state)
{
	struct buf b = BUF_INIT;
	char path[128], target[128];

	(void)state;
	path_of(path, sizeof(path), "link");
	path_of(target, sizeof(target), "target");
	assert_int_equal(write_file(target, "mine\n", 5, 0), 0);
	assert_int_equal(symlink(target, path), 0);
	errno = 0;
	assert_int_equal(write_file(path, "x\n", 2, 0), -1);	/* in place: O_NOFOLLOW */
	assert_int_equal(errno, ELOOP);
	assert_int_equal(write_file(path, "new\n", 4, WF_ATOMIC), 0);	/* the link replaced */
	assert_int_equal(buf_read_file(&b, target), 0);
	assert_string_equal(b.ptr, "mine\n");
	unlink(path);
	unlink(target);
	buf_release(&b);
}

static void test_failure_leaves_nothing(void **state)
{
	char path[128];

	(void)state;
	path_of(path, sizeof(path), "sub");
	assert_int_equal(mkdir(path, 0755), 0);
	errno = 0;
	assert_int_equal(write_file(path, "x", 1, WF_ATOMIC), -1);	/* rename over a directory */
	assert_int_equal(errno, EISDIR);
	assert_int_equal(entries(), 1);
	rmdir(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_replaces),
		cmocka_unit_test(test_links_never_followed),
		cmocka_unit_test(test_failure_leaves_nothing),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
