/* Fuzz target: the configuration parser on arbitrary text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT;
	struct config c;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	config_init(&c);
	config_parse(&c, text, "fuzz.conf", &err);
	config_release(&c);
	buf_release(&err);
	free(text);
	return 0;
}
