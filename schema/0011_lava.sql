-- 0011_lava: boots in a LAVA lab ([runner] backend = lava).

-- One row per LAVA job the runner submitted (or is about to submit) for a
-- boot of a job: the suite boot of each variant, and each re-run of a
-- failing test.  The job page and the result comment show url.
CREATE TABLE lava_jobs (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	job_id       INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	attempt      INTEGER NOT NULL,
	variant      TEXT NOT NULL,                      -- patched | baseline
	boot         TEXT NOT NULL,                      -- scenario boot, "boot/test" for a re-run
	lava_id      INTEGER,                            -- NULL until LAVA accepted it
	url          TEXT,                               -- the LAVA job's page
	state        TEXT NOT NULL DEFAULT 'waiting',    -- LAVA's state, or waiting (not submitted)
	health       TEXT,                               -- LAVA's health once finished
	device       TEXT,                               -- the device that ran it
	outcome      TEXT,                               -- what the runner made of it
	created_at   REAL NOT NULL,
	submitted_at REAL,
	finished_at  REAL
);
CREATE INDEX lava_jobs_job ON lava_jobs (job_id, id);

-- Kernel, initramfs and disk images a LAVA worker fetches for one boot.
-- bugbridged serves /artifacts/<token>/<name> from dir while the row exists,
-- expires_at has not passed and the job is running; the runner deletes the
-- row when the LAVA job ends.  The token is 256 random bits.
CREATE TABLE artifacts (
	token      TEXT PRIMARY KEY,
	job_id     INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	dir        TEXT NOT NULL,
	expires_at INTEGER NOT NULL
);
