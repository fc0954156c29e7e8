/*
 * patch: recognise unified diffs and mboxes of patches in untrusted text.
 *
 * A pure function over a byte buffer (no allocation except the caller's
 * buf, no global state, no reads past len, no assumption of a final NUL or
 * of valid UTF-8): it is fed attachments and comments straight from the
 * tracker, and it is fuzzed.
 *
 * "Is a diff" means at least one complete hunk: a "--- " line, a "+++ "
 * line, then "@@ -a,b +c,d @@" followed by exactly b old and d new lines.
 * Prose that merely mentions "---" or "@@" is not a diff.  Mail headers,
 * commit messages, diffstats and "-- " signatures around the hunks are
 * allowed (git format-patch, quilt "Index:" style, plain diff -u).
 *
 * An mbox is two or more "From <hash> <date>" messages, each carrying a
 * diff (git format-patch --stdout, or b4 output).
 *
 * The normalised form is what identifies a patch: only the file headers and
 * hunks, CRLF turned into LF, the first path component and timestamps of
 * the file headers dropped, and the function context after "@@ ... @@"
 * dropped; so the same change attached as a format-patch mail, pasted
 * inline in a comment or produced by quilt hashes the same.
 */
#ifndef BB_PATCH_H
#define BB_PATCH_H

#include <stddef.h>
#include "buf.h"

enum patch_kind { PATCH_NONE, PATCH_DIFF, PATCH_MBOX };

struct patch_info {
	enum patch_kind kind;
	int patches;		/* diff-carrying messages (mbox), else 1; 0 if none */
	int files;		/* file sections with at least one complete hunk */
	int hunks;		/* complete hunks */
	size_t start, end;	/* [start, end): first diff header .. last hunk's end */
};

/* Fill info; returns 0 if data holds at least one complete hunk, else -1. */
int patch_parse(const char *data, size_t len, struct patch_info *info);

/* Append the normalised diff to out (empty if there is none). */
void patch_normalise(const char *data, size_t len, struct buf *out);

const char *patch_kind_name(enum patch_kind kind);

/*
 * patch_check.c: is this text safe to hand to GNU patch?  0 when it holds
 * only unified diffs (plain or git) of regular files under relative paths;
 * -1 with "line N: what" appended to why for a symlink or submodule mode,
 * a binary patch, an ed script or normal/context diff, a rename, copy or
 * file name that is absolute, quoted or has a ".." component, or a NUL byte.
 */
int patch_check(const char *data, size_t len, struct buf *why);

#endif
