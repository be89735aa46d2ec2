/**
 * A topic's retention must not lose what the declaration promises to keep. account-commands is the
 * source of truth keyed by account: a finite retention.ms or retention.bytes deletes old commands, and
 * compaction keeps only each account's latest command; either way a replay or `ops restore` would
 * rebuild a different database. Start-up refuses such a topic (whoever changed it, after creation).
 */
import type { TopicDeclaration } from '../../topics';

/** The broker's effective settings of one topic (Kafka's names, as strings). */
export interface TopicRetention {
  'cleanup.policy': string;
  'retention.ms': string;
  'retention.bytes': string;
}

export const retentionConfigNames = ['cleanup.policy', 'retention.ms', 'retention.bytes'] as const;

/** What in `actual` would lose records the declaration keeps; empty when it is safe. */
export function retentionProblems(decl: TopicDeclaration, actual: TopicRetention): string[] {
  const problems: string[] = [];
  const policies = actual['cleanup.policy'].split(',').map((p) => p.trim());
  const retentionMs = Number(actual['retention.ms']);
  const retentionBytes = Number(actual['retention.bytes']);
  const deletes = policies.includes('delete');
  if (decl.cleanupPolicy === 'delete' && policies.includes('compact')) {
    problems.push(`cleanup.policy=${actual['cleanup.policy']} compacts away all but the latest record of each key; declared ${decl.cleanupPolicy}`);
  }
  if (decl.cleanupPolicy === 'compact' && !policies.includes('compact')) {
    problems.push(`cleanup.policy=${actual['cleanup.policy']}; declared compact`);
  }
  if (deletes) {
    if (decl.retentionMs === -1 && retentionMs !== -1) problems.push(`retention.ms=${actual['retention.ms']} deletes records older than that; declared -1 (forever)`);
    if (decl.retentionMs > 0 && retentionMs !== -1 && retentionMs < decl.retentionMs) problems.push(`retention.ms=${actual['retention.ms']} is shorter than the declared ${decl.retentionMs}`);
    if (retentionBytes !== -1) problems.push(`retention.bytes=${actual['retention.bytes']} deletes the oldest records past that size; must be -1`);
  }
  return problems;
}

export function retentionRefusal(topic: string, problems: string[]): string {
  return (
    `Refusing to run: topic ${topic} would lose records.\n  ${problems.join('\n  ')}\n` +
    `Restore its settings (kafka-configs --alter --entity-type topics --entity-name ${topic} --add-config cleanup.policy=delete,retention.ms=-1,retention.bytes=-1) ` +
    'and check the log is still complete (./bin/ops replay --verify).'
  );
}
