/*
 * joblog: writing the files under a job's log dir.
 *
 * A log we cannot write (the disk is full, a quota ran out) says nothing
 * about the patch: it is our side failing, so the run ends as infra-error,
 * which the job queue retries later, and the error names the file and the
 * reason.  A run keeps only the first such error: the ones after it are the
 * same full disk.
 */
#include "run.h"
#include "stage.h"
#include "buf.h"
#include "child.h"
#include "log.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void log_failed(struct run *r, const char *path, int err)
{
	if (r->log_failed)
		return;
	r->log_failed = true;
	if (r->infra.len)
		buf_addch(&r->infra, '\n');
	buf_addf(&r->infra, "cannot write the log '%s': %s", path, safe_strerror(err));
	log_error("runner: cannot write the log '%s': %s", path, safe_strerror(err));
}

int joblog_write(struct run *r, const char *path, bool append, const char *data, size_t len)
{
	/* lib/safefile: a log is a regular file of ours, never a link or a FIFO */
	int fd = safe_open_path(path, append ? SAFE_APPEND : SAFE_WRITE), err = 0;

	if (fd < 0) {
		log_failed(r, path, errno);
		return -1;
	}
	if (write_in_full(fd, data, len))
		err = errno;
	/* tmpfs and NFS may report a full disk only at close */
	if (close(fd) && !err)
		err = errno;
	if (err) {
		log_failed(r, path, err);
		return -1;
	}
	return 0;
}

int joblog_child(struct run *r, const struct child *ch)
{
	if (!ch->log_errno)
		return 0;
	log_failed(r, ch->log_path, ch->log_errno);
	return -1;
}
