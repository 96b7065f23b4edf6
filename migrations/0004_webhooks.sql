-- Webhook endpoints (one mode each), their signing secrets (encrypted), deliveries and every attempt.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
  url TEXT NOT NULL,
  description TEXT,
  events TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (organization_id, mode, created_at);

CREATE TABLE webhook_secrets (
  id TEXT PRIMARY KEY NOT NULL,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  -- AES-GCM ciphertext and IV (base64) of the whole `whsec_…` secret under WEBHOOK_SECRET_KEY.
  ciphertext TEXT NOT NULL,
  iv TEXT NOT NULL,
  hint TEXT NOT NULL,
  expires_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_secrets_endpoint ON webhook_secrets (endpoint_id, created_at);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event TEXT NOT NULL,
  -- The capture this event belongs to, so that proof.sealed waits for capture_session.completed.
  session_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'retrying', 'abandoned')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  request_body TEXT NOT NULL,
  response_status INTEGER,
  response_body_start TEXT,
  failure_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_session ON webhook_deliveries (endpoint_id, session_id, event);

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY NOT NULL,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
  attempt INTEGER NOT NULL,
  webhook_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  response_status INTEGER,
  response_body_start TEXT,
  failure_reason TEXT
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);

ALTER TABLE events ADD COLUMN dispatched_at TEXT;
CREATE INDEX events_undispatched ON events (created_at) WHERE dispatched_at IS NULL;
