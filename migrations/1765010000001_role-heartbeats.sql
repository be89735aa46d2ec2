-- Up Migration

-- Liveness of the background roles (services/platform/liveness.ts; docs/operations.md): each process writes,
-- every few seconds, when each of its roles last made progress (a consumer fetched, a polling pass ended).
-- Any API instance reads the table for /readyz and role_progress_age_seconds, wherever the roles run; a
-- wedged role keeps an old progressed_at while its process still writes, a dead one stops writing.
CREATE TABLE role_heartbeats (
  role          text        NOT NULL,
  instance      text        NOT NULL,
  progressed_at timestamptz NOT NULL,
  written_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role, instance)
);
