/*
 * Fuzz target: the MAINTAINERS parser and matcher.  The first line of the
 * input is used as a file path to look up, the rest as MAINTAINERS text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maintainers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct maint_db db = MAINT_DB_INIT;
	struct maint_result res = MAINT_RESULT_INIT;
	char *text = malloc(size + 1), *nl;
	const char *path;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	path = text;
	maint_parse(&db, nl ? nl + 1 : "", nl ? strlen(nl + 1) : 0);
	maint_for_files(&db, &path, 1, &res);
	maint_result_release(&res);
	maint_release(&db);
	free(text);
	return 0;
}
