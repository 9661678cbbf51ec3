-- PostgreSQL dialect of core/store/migrations/006_audit_channel.sql, the same step: BIGINT for every integer (ids
-- and counts fit a JavaScript number), TEXT COLLATE "C" so text compares byte by byte as in SQLite.
-- 006: the door an audited action came through gets its own column (issue 31), and actions are
-- named by their verb alone (spec 2.9). Chat rows were `chat_approve` … `chat_answer`, so
-- `/audit?action=approve` missed every chat approval. `channel` is one of dashboard, chat,
-- push, machine, webhook, cli (the `agent-outpost token` command) or outpost (the service's
-- own work: scheduler, sweeps, push pruning, GitHub comments); core/audit/audit.ts names them.
-- Rows written before this step get the channel their actor and detail show.

ALTER TABLE audit ADD COLUMN channel TEXT COLLATE "C" NOT NULL DEFAULT 'dashboard';

UPDATE audit SET channel = CASE
    WHEN action LIKE 'chat\_%' ESCAPE '\' OR action = 'high_risk_hold' OR detail LIKE 'via chat%'
      THEN 'chat'
    WHEN action IN ('push_approve', 'push_dismiss') THEN 'push'
    WHEN actor LIKE 'token:%' THEN 'machine'
    WHEN actor LIKE 'webhook:%' THEN 'webhook'
    WHEN actor = 'cli' THEN 'cli'
    WHEN actor IN ('outpost', 'scheduler', 'recipe:github', 'push-service') THEN 'outpost'
    ELSE 'dashboard'
  END;

UPDATE audit SET action = substr(action, 6)
  WHERE action IN ('chat_approve', 'chat_reject', 'chat_revise', 'chat_dismiss', 'chat_run',
                   'chat_pause', 'chat_resume', 'chat_stop', 'chat_answer');

-- /audit?channel=… (few chat, push or machine rows among many dashboard ones).
CREATE INDEX audit_channel ON audit (channel, id);
