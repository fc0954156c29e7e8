/*
 * Unit tests for lib/patch: what is and is not a diff, mboxes, the inline
 * range in a comment, the normalised form, and hostile input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patch.h"
#include "sha256.h"

#define GIT_MAIL(hash, subject, from, to) \
	"From " hash " Mon Sep 17 00:00:00 2001\n" \
	"From: A Developer <dev@example.com>\n" \
	"Date: Tue, 1 Dec 2026 10:00:00 +0000\n" \
	"Subject: [PATCH] " subject "\n" \
	"\n" \
	"Explain the change.\n" \
	"\n" \
	"Signed-off-by: A Developer <dev@example.com>\n" \
	"---\n" \
	" drivers/scsi/sd.c | 2 +-\n" \
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n" \
	"\n" \
	"diff --git a/drivers/scsi/sd.c b/drivers/scsi/sd.c\n" \
	"index 1111111..2222222 100644\n" \
	"--- a/drivers/scsi/sd.c\n" \
	"+++ b/drivers/scsi/sd.c\n" \
	"@@ -10,3 +10,3 @@ static int sd_probe(struct device *dev)\n" \
	" \tint a;\n" \
	"-\t" from "\n" \
	"+\t" to "\n" \
	" \treturn 0;\n" \
	"-- \n" \
	"2.39.2\n" \
	"\n"

static const char quilt_style[] =
	"Index: linux/drivers/scsi/sd.c\n"
	"===================================================================\n"
	"--- linux.orig/drivers/scsi/sd.c\t2008-01-02 17:00:00.000000000 +0100\n"
	"+++ linux/drivers/scsi/sd.c\t2008-01-02 17:10:00.000000000 +0100\n"
	"@@ -10,3 +10,3 @@\n"
	" \tint a;\n"
	"-\told();\n"
	"+\tnew();\n"
	" \treturn 0;\n";

static void hash_of_normalised(const char *data, size_t len, char hex[SHA256_HEX_LEN])
{
	struct buf n = BUF_INIT;

	patch_normalise(data, len, &n);
	assert_true(n.len > 0);
	sha256_hex(n.ptr, n.len, hex);
	buf_release(&n);
}

static void test_git_format_patch(void **state)
{
	static const char mail[] = GIT_MAIL("0123456789abcdef0123456789abcdef01234567",
					    "sd: use new()", "old();", "new();");
	struct patch_info info;

	(void)state;
	assert_int_equal(patch_parse(mail, strlen(mail), &info), 0);
	assert_int_equal(info.kind, PATCH_DIFF);
	assert_int_equal(info.patches, 1);
	assert_int_equal(info.files, 1);
	assert_int_equal(info.hunks, 1);
	/* the range starts at "diff --git" and stops before the signature */
	assert_true(!strncmp(mail + info.start, "diff --git", 10));
	assert_true(!strncmp(mail + info.end, "-- \n2.39.2", 10));
}

static void test_mbox_of_two(void **state)
{
	static const char mbox[] =
		GIT_MAIL("0123456789abcdef0123456789abcdef01234567", "[1/2] one", "a();", "b();")
		GIT_MAIL("89abcdef0123456789abcdef0123456789abcdef", "[2/2] two", "c();", "d();");
	struct patch_info info;

	(void)state;
	assert_int_equal(patch_parse(mbox, strlen(mbox), &info), 0);
	assert_int_equal(info.kind, PATCH_MBOX);
	assert_int_equal(info.patches, 2);
	assert_int_equal(info.hunks, 2);
	assert_string_equal(patch_kind_name(info.kind), "mbox");
}

