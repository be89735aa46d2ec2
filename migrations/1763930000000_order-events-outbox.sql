-- Up Migration
-- The outbox also carries order-events (contract.md section 10): every order transition, relayed in id order.
ALTER TABLE outbox DROP CONSTRAINT outbox_destination_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_destination_check CHECK (destination IN ('account-events', 'account-commands', 'order-events'));

-- Down Migration
DELETE FROM outbox WHERE destination = 'order-events';
ALTER TABLE outbox DROP CONSTRAINT outbox_destination_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_destination_check CHECK (destination IN ('account-events', 'account-commands'));
