/*
 * Unit tests for lib/child: where a child's output goes, and that a log we
 * cannot write (a file-size limit of ours stands in for a full disk: the
 * writes fail part way, as they would with ENOSPC) is our error in
 * log_errno, not the child's failure; that a log which is no regular file
 * (/dev/full) is refused (lib/safefile); and the clocks:
 * a timeout or a cancel (seen by the tick) kills the child.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "child.h"

static const char *const both[] = { "sh", "-c", "echo to-stdout; echo to-stderr >&2", NULL };

static void test_log_full_is_ours(void **state)
{
	/* 200 KB: more than a pipe holds, so the child would block if we stopped reading */
	const char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 4000 ]; do"
			       " echo 'line of build output, fifty bytes long.......'; i=$((i+1));"
			       " done; exit 3", NULL };
	struct child ch = CHILD_INIT;
	struct rlimit old, small = { 64 << 10, 64 << 10 };
	char path[] = "/tmp/bb-child-log-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	ch.argv = argv;
	ch.log_path = path;
	ch.timeout = 60;
	signal(SIGXFSZ, SIG_IGN);	/* a write past the limit then fails with EFBIG */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_int_equal(child_run(&ch), 0);
	setrlimit(RLIMIT_FSIZE, &old);
	unlink(path);
	assert_int_equal(ch.exit_code, 3);	/* the child's own status, untouched */
	assert_int_equal(ch.log_errno, EFBIG);
}

/* The flood below (first-line, 4000 lines of 46 bytes, last-line) kept within 4096 bytes. */
static void assert_flood_kept(const struct child *ch, const struct buf *text)
{
	assert_int_equal(ch->log_total, 11 + 4000 * 46 + 10);
	assert_int_equal(ch->log_cut, ch->log_total - 4096);
	assert_true(text->len < 4096 + 200);
	assert_true(buf_starts_with(text, "first-line\n"));
	assert_non_null(strstr(text->ptr, "bytes of output cut here: 184021 were written,"
			       " [runner] max_build_log keeps the first and last 2048]\n"));
	assert_string_equal(text->ptr + text->len - 10, "last-line\n");
}

/* A flood keeps its first and last halves of log_max, with a line saying what was cut. */
static void test_log_capped(void **state)
{
	const char *argv[] = { "sh", "-c", "echo first-line; i=0; while [ $i -lt 4000 ]; do"
			       " echo 'line of build output, fifty bytes long.......'; i=$((i+1));"
			       " done; echo last-line", NULL };
	struct child ch = CHILD_INIT;
	struct buf text = BUF_INIT;
	char path[] = "/tmp/bb-child-log-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	ch.argv = argv;
	ch.log_path = path;
	ch.log_max = 4096;
	ch.log_max_key = "[runner] max_build_log";
	assert_int_equal(child_run(&ch), 0);
	assert_int_equal(buf_read_file(&text, path), 0);
	unlink(path);
	assert_flood_kept(&ch, &text);
	buf_release(&text);
}

/* Without a log, the capture (stdout and stderr: apply's, gcov's) is capped the same way. */
static void test_capture_capped(void **state)
{
	const char *argv[] = { "sh", "-c", "echo first-line; i=0; while [ $i -lt 4000 ]; do"
			       " echo 'line of patch output, fifty bytes long.......' >&2; i=$((i+1));"
			       " done; echo last-line", NULL };
	struct child ch = CHILD_INIT;
	struct buf cap = BUF_INIT;

	(void)state;
	ch.argv = argv;
	ch.capture = &cap;
	ch.log_max = 4096;
	ch.log_max_key = "[runner] max_build_log";
	assert_int_equal(child_run(&ch), 0);
	assert_flood_kept(&ch, &cap);
	buf_release(&cap);
	/* under the cap: all of it, nothing cut */
	ch.log_max = 1 << 20;
	assert_int_equal(child_run(&ch), 0);
	assert_int_equal(ch.log_cut, 0);
	assert_int_equal(cap.len, ch.log_total);
	assert_null(strstr(cap.ptr, "cut here"));
	buf_release(&cap);
}

static void test_log_not_a_file(void **state)
{
	const char *argv[] = { "true", NULL };
	struct child ch = CHILD_INIT;

	(void)state;
	ch.argv = argv;
	ch.log_path = "/dev/full";
	assert_int_equal(child_run(&ch), -1);
	assert_int_equal(ch.log_errno, ENXIO);
}

static void test_log_unopenable(void **state)
{
	const char *argv[] = { "true", NULL };
	struct child ch = CHILD_INIT;

	(void)state;
	ch.argv = argv;
	ch.log_path = "/nonexistent-dir/build.log";
	assert_int_equal(child_run(&ch), -1);
	assert_int_equal(ch.log_errno, ENOENT);
}

static void test_log_and_capture_split(void **state)
{
	char path[] = "/tmp/bb-test-child-XXXXXX";
	struct buf cap = BUF_INIT, log = BUF_INIT;
	struct child ch = CHILD_INIT;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	ch.argv = both;
	ch.log_path = path;
	ch.capture = &cap;
	assert_int_equal(child_run(&ch), 0);
	assert_int_equal(ch.log_errno, 0);
	assert_string_equal(cap.ptr, "to-stdout\n");
	assert_int_equal(buf_read_file(&log, path), 0);
	assert_string_equal(log.ptr, "to-stderr\n");
	unlink(path);
	buf_release(&cap);
	buf_release(&log);
}

