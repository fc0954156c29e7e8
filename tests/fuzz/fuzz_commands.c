/*
 * Fuzz target: commands in tracker comments (triage/commands_parse.c): any
 * comment text, its command lines parsed, each spelt back as a command.
 * The parser reads hostile text into fixed buffers (words, a line, a hint).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct comment_cmd cmds[COMMENT_CMD_MAX];
	char *text = malloc(size + 1), out[256];
	int n;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = comment_cmd_parse(text, cmds, COMMENT_CMD_MAX);
	for (int i = 0; i < n && i < COMMENT_CMD_MAX; i++) {
		comment_cmd_text(&cmds[i], out, sizeof(out));
		if (strlen(cmds[i].line) >= sizeof(cmds[i].line) || strchr(cmds[i].line, '\n'))
			abort();	/* a line is one line, and fits */
	}
	free(text);
	return 0;
}
