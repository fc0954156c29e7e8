/* http: placeholder until the dashboard issue lands; see service.h. */
#include "log.h"
#include "service.h"

#include <stdlib.h>

struct http_server {
	int unused;
};

struct http_server *http_start(struct buf *err)
{
	(void)err;
	log_info("http: dashboard not built yet");
	return calloc(1, sizeof(struct http_server));
}

void http_stop(struct http_server *srv)
{
	free(srv);
}
