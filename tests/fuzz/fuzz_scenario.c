/* Fuzz target: the suite's scenarios file parser (a tracker bug may one day carry its own). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario sc;
	struct buf err = BUF_INIT;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!scenario_parse(text, &sc, &err))
		scenario_release(&sc);
	buf_release(&err);
	free(text);
	return 0;
}
