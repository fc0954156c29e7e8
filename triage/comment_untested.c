/*
 * comment_untested: an untested job's reasons as comment lines.
 *
 * The runner writes one line per file it could not test (runner/kplan.c,
 * kprofile.c): "<path>: needs CONFIG_X, which depends on ...", "<path>:
 * built only for arm64; ...", "<path>: was not compiled, ...", "<path>: no
 * object of this kernel includes it", or one about the whole patch.  The
 * path comes from the patch and the rest is rebuilt by the runner from
 * Kconfig symbols and operators, but the detail is still not copied: a
 * line is shown only in one of those shapes, with a path of path
 * characters and a reason of plain characters, each bounded; any other
 * line is counted and left to the job page.
 */
#include "triage_comment.h"

#include <ctype.h>
#include <string.h>

#define UNTESTED_LINES 6
#define PATH_MAX_SHOWN 120
#define REASON_MAX 300

static bool path_chars(const char *s, size_t n)
{
	if (!n || n > PATH_MAX_SHOWN || *s == '/' || memmem(s, n, "..", 2))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_./+-", s[i]))
			return false;
	return true;
}

static bool reason_chars(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > REASON_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(" _.,:;()&|!=/+-[]?", s[i]))
			return false;
	return true;
}

/* One reason line, rebuilt into out when it has a known shape. */
static bool untested_line(const char *s, struct buf *out)
{
	static const char *const file_reasons[] = {
		"needs CONFIG_", "built only for ", "was not compiled, ",
		"no object of this kernel includes it",
	};
	static const char *const patch_reasons[] = {
		"the patch changes no file the kernel is built from: ",
		"the options this patch needs drop ones the suite needs: ",
	};
	const char *colon = strstr(s, ": ");

	if (!reason_chars(s))
		return false;
	for (size_t i = 0; i < sizeof(patch_reasons) / sizeof(patch_reasons[0]); i++)
		if (!strncmp(s, patch_reasons[i], strlen(patch_reasons[i]))) {
			buf_addstr(out, s);
			return true;
		}
	if (!colon || !path_chars(s, (size_t)(colon - s)))
		return false;
	for (size_t i = 0; i < sizeof(file_reasons) / sizeof(file_reasons[0]); i++)
		if (!strncmp(colon + 2, file_reasons[i], strlen(file_reasons[i]))) {
			buf_addstr(out, s);
			return true;
		}
	return false;
}

void triage_add_untested(struct buf *out, const char *detail)
{
	struct buf line = BUF_INIT;
	int n = 0, left_out = 0;

	for (const char *p = detail; p && *p;) {
		size_t len = strcspn(p, "\n");

		buf_reset(&line);
		buf_add(&line, p, len);
		buf_trim(&line);
		if (line.len && n < UNTESTED_LINES) {
			size_t at = out->len;

			buf_addstr(out, n ? "          " : "Untested: ");
			if (untested_line(line.ptr, out)) {
				buf_addch(out, '\n');
				n++;
			} else {
				buf_setlen(out, at);
				left_out++;
			}
		} else if (line.len) {
			left_out++;
		}
		p += len + (p[len] == '\n');
	}
	if (left_out)
		buf_addf(out, "%s%d more line%s on the job page\n", n ? "          " : "Untested: ",
			 left_out, left_out > 1 ? "s" : "");
	buf_release(&line);
}
