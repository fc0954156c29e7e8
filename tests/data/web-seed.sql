-- web-seed: a small, known state for the dashboard tests (tests/t4*.sh).
-- Loaded with sqlite3 after `bugbridge db migrate`; @LOGS@ is replaced by
-- the test's log directory.  Bug 9370 carries hostile text: its summary
-- and comments contain <script>, quotes and '&', which must come out
-- escaped on every page.  Times of running/queued work are relative to now.
BEGIN;
INSERT INTO bugs (id, product, component, status, resolution, is_open, summary, creator,
	assigned_to, keywords, creation_time, last_change_time, closed_time, closed_by,
	triage_state, needs_attention) VALUES
 (9370, 'IO/Storage', 'SCSI', 'NEW', '', 1,
  'sd: lost completion <script>alert(1)</script> & "quoted" ''single'' timeout',
  'reporter@example.org', 'scsi@kernel-bugs.osdl.org', 'patch',
  '2026-09-14T10:00:00Z', '2026-12-01T09:30:00Z', NULL, NULL, 'fix-candidate', 0),
 (9371, 'IO/Storage', 'SCSI', 'NEW', '', 1, 'mpt3sas: lost completion after host reset',
  'u2@example.org', '', '', '2026-10-02T08:00:00Z', '2026-11-02T08:00:00Z', NULL, NULL,
  'needs-repro', 1),
 (9372, 'IO/Storage', 'SCSI', 'RESOLVED', 'CODE_FIX', 0, 'sg: short read on abort',
  'u3@example.org', '', '', '2026-08-01T08:00:00Z', '2026-11-20T12:00:00Z',
  '2026-11-20T12:00:00Z', 'alice@example.org', 'fix-verified', 0),
 (9373, 'IO/Storage', 'SCSI', 'RESOLVED', 'CODE_FIX', 0, 'scsi_debug: double completion',
  'u4@example.org', '', '', '2025-05-01T08:00:00Z', '2025-06-03T12:00:00Z',
  '2025-06-03T12:00:00Z', 'bob@example.org', 'fix-verified', 0),
 (9374, 'IO/Storage', 'SCSI', 'RESOLVED', 'DUPLICATE', 0, 'sd: timeout storm',
  'u5@example.org', '', '', '2026-09-20T08:00:00Z', '2026-10-05T12:00:00Z',
  '2026-10-05T12:00:00Z', 'alice@example.org', 'duplicate', 0),
 (9380, 'Drivers', 'USB', 'NEW', '', 1, 'xhci: hang on resume', 'u6@example.org', '', '',
  '2026-11-10T08:00:00Z', '2026-11-28T08:00:00Z', NULL, NULL, 'new', 0),
 (9381, 'IO/Storage', 'Serial ATA', 'RESOLVED', 'CODE_FIX', 0, 'ahci: link flap',
  'u7@example.org', '', '', '2026-10-01T08:00:00Z', '2026-10-10T08:00:00Z',
  '2026-10-10T08:00:00Z', 'carol@example.org', 'fix-verified', 0);

INSERT INTO comments (id, bug_id, count, author, time, text, is_private, is_ours) VALUES
 (70001, 9370, 0, 'reporter@example.org', '2026-09-14T10:00:00Z',
  'Completions get lost: <script>alert(1)</script> when "queue_depth" > 32 & the host resets.',
  0, 0),
 (70002, 9370, 1, 'dev@example.org', '2026-09-20T11:00:00Z',
  'Patch attached; try it with <img src=x onerror=alert(2)> ''quotes'' & ampersands.', 0, 0),
 (70003, 9370, 2, 'dev@example.org', '2026-09-21T11:00:00Z',
  'PRIVATE-NOTE-do-not-render: host password is hunter2', 1, 0),
 (70004, 9370, 3, 'bugbridge@example.org', '2026-10-01T12:00:00Z',
  'bugbridge-result: job 1 verdict fail', 0, 1);

INSERT INTO candidates (id, bug_id, source, source_id, kind, name, sha256, content,
	patch_count, created_at) VALUES
 (12, 9370, 'attachment', 501, 'patch', '0001-sd-fix-completion.patch',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'diff --git a/x b/x',
  1, 1790000000),
 (13, 9370, 'attachment', 502, 'patch', '0001-sd-fix-completion-v2 <b>.patch',
  'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'diff --git a/x b/x',
  1, 1791000000);

INSERT INTO jobs (id, bug_id, candidate_id, kind, state, stage, runner, attempts, verdict,
	change, verdict_detail, accel, kernel_version, log_dir, created_at, started_at,
	finished_at, reported, with_baseline) VALUES
 (1, 9370, 12, 'test', 'done', NULL, 'runner-a', 1, 'fail', 'FAIL->FAIL',
  'scsi_completion_basic failed', 'kvm', '6.1.119', '@LOGS@/job-1', 1790000100,
  1790000200, 1790000900, 1, 1),
 (2, 9370, 13, 'retest', 'done', NULL, 'runner-a', 1, 'pass', 'FAIL->PASS',
  'all 3 test cases pass', 'kvm', '6.1.119', '@LOGS@/job-2', 1791000100, 1791000200,
  1791001545, 1, 1),
 (3, 9371, NULL, 'test', 'running', 'build', 'runner-b', 0, NULL, NULL, NULL, 'kvm', NULL,
  '@LOGS@/job-3', strftime('%s', 'now') - 400, strftime('%s', 'now') - 300, NULL, 0, 0),
 (4, 9380, NULL, 'test', 'queued', NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL,
  strftime('%s', 'now') - 100, NULL, NULL, 0, 0),
 (5, 9371, NULL, 'retest', 'queued', NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL,
  strftime('%s', 'now') - 50, NULL, NULL, 0, 1);