static void test_log_appends_both(void **state)
{
	char path[] = "/tmp/bb-test-child-XXXXXX";
	struct buf log = BUF_INIT;
	struct child ch = CHILD_INIT;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "before\n", 7), 7);
	close(fd);
	ch.argv = both;
	ch.log_path = path;
	assert_int_equal(child_run(&ch), 0);
	assert_int_equal(buf_read_file(&log, path), 0);
	assert_string_equal(log.ptr, "before\nto-stdout\nto-stderr\n");
	unlink(path);
	buf_release(&log);
}

struct counted {
	size_t bytes;
	int calls;
};

static void count_output(void *arg, const char *data, size_t len)
{
	struct counted *c = arg;

	(void)data;
	c->bytes += len;
	c->calls++;
}

static void test_output_callback(void **state)
{
	const char *argv[] = { "head", "-c", "1000000", "/dev/zero", NULL };
	struct counted seen = { 0 };
	struct child ch = CHILD_INIT;

	(void)state;
	ch.argv = argv;
	ch.output = count_output;
	ch.output_arg = &seen;
	assert_int_equal(child_run(&ch), 0);
	assert_int_equal(ch.exit_code, 0);
	assert_int_equal(seen.bytes, 1000000);
	assert_true(seen.calls > 1);	/* in chunks, as it came */
}

static void test_timeout_kills(void **state)
{
	const char *argv[] = { "sleep", "30", NULL };
	struct child ch = CHILD_INIT;

	(void)state;
	ch.argv = argv;
	ch.timeout = 1;
	assert_int_equal(child_run(&ch), -1);
	assert_true(ch.timed_out);
	assert_false(ch.cancelled);
	assert_int_equal(ch.exit_code, 128 + 15);	/* SIGTERM */
	assert_true(ch.seconds >= 1 && ch.seconds < 5);
}

struct ticker {
	int ticks;
	volatile int cancel;
};

static void tick_then_cancel(void *arg)
{
	struct ticker *t = arg;

	if (++t->ticks == 2)
		t->cancel = 1;
}

static void test_tick_and_cancel(void **state)
{
	const char *argv[] = { "sleep", "30", NULL };
	struct ticker t = { 0 };
	struct child ch = CHILD_INIT;

	(void)state;
	ch.argv = argv;
	ch.cancel = &t.cancel;
	ch.tick = tick_then_cancel;
	ch.tick_arg = &t;
	assert_int_equal(child_run(&ch), -1);
	assert_true(ch.cancelled);
	assert_false(ch.timed_out);
	assert_int_equal(t.ticks, 2);	/* about once a second, then the kill */
	assert_true(ch.seconds >= 2 && ch.seconds < 5);
}

static void test_exit_code_of_signal(void **state)
{
	const char *argv[] = { "sh", "-c", "kill -9 $$", NULL };
	struct child ch = CHILD_INIT;

	(void)state;
	ch.argv = argv;
	assert_int_equal(child_run(&ch), 0);
	assert_int_equal(ch.exit_code, 128 + 9);
}

/*
 * child_run_all: the children run at the same time.  Each waits for the
 * other's file before it exits, so run one after the other they would both
 * time out; each keeps its own output, exit status and clocks.
 */
static void test_run_all_at_once(void **state)
{
	char dir[] = "/tmp/bb-child-all-XXXXXX", script[2][512];
	struct child a = CHILD_INIT, b = CHILD_INIT, c = CHILD_INIT;
	struct buf out[3] = { BUF_INIT, BUF_INIT, BUF_INIT };
	struct child *all[] = { &a, &b, &c };
	const char *argv[3][4];
	const char *sleeper[] = { "sleep", "30", NULL };

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 2; i++) {
		snprintf(script[i], sizeof(script[i]), "touch %s/%c; while [ ! -e %s/%c ]; do"
			 " sleep 0.05; done; echo child %c; exit %d", dir, 'a' + i, dir, 'b' - i,
			 'a' + i, 3 + i);
		argv[i][0] = "sh";
		argv[i][1] = "-c";
		argv[i][2] = script[i];
		argv[i][3] = NULL;
		all[i]->argv = argv[i];
		all[i]->timeout = 20;
		all[i]->capture = &out[i];
	}
	c.argv = sleeper;	/* a third that overstays: only it is killed */
	c.timeout = 1;
	c.capture = &out[2];
	assert_int_equal(child_run_all(all, 3), -1);
	assert_false(a.timed_out);
	assert_false(b.timed_out);
	assert_int_equal(a.exit_code, 3);
	assert_int_equal(b.exit_code, 4);
	assert_string_equal(out[0].ptr, "child a\n");
	assert_string_equal(out[1].ptr, "child b\n");
	assert_true(c.timed_out);
	assert_int_equal(child_run_all(all, 2), 0);	/* the files are there: both exit */
	for (int i = 0; i < 3; i++)
		buf_release(&out[i]);
	for (int i = 0; i < 2; i++) {
		snprintf(script[i], sizeof(script[i]), "%s/%c", dir, 'a' + i);
		unlink(script[i]);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_full_is_ours),
		cmocka_unit_test(test_log_not_a_file),
		cmocka_unit_test(test_log_capped),
		cmocka_unit_test(test_log_unopenable),
		cmocka_unit_test(test_log_and_capture_split),
		cmocka_unit_test(test_capture_capped),
		cmocka_unit_test(test_log_appends_both),
		cmocka_unit_test(test_output_callback),
		cmocka_unit_test(test_timeout_kills),
		cmocka_unit_test(test_tick_and_cancel),
		cmocka_unit_test(test_exit_code_of_signal),
		cmocka_unit_test(test_run_all_at_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
