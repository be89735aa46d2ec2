/**
 * Every topic, declared once: name, partitions, key and value schema, cleanup and retention.
 * Start-up creates missing topics and refuses to run against one whose partition count differs.
 * Full names carry the network (`nile.account-commands`), so two worlds never share a topic.
 */
export interface TopicDeclaration {
  /** Name without the network prefix. */
  name: string;
  /** Partition count; `configured` takes TOPIC_PARTITIONS from the config. */
  partitions: number | 'configured';
  keySchema: string;
  valueSchema: string;
  cleanupPolicy: 'delete' | 'compact';
  /** -1 keeps every record forever. */
  retentionMs: number;
  doc: string;
}

export const topics = {
  accountCommands: {
    name: 'account-commands',
    partitions: 'configured',
    keySchema: 'account-key.avsc',
    valueSchema: 'account-command.avsc',
    cleanupPolicy: 'delete',
    retentionMs: -1,
    doc: 'The source of truth: every change to money or to an order, keyed by account (one writer per account).',
  },
  accountEvents: {
    name: 'account-events',
    partitions: 'configured',
    keySchema: 'account-key.avsc',
    valueSchema: 'account-event.avsc',
    cleanupPolicy: 'delete',
    retentionMs: -1,
    doc: 'Events relayed from the outbox; read by the webhook dispatcher, ops restore and analytics consumers.',
  },
  orderEvents: {
    name: 'order-events',
    partitions: 'configured',
    keySchema: 'account-key.avsc',
    valueSchema: 'order-event.avsc',
    cleanupPolicy: 'delete',
    retentionMs: -1,
    doc: 'Every transition of every order with the whole order after it (contract.md section 10), relayed from the outbox; read by the stats projection and outside analytics consumers.',
  },
} as const satisfies Record<string, TopicDeclaration>;

export type TopicKey = keyof typeof topics;

export function topicName(prefix: string, key: TopicKey): string {
  return prefix + topics[key].name;
}

export function partitionsOf(decl: TopicDeclaration, configured: number): number {
  return decl.partitions === 'configured' ? configured : decl.partitions;
}