static void test_seed_patch(void **state)
{
	const char *shared = getenv("BB_SHARED");
	struct buf data = BUF_INIT, path = BUF_INIT;
	struct patch_info info;

	(void)state;
	buf_addf(&path, "%s/seeds/001-patch-scsi-revert-scsi-get-rid-of-scsi-cmnd-done.patch",
		 shared ? shared : "../shared");
	if (buf_read_file(&data, path.ptr)) {
		buf_reset(&path);
		buf_addstr(&path, "/work/shared/seeds/001-patch-scsi-revert-scsi-get-rid-of-scsi-cmnd-done.patch");
		assert_int_equal(buf_read_file(&data, path.ptr), 0);
	}
	assert_int_equal(patch_parse(data.ptr, data.len, &info), 0);
	assert_int_equal(info.kind, PATCH_DIFF);
	assert_int_equal(info.files, 9);	/* its diffstat says 9 files */
	assert_true(!strncmp(data.ptr + info.start, "Index: linux/drivers/scsi/scsi.c", 32));
	/* "From:  Ingo" is a header, not an mbox separator */
	assert_int_equal(info.patches, 1);
	buf_release(&data);
	buf_release(&path);
}

static void test_not_a_diff(void **state)
{
	static const char *const prose[] = {
		"",
		"Booting v2.6.24-rc2 logs:\n  attempt to access beyond end of device\n",
		"Some notes\n---\nmore notes\n@@ not a hunk @@\n",
		/* headers without a hunk */
		"--- a/x\n+++ b/x\nthe rest\n",
		/* a hunk promising more changed lines than follow */
		"--- a/x\n+++ b/x\n@@ -1,4 +1,3 @@\n a\n-b\n+c\n",
		/* only context, cut short: no change seen */
		"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n b\n",
		/* a hunk whose body breaks the counts */
		"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\nprose in the middle\n b\n",
		/* zero-length both sides */
		"--- a/x\n+++ b/x\n@@ -0,0 +0,0 @@\n",
		/* a huge count */
		"--- a/x\n+++ b/x\n@@ -1,99999999999999 +1 @@\n-a\n+b\n",
	};
	struct patch_info info;
	struct buf n = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(prose) / sizeof(*prose); i++) {
		assert_int_equal(patch_parse(prose[i], strlen(prose[i]), &info), -1);
		assert_int_equal(info.kind, PATCH_NONE);
		patch_normalise(prose[i], strlen(prose[i]), &n);
		assert_int_equal(n.len, 0);
	}
	buf_release(&n);
}

static void test_inline_in_comment(void **state)
{
	static const char comment[] =
		"Could you try this on top of 6.1?\n"
		"\n"
		"diff --git a/drivers/scsi/sd.c b/drivers/scsi/sd.c\n"
		"--- a/drivers/scsi/sd.c\n"
		"+++ b/drivers/scsi/sd.c\n"
		"@@ -10,3 +10,3 @@\n"
		" \tint a;\n"
		"-\told();\n"
		"+\tnew();\n"
		" \treturn 0;\n"
		"\n"
		"Thanks,\nA.\n";
	struct patch_info info;

	(void)state;
	assert_int_equal(patch_parse(comment, strlen(comment), &info), 0);
	assert_true(!strncmp(comment + info.start, "diff --git a/drivers", 20));
	assert_true(!strcmp(comment + info.end, "\nThanks,\nA.\n"));
}

/* The same change in three clothes is one patch. */
static void test_normalised_identity(void **state)
{
	static const char mail[] = GIT_MAIL("0123456789abcdef0123456789abcdef01234567",
					    "sd: use new()", "old();", "new();");
	static const char other[] = GIT_MAIL("0123456789abcdef0123456789abcdef01234567",
					     "sd: use newer()", "old();", "newer();");
	char h1[SHA256_HEX_LEN], h2[SHA256_HEX_LEN], h3[SHA256_HEX_LEN], h4[SHA256_HEX_LEN];
	struct buf crlf = BUF_INIT;

	(void)state;
	hash_of_normalised(mail, strlen(mail), h1);
	hash_of_normalised(quilt_style, strlen(quilt_style), h2);
	assert_string_equal(h1, h2);
	for (const char *p = quilt_style; *p; p++) {
		if (*p == '\n')
			buf_addch(&crlf, '\r');
		buf_addch(&crlf, *p);
	}
	hash_of_normalised(crlf.ptr, crlf.len, h3);
	assert_string_equal(h1, h3);
	hash_of_normalised(other, strlen(other), h4);
	assert_string_not_equal(h1, h4);
	buf_release(&crlf);
}

