/*
 * maintainers: the kernel's MAINTAINERS file, read the way
 * scripts/get_maintainer.pl reads it, and files mapped to the people and
 * lists who should hear about them.
 *
 * An entry is a title line followed by tag lines "X:<tab>value":
 *   M: maintainer   R: reviewer   L: mailing list   S: status
 *   F: file pattern X: excluded pattern   N: regex on file names
 *   K: regex on patch content (kept, used by maint_keyword_match)
 * F:/X: patterns are globs ('*' any run of characters, '?' one) matched as
 * a prefix of the path; a pattern ending in '/' (or naming a directory the
 * path lies under) covers everything below it, any other pattern only files
 * at its own depth, exactly like get_maintainer.pl's file_match_pattern().
 * An entry whose X: pattern matches a file does not cover that file.
 *
 * Pure code over a string (no files, no logging): the parser is fuzzed, so
 * any input text is accepted; lines it does not understand are skipped.
 * N:/K: regexes are POSIX extended ones; a Perl-only construct, or one that
 * could make glibc's regex engine blow up (stacked or deeply nested
 * repetitions, braces, back-references, over 256 characters), never matches.
 * Ownership: struct maint_db owns every string and compiled regex in it;
 * maint_release() frees them.  Results point into the db.
 */
#ifndef BB_MAINTAINERS_H
#define BB_MAINTAINERS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct maint_list {
	char **v;
	int n, alloc;
};

struct maint_entry {
	char *title;
	char *status;			/* S:, or "" */
	struct maint_list maintainers;	/* M: "Name <address>" as written */
	struct maint_list reviewers;	/* R: */
	struct maint_list lists;	/* L: the address only */
	struct maint_list files;	/* F: */
	struct maint_list excludes;	/* X: */
	struct maint_list regexes;	/* N: as written */
	struct maint_list keywords;	/* K: as written */
	regex_t *name_re;		/* compiled N: (NULL where regcomp refused) */
	regex_t *keyword_re;		/* compiled K: likewise */
	bool *name_re_ok, *keyword_re_ok;
};

struct maint_db {
	struct maint_entry *entries;
	int n, alloc;
};

#define MAINT_DB_INIT { NULL, 0, 0 }

/* Parse MAINTAINERS text over an empty db.  Returns 0 (never fails on content). */
int maint_parse(struct maint_db *db, const char *text, size_t len);
void maint_release(struct maint_db *db);

/*
 * How specifically entry e covers path: get_maintainer.pl's pattern depth
 * (directory levels of the best F: match; 0 for an N: match, -1 for a
 * catch-all such as "*"), or INT_MIN when it does not cover it.
 */
int maint_entry_depth(const struct maint_entry *e, const char *path);
/* get_maintainer.pl's file_match_pattern() for one F:/X: glob. */
bool maint_pattern_match(const char *pattern, const char *path);

/*
 * The owners of a set of files: the entries covering any of them, most
 * specific first (catch-all entries such as THE REST only when nothing
 * else covers a file), and their maintainers and lists, each once.
 * Strings point into the db; free with maint_result_release().
 */
struct maint_result {
	const struct maint_entry **entries;
	int nentries;
	const char **people;		/* M: then R: entries, de-duplicated */
	int npeople;
	const char **lists;
	int nlists;
};

#define MAINT_RESULT_INIT { NULL, 0, NULL, 0, NULL, 0 }

int maint_for_files(const struct maint_db *db, const char *const *paths, int npaths,
		    struct maint_result *out);
void maint_result_release(struct maint_result *r);

/* Find an entry by its exact title, or NULL. */
const struct maint_entry *maint_find(const struct maint_db *db, const char *title);

/* Does any K: regex of e match text? */
bool maint_keyword_match(const struct maint_entry *e, const char *text);

/* "Name <addr>" -> "addr" into out (size outsz); the input if no <...>. */
void maint_address(const char *person, char *out, size_t outsz);

#endif
