import { topics } from '../../../topics';
import { retentionProblems, retentionRefusal } from '../../../services/platform/topic-retention';

const forever = { 'cleanup.policy': 'delete', 'retention.ms': '-1', 'retention.bytes': '-1' };

describe('topic retention that keeps every command', () => {
  it('accepts account-commands kept forever', () => {
    expect(retentionProblems(topics.accountCommands, forever)).toEqual([]);
  });
  it('refuses a finite retention.ms or retention.bytes on account-commands', () => {
    expect(retentionProblems(topics.accountCommands, { ...forever, 'retention.ms': '604800000' })).toEqual([
      'retention.ms=604800000 deletes records older than that; declared -1 (forever)',
    ]);
    expect(retentionProblems(topics.accountCommands, { ...forever, 'retention.bytes': '1073741824' })[0]).toMatch(/retention.bytes=1073741824/);
  });
  it('refuses compaction of account-commands (it keeps one command per account)', () => {
    expect(retentionProblems(topics.accountCommands, { ...forever, 'cleanup.policy': 'compact' })[0]).toMatch(/compacts away/);
    expect(retentionProblems(topics.accountCommands, { ...forever, 'cleanup.policy': 'compact,delete' })[0]).toMatch(/compacts away/);
  });
  it('accepts a compacted declaration only when compacted, and any time-based delete only when forever', () => {
    const compacted = { ...topics.accountCommands, cleanupPolicy: 'compact' as const };
    expect(retentionProblems(compacted, { ...forever, 'cleanup.policy': 'compact', 'retention.ms': '1000' })).toEqual([]);
    expect(retentionProblems(compacted, forever)).toEqual(['cleanup.policy=delete; declared compact']);
    expect(retentionProblems(compacted, { ...forever, 'cleanup.policy': 'compact,delete', 'retention.ms': '1000' })[0]).toMatch(/retention.ms=1000/);
  });
  it('accepts a longer retention than a finite declaration, refuses a shorter one', () => {
    const week = { ...topics.accountEvents, retentionMs: 604_800_000 };
    expect(retentionProblems(week, { ...forever, 'retention.ms': '700000000' })).toEqual([]);
    expect(retentionProblems(week, { ...forever, 'retention.ms': '1000' })[0]).toMatch(/shorter than the declared 604800000/);
  });
  it('says how to put it right', () => {
    expect(retentionRefusal('nile.account-commands', ['x'])).toMatch(/topic nile.account-commands would lose records[\s\S]*retention.ms=-1/);
  });
});
