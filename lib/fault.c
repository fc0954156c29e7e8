/*
 * fault: see fault.h.
 */
#include "fault.h"

#include <string.h>

static const char *const names[] = {
	[FAULT_NONE] = NULL, [FAULT_PATCH] = "patch", [FAULT_INFRA] = "infra",
	[FAULT_OURS] = "ours",
};

const char *fault_name(enum fault f)
{
	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : NULL;
}

enum fault fault_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && !strcmp(names[i], name))
			return (enum fault)i;
	return FAULT_NONE;
}

enum fault fault_of_verdict(const char *verdict, bool patched)
{
	static const char *const patch_made[] = {
		"apply-failed", "build-failed", "panic", "boot-timeout",
	};

	if (!verdict)
		return FAULT_NONE;
	if (!strcmp(verdict, "infra-error"))
		return FAULT_INFRA;
	for (size_t i = 0; patched && i < sizeof(patch_made) / sizeof(patch_made[0]); i++)
		if (!strcmp(verdict, patch_made[i]))
			return FAULT_PATCH;
	return FAULT_NONE;
}

bool fault_no_result(enum fault f)
{
	return f == FAULT_INFRA || f == FAULT_OURS;
}

bool fault_retried(enum fault f)
{
	return f == FAULT_INFRA;
}
