/*
 * Unit tests for lib/safefile: the opener of files below a tree that
 * untrusted code wrote.  Each case runs twice: with openat2 and with the
 * component-by-component walk a kernel without openat2 gets.  The tree is
 * a temporary directory with the attacks planted in it: a directory
 * symlink to a directory outside, a file symlink, "..", FIFOs (a reader
 * present or not), a device node (when we may make one), a sparse 1 GiB
 * file, a hard link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "safefile.h"
#include "buf.h"

static char top[64];		/* <top>/tree is the root, <top>/outside is not */
static char root[96], outside[96];

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char path[256];

	(void)state;
	strcpy(top, "/tmp/bb-safefile-XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(root, sizeof(root), "%s/tree", top);
	snprintf(outside, sizeof(outside), "%s/outside", top);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(outside, 0755), 0);
	snprintf(path, sizeof(path), "%s/out", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/out/drivers", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put(root, "out/.config", "CONFIG_X=y\n");
	put(outside, "secret", "the outside\n");
	/* the attack of issue 23: a directory of the build replaced by a symlink */
	snprintf(path, sizeof(path), "%s/out/drivers/scsi", root);
	assert_int_equal(symlink(outside, path), 0);
	snprintf(path, sizeof(path), "%s/out/link", root);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/out/fifo", root);
	assert_int_equal(mkfifo(path, 0644), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void both(void (*check)(void))
{
	safe_force_walk(false);
	check();
	safe_force_walk(true);
	check();
	safe_force_walk(false);
}

static void expect_read(const char *rel, size_t max, int err)
{
	struct buf b = BUF_INIT;

	errno = 0;
	assert_int_equal(safe_read(root, rel, max, &b), -1);
	assert_int_equal(errno, err);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void reads(void)
{
	struct buf b = BUF_INIT;

	assert_int_equal(safe_read(root, "out/.config", 1024, &b), 0);
	assert_string_equal(b.ptr, "CONFIG_X=y\n");
	buf_release(&b);
	assert_int_equal(safe_read(root, "out//./.config", 1024, &b), 0);
	buf_release(&b);
	expect_read("out/drivers/scsi/secret", 1024, ELOOP);	/* a middle component */
	expect_read("out/link", 1024, ELOOP);			/* the last one */
	expect_read("../outside/secret", 1024, EXDEV);
	expect_read("out/../../outside/secret", 1024, EXDEV);
	expect_read("/etc/passwd", 1024, EXDEV);
	expect_read("out/fifo", 1024, ENXIO);			/* and no hang */
	expect_read("out", 1024, EISDIR);
	expect_read("out/.config", 4, EFBIG);
	expect_read("out/missing", 1024, ENOENT);
}

static void test_read(void **state)
{
	(void)state;
	both(reads);
}

static time_t mtime_of(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mtime;
}

/* Times set on the tree's file; through a link, on nothing (the outside keeps its own). */
static void utimens(void)
{
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	time_t outside_before = mtime_of(outside, "secret");

	assert_int_equal(safe_utimens(root, "out/.config", old), 0);
	assert_int_equal(mtime_of(root, "out/.config"), 1000000000);
	assert_int_equal(safe_utimens(root, "out/.config", NULL), 0);	/* now */
	assert_true(mtime_of(root, "out/.config") > 1000000000);
	errno = 0;
	assert_int_equal(safe_utimens(root, "out/drivers/scsi/secret", old), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(safe_utimens(root, "out/link", old), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(safe_utimens(root, "out/fifo", old), -1);
	assert_int_equal(errno, ENXIO);
	assert_int_equal(safe_utimens(root, "../outside/secret", old), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(mtime_of(outside, "secret"), outside_before);
}

static void test_utimens(void **state)
{
	(void)state;
	both(utimens);
}

static void test_huge_file_capped(void **state)
{
	char path[256];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/out/huge", root);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1LL << 30), 0);	/* sparse: no disk */
	close(fd);
	expect_read("out/huge", 1 << 20, EFBIG);
	unlink(path);
}

static void expect_write(const char *rel, int err)
{
	errno = 0;
	assert_int_equal(safe_write(root, rel, "x\n", 2), -1);
	assert_int_equal(errno, err);
}

static void writes(void)
{
	struct buf b = BUF_INIT;
	char path[256];

	assert_int_equal(safe_write(root, "out/new", "new\n", 4), 0);
	assert_int_equal(safe_write(root, "out/new", "n\n", 2), 0);	/* truncated */
	assert_int_equal(safe_read(root, "out/new", 64, &b), 0);
	assert_string_equal(b.ptr, "n\n");
	buf_release(&b);
	expect_write("out/drivers/scsi/sd.gcda", ELOOP);
	snprintf(path, sizeof(path), "%s/sd.gcda", outside);
	assert_int_equal(access(path, F_OK), -1);		/* nothing written outside */
	expect_write("out/link", ELOOP);
	expect_write("out/fifo", ENXIO);			/* no reader: no hang */
	expect_write("../outside/x", EXDEV);
	snprintf(path, sizeof(path), "%s/out/new", root);
	unlink(path);
}

static void test_write(void **state)
{
	(void)state;
	both(writes);
}

static void test_fifo_with_a_reader(void **state)
{
	char path[256];
	int reader;

	(void)state;
	snprintf(path, sizeof(path), "%s/out/fifo", root);
	reader = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(reader >= 0);
	expect_write("out/fifo", ENXIO);	/* opened, looked at, refused */
	expect_read("out/fifo", 1024, ENXIO);
	close(reader);
}

static void test_hard_link_refused_for_write(void **state)
{
	char a[256], b[256];

	(void)state;
	snprintf(a, sizeof(a), "%s/secret", outside);
	snprintf(b, sizeof(b), "%s/out/hard", root);
	assert_int_equal(link(a, b), 0);
	expect_write("out/hard", EMLINK);
	unlink(b);
}

static void test_device_refused(void **state)
{
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/out/null", root);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)))
		skip();		/* not root: the build user cannot make one either */
	expect_read("out/null", 1024, ENXIO);
	expect_write("out/null", ENXIO);
	unlink(path);
}

static void test_path_helpers(void **state)
{
	struct buf b = BUF_INIT;
	char path[256];

	(void)state;
	assert_string_equal(safe_rel("/a/b", "/a/b/c/d"), "c/d");
	assert_string_equal(safe_rel("/a/b/", "/a/b/c"), "c");
	assert_null(safe_rel("/a/b", "/a/bc/d"));
	assert_null(safe_rel("/a/b", "/a/b"));
	snprintf(path, sizeof(path), "%s/out/.config", root);
	assert_int_equal(safe_read_path(path, 64, &b), 0);
	assert_string_equal(b.ptr, "CONFIG_X=y\n");
	buf_release(&b);
	snprintf(path, sizeof(path), "%s/out/fifo", root);
	assert_int_equal(safe_read_path(path, 64, &b), -1);
	assert_int_equal(errno, ENXIO);
	assert_string_equal(safe_strerror(ELOOP), "a symbolic link is on its path");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_utimens),
		cmocka_unit_test(test_huge_file_capped),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_fifo_with_a_reader),
		cmocka_unit_test(test_hard_link_refused_for_write),
		cmocka_unit_test(test_device_refused),
		cmocka_unit_test(test_path_helpers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
