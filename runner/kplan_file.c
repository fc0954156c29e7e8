/*
 * kplan_file: what kind of file a path of the kernel tree is, from its
 * name alone (pure; see kplan.h).  Whether a C file is built, and by
 * which option, is kplan.c's question; this only says which files can
 * have lines that run in the kernel at all.
 */
#include "kplan.h"

#include <string.h>

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool under(const char *path, const char *dir)
{
	return !strncmp(path, dir, strlen(dir));
}

enum kfile_kind kplan_kind(const char *path, const char **why)
{
	static const char *const outside[] = { "tools/", "scripts/", "samples/", "LICENSES/",
					       "usr/gen_", ".", "debian/" };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	*why = NULL;
	if (under(path, "Documentation/") || ends(path, ".rst") || ends(path, ".txt") ||
	    ends(path, ".md") || !strcmp(base, "MAINTAINERS") || !strcmp(base, "CREDITS") ||
	    !strncmp(base, "README", 6)) {
		*why = "documentation";
		return KF_DOC;
	}
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		if (under(path, outside[i])) {
			*why = "not part of the kernel";
			return KF_OTHER;
		}
	if (!strncmp(base, "Kconfig", 7) || !strcmp(base, "Makefile") || !strcmp(base, "Kbuild") ||
	    ends(base, ".mk")) {
		*why = "build rules: no lines that run";
		return KF_BUILD;
	}
	if (ends(path, ".c"))
		return KF_SOURCE;
	if (ends(path, ".h"))
		return KF_HEADER;
	if (ends(path, ".S") || ends(path, ".s")) {
		*why = "assembly: gcov sees no lines of it";
		return KF_ASM;
	}
	*why = "not C: no lines gcov can see";
	return KF_OTHER;
}
