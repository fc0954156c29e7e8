/*
 * Unit tests for the times runner/tree.c sets in a job's tree after its
 * patch applied (issue 23): the candidate's files touched (now) so that
 * make rebuilds them over a seed, the harness's set back to the base's.
 * The tree is the patch's work, so the attack is planted in it: its
 * drivers/ directory replaced by a symlink to a directory outside, whose
 * scsi/sd.c must keep its times.  The tree's own files still get theirs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "tree.h"
#include "paths.h"
#include "buf.h"

static char top[64];
static struct buf jobdir, tree, base, outside;
static struct run r;
static struct variant v;

static void put(const struct buf *dir, const char *rel, time_t mtime)
{
	struct buf path = BUF_INIT, parent = BUF_INIT;
	struct timespec t[2] = { { mtime, 0 }, { mtime, 0 } };
	FILE *f;

	buf_addf(&path, "%s/%s", dir->ptr, rel);
	buf_add(&parent, path.ptr, strrchr(path.ptr, '/') - path.ptr);
	assert_int_equal(mkdir_p(parent.ptr, 0755), 0);
	f = fopen(path.ptr, "w");
	assert_non_null(f);
	fputs("int x;\n", f);
	fclose(f);
	assert_int_equal(utimensat(AT_FDCWD, path.ptr, t, 0), 0);
	buf_release(&path);
	buf_release(&parent);
}

static time_t mtime(const struct buf *dir, const char *rel)
{
	struct buf path = BUF_INIT;
	struct stat st;

	buf_addf(&path, "%s/%s", dir->ptr, rel);
	assert_int_equal(lstat(path.ptr, &st), 0);
	buf_release(&path);
	return st.st_mtime;
}

static int setup(void **state)
{
	struct buf link = BUF_INIT;

	(void)state;
	strcpy(top, "/tmp/bb-tree-times-XXXXXX");
	assert_non_null(mkdtemp(top));
	buf_addf(&jobdir, "%s/jobs/1-a1", top);
	buf_addf(&tree, "%s/patched/tree", jobdir.ptr);
	buf_addf(&base, "%s/base/6.1", top);
	buf_addf(&outside, "%s/outside", top);
	put(&base, "Makefile", 1000000000);		/* the base's time */
	put(&outside, "scsi/sd.c", 1200000000);		/* not the job's */
	put(&tree, "fs/harness.c", 1500000000);
	put(&tree, "fs/candidate.c", 1500000000);
	/* the attack: the tree's drivers/ is a link to the outside */
	buf_addf(&link, "%s/drivers", tree.ptr);
	assert_int_equal(symlink(outside.ptr, link.ptr), 0);
	buf_release(&link);
	r = (struct run){ .jobdir = jobdir.ptr, .base_tree = base.ptr };
	v = (struct variant){ .run = &r, .name = "patched", .tree = tree.ptr, .npatches = 1 };
	return 0;
}

static int teardown(void **state)
{
	struct buf cmd = BUF_INIT;

	(void)state;
	buf_addf(&cmd, "rm -rf '%s'", top);
	assert_int_equal(system(cmd.ptr), 0);
	buf_release(&cmd);
	buf_release(&jobdir);
	buf_release(&tree);
	buf_release(&base);
	buf_release(&outside);
	buf_release(&v.detail);
	buf_release(&r.infra);
	return 0;
}

/* The harness's files get the base's time; the one behind the link keeps its own. */
static void test_settle_harness(void **state)
{
	char *touched[] = { "drivers/scsi/sd.c", "fs/harness.c", "fs/candidate.c" };
	char *cand[] = { "fs/candidate.c" };

	(void)state;
	assert_int_equal(tree_settle_harness(&r, &v, touched, 3, cand, 1), 0);
	assert_int_equal(mtime(&tree, "fs/harness.c"), 1000000000);
	assert_int_equal(mtime(&tree, "fs/candidate.c"), 1500000000);	/* the candidate's */
	assert_int_equal(mtime(&outside, "scsi/sd.c"), 1200000000);
}

/* The candidate's files are touched; one behind a link is the patch's verdict, untouched. */
static void test_touch_candidate(void **state)
{
	char *cand[] = { "fs/candidate.c", "drivers/scsi/sd.c" };
	time_t start = time(NULL);

	(void)state;
	v.cand_files = cand;
	v.ncand_files = 2;
	assert_int_equal(tree_touch_candidate(&r, &v), -1);
	assert_true(mtime(&tree, "fs/candidate.c") >= start);
	assert_int_equal(mtime(&outside, "scsi/sd.c"), 1200000000);
	assert_string_equal(v.verdict, "apply-failed");
	assert_string_equal(v.detail.ptr, "refused to touch the patched drivers/scsi/sd.c:"
			    " a symbolic link is on its path");
	assert_int_equal(r.infra.len, 0);	/* the patch's doing, not infra */
	/* a file the patch removed is no error */
	cand[1] = "fs/removed.c";
	v.verdict = NULL;
	assert_int_equal(tree_touch_candidate(&r, &v), 0);
	assert_null(v.verdict);
	v.cand_files = NULL;
	v.ncand_files = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settle_harness),
		cmocka_unit_test(test_touch_candidate),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
