/*
 * Fuzz target: what the runner reads from an untrusted guest console, the
 * KTAP parser and the kernel-problem scanner, on the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "logscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktap_result k;
	struct logscan_result l;

	ktap_parse((const char *)data, size, &k);
	ktap_release(&k);
	logscan((const char *)data, size, &l);
	logscan_release(&l);
	return 0;
}
