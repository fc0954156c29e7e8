/* poll: placeholder until its issue lands; see service.h for the contract. */
#include "log.h"
#include "service.h"

int poll_cycle(struct db *db, const volatile sig_atomic_t *stop)
{
	(void)db;
	(void)stop;
	log_debug("poll: not built yet");
	return 0;
}
