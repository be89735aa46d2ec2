/**
 * The operations files (infra/observability/, issue 30 item 7) name only metrics the service exports, the
 * compose profile starts Prometheus and Grafana with them, and docs/operations.md says what to do for every
 * alert. Metric names come from the registry the service fills (services/platform/metrics.ts, the API's
 * scrape-time gauges, prom-client's process metrics), not from a list kept here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { metricsRegistry } from '../../services/platform/metrics';
import { registerHealthGauges } from '../../services/api/health-details';
import { registerBacklogGauges } from '../../services/api/health';
import type { Runtime } from '../../services/chain/clients';
import { parseConfig } from '../../services/platform/config';
import { freshKeys } from './support/keys';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** Every metric the service's registry holds once the API has registered its gauges (nothing is collected here). */
function exported(): Set<string> {
  const rt = {} as Runtime;
  registerHealthGauges(rt);
  registerBacklogGauges(rt);
  const names = new Set<string>();
  for (const m of metricsRegistry.getMetricsAsArray()) {
    const { name, type } = m as unknown as { name: string; type: string };
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

/** Metric names in a PromQL expression: by this repository's rule, each is written with a selector `{...}`. */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]);
}

const dashboard = JSON.parse(read('infra/observability/dashboard.json')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
const rules = (parse(read('infra/observability/alerts.yml')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((g) => g.rules);

test('every metric the dashboard and the alert rules name is one the service exports', () => {
  const known = exported();
  const named = [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...rules.map((r) => r.expr)].flatMap(metricsIn);
  expect(named.length).toBeGreaterThan(20);
  expect([...new Set(named)].filter((n) => !known.has(n))).toEqual([]);
  // Every expression names at least one metric (an expression the check could not read would pass empty).
  for (const expr of [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...rules.map((r) => r.expr)]) expect([expr, metricsIn(expr).length > 0]).toEqual([expr, true]);
});

test('the alert rules cover lag, 5xx, p99, reconcile differences, a stale chain node and webhook dead letters', () => {
  const exprs = rules.map((r) => r.expr).join('\n');
  for (const metric of ['consumer_group_lag_records', 'http_requests_total', 'http_request_duration_seconds_bucket', 'reconcile_differing_rows', 'chain_head_age_seconds', 'webhook_attempts_total']) {
    expect([metric, exprs.includes(`${metric}{`)]).toEqual([metric, true]);
  }
  expect(exprs).toContain('status=~"5.."');
  expect(exprs).toContain('histogram_quantile(0.99');
  expect(exprs).toContain('outcome="dead"');
});

test('docs/operations.md says what to do when each alert fires', () => {
  const doc = read('docs/operations.md');
  for (const rule of rules) expect([rule.alert, doc.includes(`### ${rule.alert}`)]).toEqual([rule.alert, true]);
});

test('the observability compose profile starts Prometheus with the rules and Grafana with the dashboard', () => {
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, { profiles?: string[]; volumes?: string[] }> };
  for (const name of ['prometheus', 'grafana']) expect(compose.services[name].profiles).toEqual(['observability']);
  const mounted = (name: string) => (compose.services[name].volumes ?? []).map((v) => v.split(':')[0].replace(/^\.\//, ''));
  expect(mounted('prometheus')).toEqual(expect.arrayContaining(['infra/observability/prometheus.yml', 'infra/observability/alerts.yml']));
  expect(mounted('grafana')).toEqual(expect.arrayContaining(['infra/observability/dashboard.json', 'infra/observability/grafana/provisioning']));
  const prometheus = parse(read('infra/observability/prometheus.yml')) as { rule_files: string[]; scrape_configs: Array<{ metrics_path: string; static_configs: Array<{ targets: string[] }> }> };
  expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
  expect(prometheus.scrape_configs[0].metrics_path).toBe('/metrics');
  // The service's metrics listener as the compose service runs it (the default METRICS_PORT).
  const metricsPort = parseConfig({ ...freshKeys(), NETWORK: 'nile' }).METRICS_PORT;
  expect(prometheus.scrape_configs[0].static_configs[0].targets).toEqual([`service:${metricsPort}`]);
});