/* A hand-made diff whose last context line lost its leading blank still counts. */
static void test_short_trailing_context(void **state)
{
	static const char diff[] =
		"--- a/drivers/scsi/sd.c\n+++ b/drivers/scsi/sd.c\n@@ -1,3 +1,3 @@\n"
		" static int sd_done(struct scsi_cmnd*)\n-\tint good = 0;\n+\tint good = 512;\n}\n";
	struct patch_info info;

	(void)state;
	assert_int_equal(patch_parse(diff, strlen(diff), &info), 0);
	assert_int_equal(info.hunks, 1);
	assert_string_equal(diff + info.end, "}\n");
}

static void test_no_newline_marker_and_eof(void **state)
{
	static const char diff[] =
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
		"\\ No newline at end of file";
	struct patch_info info;

	(void)state;
	assert_int_equal(patch_parse(diff, strlen(diff), &info), 0);
	assert_int_equal(info.end, strlen(diff));
}

/*
 * Hostile input: every prefix of a real patch, and random bytes, must parse
 * without reading past the end (ASan build) and without crashing.  The
 * copy is malloc'ed at its exact length so an overread is caught.
 */
static void test_truncations_and_noise(void **state)
{
	static const char mail[] = GIT_MAIL("0123456789abcdef0123456789abcdef01234567",
					    "sd: use new()", "old();", "new();");
	struct patch_info info;
	struct buf n = BUF_INIT;
	unsigned int seed = 9370;

	(void)state;
	for (size_t cut = 0; cut <= strlen(mail); cut++) {
		char *copy = malloc(cut ? cut : 1);

		memcpy(copy, mail, cut);
		patch_parse(copy, cut, &info);
		patch_normalise(copy, cut, &n);
		buf_reset(&n);
		free(copy);
	}
	for (int round = 0; round < 2000; round++) {
		size_t len = rand_r(&seed) % 300;
		char *noise = malloc(len ? len : 1);
		static const char alphabet[] = "-+ @,\n\r\\0123456789abDiFrom:";

		for (size_t i = 0; i < len; i++)
			noise[i] = rand_r(&seed) % 4 ? alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)]
						      : (char)rand_r(&seed);
		patch_parse(noise, len, &info);
		patch_normalise(noise, len, &n);
		buf_reset(&n);
		free(noise);
	}
	buf_release(&n);
}

/* ---- patch_check: what GNU patch may see ---- */

static void assert_refused(const char *text, const char *reason)
{
	struct buf why = BUF_INIT;

	assert_int_equal(patch_check(text, strlen(text), &why), -1);
	if (!strstr(why.ptr, reason))
		fail_msg("refusal '%s' does not say '%s'", why.ptr, reason);
	buf_release(&why);
}

static void assert_allowed(const char *text, size_t len)
{
	struct buf why = BUF_INIT;

	if (patch_check(text, len, &why))
		fail_msg("refused: %s", why.ptr);
	buf_release(&why);
}

static void test_check_allows_plain_and_git(void **state)
{
	static const char mode_change[] =
		"diff --git a/scripts/x.sh b/scripts/x.sh\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git a/drivers/scsi/new.c b/drivers/scsi/new.c\n"
		"new file mode 100644\n"
		"index 0000000..1111111\n"
		"--- /dev/null\n"
		"+++ b/drivers/scsi/new.c\n"
		"@@ -0,0 +1,2 @@\n"
		"+--- a/../../etc/passwd\n"
		"+1,2d\n";
	const char *mail = GIT_MAIL("1234567890abcdef1234567890abcdef12345678", "fix", "a();", "b();");
	(void)state;
	assert_allowed(mail, strlen(mail));
	assert_allowed(quilt_style, strlen(quilt_style));
	/* hunk lines that look like headers or ed commands are content */
	assert_allowed(mode_change, strlen(mode_change));
}

