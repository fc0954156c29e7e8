/*
 * api_runner: the remote runners' endpoints under /api/runner/ (claim,
 * heartbeat, result).  Placeholder until the runner's remote mode lands:
 * it already insists on the bearer token, so an unauthenticated caller
 * learns nothing, and answers 501 otherwise.  The runner engineer replaces
 * the body; see http.h for the request and response types.
 */
#include "http.h"

int api_runner(struct http_request *req, struct http_response *resp)
{
	if (http_require_token(req, resp))
		return 0;
	return http_error(resp, 501, "remote runners not enabled yet");
}
