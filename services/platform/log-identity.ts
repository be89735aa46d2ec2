/**
 * A database knows the log it was built from. The first start against an empty database stamps it with
 * the network, the Kafka cluster id and each declared topic's id; every later start (any role, any ops
 * command) compares and refuses to run on a mismatch: another cluster, a recreated topic (same name, new
 * id), other topics (another TOPIC_PREFIX) or another NETWORK. Without this, a service happily applies
 * one log on top of a database built from another, and nothing notices until money differs.
 */
import type { Pool } from './db/pool';

export interface TopicIdentity {
  topic: string;
  id: string;
}

export interface LogIdentity {
  network: string;
  clusterId: string;
  /** Topic key (topics/index.ts) → full name and id. */
  topics: Record<string, TopicIdentity>;
}

function restoreHint(network: string): string {
  return (
    `Point DATABASE_URL at the database built from this log (the default is energy_${network}), ` +
    'or rebuild one from it: ./bin/ops restore --into <new database>, then start with the DATABASE_URL it prints.'
  );
}

/**
 * The usual cause on a development machine and the one command that fixes it, first, before the details:
 * another checkout's stack (it shares the machine's PostgreSQL) or `make stack-reset` (new topics) left a
 * database built from a log this stack no longer has.
 */
function freshStartHint(database: string): string {
  return (
    `On a development machine this is another checkout's stack or a \`make stack-reset\`: start afresh in a new database with ` +
    `\`APP_DATABASE=${database}_2 make up\` (or drop this one, losing its accounts: \`psql -h 127.0.0.1 -U postgres -c 'DROP DATABASE ${database}'\`).`
  );
}

/** Refusal when the database belongs to another network; null when it may be opened. */
export function networkMismatch(stampedNetwork: string, network: string, database: string): string | null {
  if (stampedNetwork === network) return null;
  return (
    `Refusing to run: database ${database} is stamped NETWORK=${stampedNetwork}, this process runs NETWORK=${network}. ` +
    `A ${network} process never opens a ${stampedNetwork} database (it would accept that network's keys and balances). ${restoreHint(network)}`
  );
}

/**
 * Refusal when the database was built from another log; null when every stamped topic matches. Topics
 * declared since the stamp was written are not a mismatch (`withNewTopics` adds them).
 */
export function logMismatch(stamped: LogIdentity, current: LogIdentity, database: string): string | null {
  const network = networkMismatch(stamped.network, current.network, database);
  if (network) return network;
  const differences: string[] = [];
  if (stamped.clusterId !== current.clusterId) {
    differences.push(`Kafka cluster: database built from ${stamped.clusterId}, this process is connected to ${current.clusterId}`);
  }
  for (const [key, was] of Object.entries(stamped.topics)) {
    const now = current.topics[key];
    if (!now) continue;
    if (was.topic !== now.topic) differences.push(`topic ${key}: database built from ${was.topic} (id ${was.id}), this process reads ${now.topic} (id ${now.id})`);
    else if (was.id !== now.id) differences.push(`topic ${now.topic}: database built from topic id ${was.id}, the topic now has id ${now.id} (deleted and recreated)`);
  }
  if (differences.length === 0) return null;
  return `Refusing to run: database ${database} was built from another log. ${freshStartHint(database)}\n  ${differences.join('\n  ')}\n${restoreHint(current.network)}`;
}

/** The stamp extended with topics declared after it was written (same cluster, nothing else changed). */
export function withNewTopics(stamped: LogIdentity, current: LogIdentity): LogIdentity | null {
  const added = Object.keys(current.topics).filter((k) => !(k in stamped.topics));
  if (added.length === 0) return null;
  return { ...stamped, topics: { ...stamped.topics, ...Object.fromEntries(added.map((k) => [k, current.topics[k]])) } };
}

export async function readStamp(pool: Pool): Promise<LogIdentity | null> {
  const { rows } = await pool.query('SELECT network, cluster_id, topics FROM log_identity');
  if (rows.length === 0) return null;
  return { network: rows[0].network, clusterId: rows[0].cluster_id, topics: rows[0].topics };
}

/** Writes the stamp unless one exists; returns the stamp in force (a concurrent start may have won). */
export async function stampOnce(pool: Pool, identity: LogIdentity): Promise<LogIdentity> {
  await pool.query(
    'INSERT INTO log_identity (network, cluster_id, topics) VALUES ($1, $2, $3) ON CONFLICT (singleton) DO NOTHING',
    [identity.network, identity.clusterId, JSON.stringify(identity.topics)],
  );
  return (await readStamp(pool))!;
}

async function addTopics(pool: Pool, identity: LogIdentity): Promise<void> {
  await pool.query('UPDATE log_identity SET topics = $1', [JSON.stringify(identity.topics)]);
}

export function databaseName(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}

/** Before any topic is touched: a process never opens a database of another network. */
export async function checkNetwork(pool: Pool, network: string, databaseUrl: string): Promise<void> {
  const stamped = await readStamp(pool);
  const refusal = stamped && networkMismatch(stamped.network, network, databaseName(databaseUrl));
  if (refusal) throw new Error(refusal);
}

/** Stamps an unstamped database, or refuses one built from another log. */
export async function checkOrStamp(pool: Pool, current: LogIdentity, databaseUrl: string): Promise<{ stamped: boolean }> {
  const existing = await readStamp(pool);
  const inForce = existing ?? (await stampOnce(pool, current));
  const refusal = logMismatch(inForce, current, databaseName(databaseUrl));
  if (refusal) throw new Error(refusal);
  const extended = withNewTopics(inForce, current);
  if (extended) await addTopics(pool, extended);
  return { stamped: existing === null };
}