-- as the runner writes them (schema 0021: a build says its kind and objects)
INSERT INTO job_stages (job_id, variant, stage, started_at, finished_at, status, detail,
	build_kind, objects) VALUES
 (1, 'patched', 'prepare', 1790000200, 1790000210, 'ok', NULL, NULL, NULL),
 (1, 'patched', 'apply', 1790000210, 1790000212, 'ok', NULL, NULL, NULL),
 (1, 'patched', 'configure', 1790000212, 1790000232, 'ok', NULL, NULL, NULL),
 (1, 'patched', 'build', 1790000232, 1790000832, 'ok', 'bzImage 6.1.119', 'incremental', 40),
 (1, 'patched', 'boot', 1790000832, 1790000862, 'ok', NULL, NULL, NULL),
 (1, 'patched', 'test', 1790000862, 1790000892, 'failed', '1 of 3 failed', NULL, NULL),
 (2, 'patched', 'prepare', 1791000200, 1791000210, 'ok', NULL, NULL, NULL),
 (2, 'patched', 'apply', 1791000210, 1791000212, 'ok', NULL, NULL, NULL),
 (2, 'baseline', 'apply', 1791000212, 1791000214, 'ok', NULL, NULL, NULL),
 (2, 'baseline', 'configure', 1791000214, 1791000234, 'ok', NULL, NULL, NULL),
 (2, 'baseline', 'build', 1791000234, 1791000734, 'ok', NULL, 'full', 852),
 (2, 'patched', 'configure', 1791000734, 1791000754, 'ok', NULL, NULL, NULL),
 (2, 'patched', 'build', 1791000754, 1791001354, 'ok', NULL, 'incremental', 40),
 (2, 'patched', 'boot', 1791001354, 1791001384, 'ok', NULL, NULL, NULL),
 (2, 'patched', 'test', 1791001384, 1791001464, 'ok', NULL, NULL, NULL),
 (2, 'baseline', 'boot', 1791001464, 1791001494, 'ok', NULL, NULL, NULL),
 (2, 'baseline', 'test', 1791001494, 1791001544, 'ok', NULL, NULL, NULL),
 (2, 'patched', 'report', 1791001544, 1791001545, 'ok', NULL, NULL, NULL),
 (3, 'patched', 'prepare', strftime('%s', 'now') - 300, strftime('%s', 'now') - 290, 'ok', NULL, NULL, NULL),
 (3, 'patched', 'apply', strftime('%s', 'now') - 290, strftime('%s', 'now') - 288, 'ok', NULL, NULL, NULL),
 (3, 'patched', 'configure', strftime('%s', 'now') - 288, strftime('%s', 'now') - 268, 'ok', NULL, NULL, NULL),
 (3, 'patched', 'build', strftime('%s', 'now') - 268, NULL, 'running', NULL, 'incremental', 12);

INSERT INTO test_results (job_id, variant, name, status, runs, failures, diagnostics) VALUES
 (1, 'patched', 'scsi_completion_basic', 'fail', 3, 3, 'expected 0 got -5 <b>EIO</b>'),
 (1, 'patched', 'scsi_abort_race', 'pass', 1, 0, ''),
 (1, 'patched', 'scsi_timeout_requeue', 'pass', 1, 0, ''),
 (2, 'patched', 'scsi_completion_basic', 'pass', 1, 0, ''),
 (2, 'patched', 'scsi_abort_race', 'pass', 1, 0, ''),
 (2, 'patched', 'scsi_timeout_requeue', 'pass', 1, 0, '');

INSERT INTO signatures (job_id, variant, kind, title, frames, hash) VALUES
 (1, 'patched', 'warning', 'WARNING in scsi_done_internal',
  'scsi_done_internal+0x4f/0x90
scsi_io_completion+0x21/0x60', 'c0ffee0123456789');

INSERT INTO outbox (id, kind, bug_id, job_id, marker, payload, state, attempts, created_at,
	sent_at, remote_id) VALUES
 (1, 'comment', 9370, 1, 'bugbridge-result: job 1',
  'bugbridge-result: job 1
Verdict: fail. <script>alert(3)</script>', 'sent', 1, 1790000950, 1790003600, 70004),
 (2, 'comment', 9370, 2, 'bugbridge-result: job 2',
  'bugbridge-result: job 2
Verdict: pass (FAIL->PASS).', 'sent', 1, 1791000960, 1791007200, 70005),
 (3, 'update', 9370, 2, 'bugbridge-update: job 2', '{"whiteboard": "bugbridge: fix-verified"}',
  'held', 0, 1791000961, NULL, NULL),
 (4, 'mail', NULL, NULL, 'bugbridge-digest: linux-scsi 2026-12-01',
  'Subject: bugbridge digest', 'sent', 1, 1796100000, 1796100060, NULL);

INSERT INTO digests (id, list, period, subject, message_id, body, outbox_id, created_at) VALUES
 (1, 'linux-scsi@vger.kernel.org', '2026-12-01', '[bugbridge] SCSI digest for 2026-12-01',
  '<digest-1@bugbridge>', 'Bug 9370: sd: lost completion <script>alert(1)</script> - pass',
  4, 1796100000);
INSERT INTO bug_owners (bug_id, kind, address, entry, rank) VALUES
 (9370, 'maintainer', '"James E.J. Bottomley" <jejb@linux.ibm.com>', 'SCSI SUBSYSTEM', 0),
 (9370, 'list', 'linux-scsi@vger.kernel.org', 'SCSI SUBSYSTEM', 0);
UPDATE test_results SET change = 'FAIL->PASS' WHERE job_id = 2 AND name = 'scsi_completion_basic';
COMMIT;
