/*
 * Fuzz target: the patch/mbox recogniser on arbitrary bytes (it reads
 * attachments and comments straight from the tracker).  The input is copied
 * to a buffer of exactly its size, without a final NUL, so an overread is
 * caught.  Checks the contract: a reported range lies inside the input and
 * a recognised diff has a non-empty normalised form.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf norm = BUF_INIT, why = BUF_INIT;
	struct patch_info info;
	char *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (!patch_parse(copy, size, &info)) {
		if (info.start > info.end || info.end > size || info.hunks < 1)
			abort();
		patch_normalise(copy, size, &norm);
		if (!norm.len)
			abort();
	}
	/* the runner's gate: a refusal always says why */
	if (patch_check(copy, size, &why) && !why.len)
		abort();
	buf_release(&why);
	buf_release(&norm);
	free(copy);
	return 0;
}