static void test_check_refuses_symlinks_and_binaries(void **state)
{
	(void)state;
	assert_refused("diff --git a/evil b/evil\n"
		       "new file mode 120000\n"
		       "index 0000000..1111111\n"
		       "--- /dev/null\n"
		       "+++ b/evil\n"
		       "@@ -0,0 +1 @@\n"
		       "+/etc\n"
		       "\\ No newline at end of file\n", "symbolic link (mode 120000)");
	assert_refused("diff --git a/l b/l\n"
		       "old mode 100644\n"
		       "new mode 120000\n", "symbolic link");
	assert_refused("diff --git a/l b/l\n"
		       "index 1111111..2222222 120000\n"
		       "--- a/l\n+++ b/l\n@@ -1 +1 @@\n-x\n+/\n", "symbolic link");
	assert_refused("diff --git a/sub b/sub\nnew file mode 160000\n", "submodule");
	assert_refused("diff --git a/fw.bin b/fw.bin\n"
		       "new file mode 100644\n"
		       "index 0000000..1111111\n"
		       "GIT binary patch\nliteral 4\nLcmZ>7\n\n", "binary patch");
	assert_refused("diff --git a/x.bin b/x.bin\n"
		       "index 1111111..2222222 100644\n"
		       "Binary files a/x.bin and b/x.bin differ\n", "binary patch");
	{
		static const char nul[] = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\0\n";
		struct buf why = BUF_INIT;
		assert_int_equal(patch_check(nul, sizeof(nul) - 1, &why), -1);
		/* the line it is on (the 5th), not "line 0" */
		assert_string_equal(why.ptr, "line 5: a NUL byte: only text diffs are applied");
		buf_release(&why);
	}
	{
		static const char first[] = "\0--- a/x\n", last[] = "--- a/x\n+++ b/x\n\0";
		struct buf why = BUF_INIT;
		assert_int_equal(patch_check(first, sizeof(first) - 1, &why), -1);
		assert_non_null(strstr(why.ptr, "line 1: a NUL byte"));
		buf_reset(&why);
		assert_int_equal(patch_check(last, sizeof(last) - 1, &why), -1);
		assert_non_null(strstr(why.ptr, "line 3: a NUL byte"));
		buf_release(&why);
	}
}

static void test_check_refuses_ed_and_other_formats(void **state)
{
	(void)state;
	assert_refused("1c\nHACKED\n.\nw f\nq\n", "ed script");
	assert_refused("Subject: x\n\n3,4d\n5a\n", "ed script");
	assert_refused("2c2\n< a\n---\n> b\n", "normal diff");
	assert_refused("*** a/x\n--- b/x\n***************\n*** 1 ****\n! a\n--- 1 ----\n! b\n",
		       "context diff");
}

static void test_check_refuses_paths_out_of_tree(void **state)
{
	(void)state;
	assert_refused("--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
		       "out of the tree");
	assert_refused("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
		       "absolute file name");
	assert_refused("diff --git a/x b/../x\n", "out of the tree");
	assert_refused("Index: ../x\n--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n", "out of the tree");
	assert_refused("diff --git a/x b/y\nsimilarity index 100%\nrename from x\n"
		       "rename to ../../y\n", "out of the tree");
	assert_refused("diff --git a/x b/y\ncopy from /etc/shadow\ncopy to y\n",
		       "absolute file name");
	assert_refused("diff --git \"a/x\\n\" \"b/x\\n\"\n", "quoted file name");
	assert_refused("--- a//etc/passwd\n+++ b//etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
		       "empty component");
	/* a rename inside the tree is fine */
	assert_allowed("diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n",
		       strlen("diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_format_patch),
		cmocka_unit_test(test_mbox_of_two),
		cmocka_unit_test(test_seed_patch),
		cmocka_unit_test(test_not_a_diff),
		cmocka_unit_test(test_inline_in_comment),
		cmocka_unit_test(test_normalised_identity),
		cmocka_unit_test(test_short_trailing_context),
		cmocka_unit_test(test_no_newline_marker_and_eof),
		cmocka_unit_test(test_truncations_and_noise),
		cmocka_unit_test(test_check_allows_plain_and_git),
		cmocka_unit_test(test_check_refuses_symlinks_and_binaries),
		cmocka_unit_test(test_check_refuses_ed_and_other_formats),
		cmocka_unit_test(test_check_refuses_paths_out_of_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
