/**
 * How this process reaches the brokers: TLS (CA, optional client certificate) and SASL (PLAIN,
 * SCRAM-SHA-256/512), from the KAFKA_TLS* and KAFKA_SASL_* settings. The files are read once, at start; the
 * same values go to kafkajs (KafkaLog, kafka.ts: kafkajsSecurity) and to the start-up's own Metadata request
 * (kafka-topic-ids.ts).
 */
import { readFileSync } from 'node:fs';
import type { Config } from './config';

export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

export interface KafkaSecurity {
  /** Unset: plaintext. */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** Unset: no authentication. */
  sasl?: { mechanism: SaslMechanism; username: string; password: string };
}

type SecuritySettings = Pick<Config, 'KAFKA_TLS' | 'KAFKA_TLS_CA_FILE' | 'KAFKA_TLS_CERT_FILE' | 'KAFKA_TLS_KEY_FILE' | 'KAFKA_SASL_MECHANISM' | 'KAFKA_SASL_USERNAME' | 'KAFKA_SASL_PASSWORD'>;

function readSetting(name: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`Invalid configuration:\n  ${name}: ${(err as Error).message}`);
  }
}

export function kafkaSecurity(cfg: SecuritySettings): KafkaSecurity {
  const out: KafkaSecurity = {};
  if (cfg.KAFKA_TLS) {
    out.tls = {};
    if (cfg.KAFKA_TLS_CA_FILE) out.tls.ca = readSetting('KAFKA_TLS_CA_FILE', cfg.KAFKA_TLS_CA_FILE);
    if (cfg.KAFKA_TLS_CERT_FILE) out.tls.cert = readSetting('KAFKA_TLS_CERT_FILE', cfg.KAFKA_TLS_CERT_FILE);
    if (cfg.KAFKA_TLS_KEY_FILE) out.tls.key = readSetting('KAFKA_TLS_KEY_FILE', cfg.KAFKA_TLS_KEY_FILE);
  }
  // config.ts refuses a mechanism without both credentials.
  if (cfg.KAFKA_SASL_MECHANISM) out.sasl = { mechanism: cfg.KAFKA_SASL_MECHANISM, username: cfg.KAFKA_SASL_USERNAME!, password: cfg.KAFKA_SASL_PASSWORD! };
  return out;
}
