-- Up Migration

-- Tells every API process (LISTEN api_keys, services/api/auth/key-cache.ts) that a key row it may keep in
-- memory changed: revoked, re-sealed (key rotation), its scopes or account changed, or the row deleted.
-- The payload is the key id ('' for a TRUNCATE: forget every key). The notification goes out at commit.
-- `last_used_at` (the API's own once-a-second hint) is left out by the WHEN clause: it changes no answer.
CREATE FUNCTION notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('api_keys', '');
  ELSE
    PERFORM pg_notify('api_keys', OLD.id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys
  FOR EACH ROW WHEN ((OLD.id, OLD.account_id, OLD.scopes, OLD.secret_enc, OLD.revoked_at)
    IS DISTINCT FROM (NEW.id, NEW.account_id, NEW.scopes, NEW.secret_enc, NEW.revoked_at))
  EXECUTE FUNCTION notify_api_key_change();
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_api_key_change();
CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_api_key_change();

-- Down Migration
DROP TRIGGER api_keys_truncated ON api_keys;
DROP TRIGGER api_keys_deleted ON api_keys;
DROP TRIGGER api_keys_changed ON api_keys;
DROP FUNCTION notify_api_key_change();
