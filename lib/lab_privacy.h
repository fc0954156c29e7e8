/*
 * lab_privacy: what bugbridge published outside of a job that turned
 * private since, taken back at the next poll (issue 35).
 *
 * A job is private when its bug is (or its patch's comment or attachment
 * is: privacy.h).  A bug can turn private after its jobs ran: their LAVA
 * jobs, submitted public, show the patch's kernel, console and name to
 * anyone who visits the lab, and their artifact tokens (the LAVA job's
 * definition shows them) would serve the kernel.  So after each poll
 * bugbridged
 *
 *   - deletes the artifact tokens made for such a job (/artifacts already
 *     refuses them: web/artifacts.c);
 *   - removes each of their LAVA jobs that was submitted public from the
 *     lab ([lava] url): cancelled if it still runs, then deleted (LAVA's
 *     REST API has no way to change a job's visibility; deleting needs a
 *     LAVA superuser's token), and notes it in lava_jobs.visibility
 *     ("removed").  The runner following one then finds it gone: an
 *     infrastructure error, and the job's next try goes to the lab as a
 *     private job does ([lava] private_visibility).
 *
 * A job private from the start never went out public (runner/lava.c).
 */
#ifndef BB_LAB_PRIVACY_H
#define BB_LAB_PRIVACY_H

#include "db.h"

/* 0, or -1 when something stays public (logged, naming it); retried next time. */
int lab_privacy_enforce(struct db *db);

#endif
