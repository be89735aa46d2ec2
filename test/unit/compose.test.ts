/**
 * docker-compose.yml and the Dockerfile cannot be run here (no Docker engine), so their structure is
 * checked: every part and port the README promises is there, driven by the same variables as
 * infra/env/local.env; the service's environment names every variable services/platform/config.ts
 * reads and points each host-side URL at a compose service; the image is built by the same
 * `npm run build` and runs the entry points the build produces.
 */
import { freshKeys } from './support/keys';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { parse } from 'yaml';
import { configVariables, parseConfig } from '../../services/platform/config';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface ComposeService {
  build?: unknown;
  image?: string;
  command?: string[];
  ports?: string[];
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}
const compose = parse(read('docker-compose.yml')) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
const services = compose.services;

/** Compose interpolation as far as the file uses it: ${VAR}, ${VAR:-default}, $$. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}/g, (whole, name: string | undefined, _d, fallback: string | undefined) => {
    if (whole === '$$') return '$';
    const set = env[name!];
    return set !== undefined && set !== '' ? set : (fallback ?? '');
  });
}

/** infra/env/local.env as infra/env/load.sh reads it: KEY=VALUE, '#' comments, ${NAME} from lines above. */
function loadProfile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of read(file).split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]] = m[2].replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_w, n: string) => env[n] ?? '');
  }
  return env;
}

/** Host ports a service publishes on 127.0.0.1, and the container port each maps to. */
function published(service: ComposeService, env: Record<string, string>): Array<{ host: number; container: number }> {
  return (service.ports ?? []).map((p) => {
    const m = /^127\.0\.0\.1:(\d+):(\d+)$/.exec(interpolate(p, env));
    if (!m) throw new Error(`port ${p} is not published on 127.0.0.1 as host:container`);
    return { host: Number(m[1]), container: Number(m[2]) };
  });
}

/** The service's environment as the container sees it: null entries pass the shell's value, or nothing. */
function containerEnv(service: ComposeService, shell: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(service.environment ?? {})) {
    if (value === null) {
      if (shell[key] !== undefined) out[key] = shell[key];
    } else out[key] = interpolate(String(value), shell);
  }
  return out;
}

const localEnv = loadProfile('infra/env/local.env');
// The repository holds no keys: a compose user sets them in the shell, as a deployment does.
const keys = freshKeys();

test('every part is a service: PostgreSQL, Redis, Kafka, the registry, the devnet and the service itself', () => {
  expect(Object.keys(services)).toEqual(expect.arrayContaining(['postgres', 'db-init', 'redis', 'kafka', 'registry', 'registry-init', 'devnet', 'service']));
  for (const name of ['postgres', 'redis', 'kafka', 'devnet', 'service']) expect(services[name].healthcheck?.test.length).toBeGreaterThan(1);
  // The service starts once everything it talks to is ready (databases created, registry rule stored).
  expect(services.service.depends_on).toEqual({
    'db-init': { condition: 'service_completed_successfully' }, redis: { condition: 'service_healthy' }, kafka: { condition: 'service_healthy' },
    'registry-init': { condition: 'service_completed_successfully' }, devnet: { condition: 'service_healthy' },
  });
  for (const volume of ['pgdata', 'kafkadata', 'devnetdata']) expect(compose.volumes).toHaveProperty(volume);
});

test('the ports the README promises are published, with contract section 8 defaults and local.env values', () => {
  const readme = read('README.md');
  const table = readme.slice(readme.indexOf('What `make up` starts'), readme.indexOf('`make test` uses other ports'));
  const promised = [...table.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
  expect(promised).toEqual(expect.arrayContaining([3000, 8090, 9092, 8081]));
  const byDefault = Object.values(services).flatMap((s) => published(s, {}).map((p) => p.host));
  // README's parts, plus PostgreSQL and Redis on their usual ports.
  expect(byDefault.sort()).toEqual(expect.arrayContaining([...promised, 5432, 6379]));
  expect(published(services.service, {})).toEqual([{ host: 3000, container: 3000 }]);
  expect(published(services.devnet, {})).toEqual([{ host: 8090, container: 8090 }]);
  expect(published(services.kafka, {})).toEqual([{ host: 9092, container: 9092 }]);
  expect(published(services.registry, {})).toEqual([{ host: 8081, container: 8080 }]);
  expect(published(services.postgres, {})).toEqual([{ host: 5432, container: 5432 }]);
  expect(published(services.redis, {})).toEqual([{ host: 6379, container: 6379 }]);
  // The same variables as infra/env/local.env move them: another profile's ports are followed.
  const moved = { ...localEnv, API_PORT: '3100', DEVNET_PORT: '8190', KAFKA_PORT: '9192', SCHEMA_REGISTRY_PORT: '8181' };
  expect(published(services.service, moved)[0].host).toBe(3100);
  expect(published(services.devnet, moved)[0].host).toBe(8190);
  expect(published(services.kafka, moved)[0].host).toBe(9192);
  expect(published(services.registry, moved)[0].host).toBe(8181);
  for (const name of ['service', 'devnet', 'kafka', 'registry']) {
    expect(published(services[name], localEnv)).toEqual(published(services[name], {}));
  }
});

test('the service environment names every variable config.ts reads, and a config parses from it', () => {
  const named = Object.keys(services.service.environment ?? {});
  expect(configVariables.filter((v) => !named.includes(v))).toEqual([]);
  // Nothing named that config.ts does not read (a typo would pass nothing).
  expect(named.filter((v) => !configVariables.includes(v))).toEqual([]);

  const shell = { ...localEnv, ...keys, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'debug' };
  const cfg = parseConfig(containerEnv(services.service, shell));
  expect(cfg).toMatchObject({ NETWORK: localEnv.NETWORK, API_PORT: Number(localEnv.API_PORT), API_HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE_TARGETS: true, LOG_LEVEL: 'debug' });
  expect(new URL(cfg.DATABASE_URL).pathname).toBe(`/${localEnv.APP_DATABASE}`);
  // Unset in the shell: the service's own default, not an empty string.
  expect(parseConfig(containerEnv(services.service, keys)).BRAND).toBe(parseConfig({ ...keys, NETWORK: 'nile' }).BRAND);
});

test('every URL that means the host in a local run points at a compose service inside', () => {
  const defaults = parseConfig({ ...keys, NETWORK: 'nile' }) as unknown as Record<string, unknown>;
  const hostSide = configVariables.filter((v) => typeof defaults[v] === 'string' && /127\.0\.0\.1/.test(defaults[v] as string) && v !== 'API_HOST');
  expect(hostSide).toEqual(expect.arrayContaining(['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'DATABASE_URL', 'REDIS_URL', 'TRON_FULL_HOST']));
  const env = containerEnv(services.service, localEnv);
  for (const name of hostSide) {
    const host = env[name].includes('://') ? new URL(env[name]).hostname : env[name].split(':')[0];
    expect([name, Object.keys(services).includes(host)]).toEqual([name, true]);
  }
  // Each points at a port its service listens on inside the network.
  const port = (v: string) => Number(v.includes('://') ? new URL(v).port : v.split(':')[1]);
  const kafka = services.kafka.environment!;
  expect(String(kafka.KAFKA_ADVERTISED_LISTENERS)).toContain(`://${env.KAFKA_BROKERS}`);
  expect(String(kafka.KAFKA_LISTENERS)).toContain(`://:${port(env.KAFKA_BROKERS)}`);
  expect(port(env.SCHEMA_REGISTRY_URL)).toBe(published(services.registry, localEnv)[0].container);
  expect(new URL(env.SCHEMA_REGISTRY_URL).pathname).toBe(new URL(localEnv.SCHEMA_REGISTRY_URL).pathname);
  expect(port(env.TRON_FULL_HOST)).toBe(published(services.devnet, localEnv)[0].container);
  expect(containerEnv(services.devnet, localEnv)).toMatchObject({ DEVNET_HOST: '0.0.0.0', DEVNET_PORT: localEnv.DEVNET_PORT });
});

test('the devnet takes every variable the devnet reads', () => {
  const read_ = [...new Set(read('infra/devnet/src/config.ts').match(/DEVNET_[A-Z_]+/g))];
  expect(read_.length).toBeGreaterThan(5);
  expect(read_.filter((v) => !Object.keys(services.devnet.environment ?? {}).includes(v))).toEqual([]);
});

test('one image, built by the same npm run build, runs the entry points the build produces', () => {
  const dockerfile = read('Dockerfile');
  const stages = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)];
  expect(stages.length).toBeGreaterThanOrEqual(2);
  expect(dockerfile).toMatch(/^RUN npm ci\b/m);
  expect(dockerfile).toMatch(/^RUN npm run build\b/m);
  for (const dir of ['dist', 'node_modules', 'schemas', 'migrations']) expect(dockerfile).toMatch(new RegExp(`^COPY --from=build /app/${dir} `, 'm'));
  expect(dockerfile).toMatch(/^CMD \["node", "--enable-source-maps", "dist\/services\/main.js", "--roles", "all"\]/m);
  // The Node the image runs satisfies package.json's engines.
  const nodeVersion = /^ARG NODE_VERSION=(\S+)/m.exec(dockerfile)![1];
  const engines = JSON.parse(read('package.json')).engines.node as string;
  expect([nodeVersion, engines, semver.satisfies(semver.coerce(nodeVersion)!, engines)]).toEqual([nodeVersion, engines, true]);

  expect(services.service.image).toBe(services.devnet.image);
  for (const [name, entry, source] of [['service', 'dist/services/main.js', 'services/main.ts'], ['devnet', 'dist/infra/devnet/src/main.js', 'infra/devnet/src/main.ts']]) {
    expect(services[name].build).toBe('.');
    expect(services[name].command).toContain(entry);
    expect(existsSync(path.join(root, source))).toBe(true);
  }
  expect(services.service.command!.slice(-2)).toEqual(['--roles', 'all']);
  // The runtime stage carries the dashboard's bundle where the compiled dashboard.ts looks for it (issue 30 item 8).
  const runtimeStage = dockerfile.slice(dockerfile.search(/^FROM .* AS runtime/m));
  const copied = [...runtimeStage.matchAll(/^COPY --from=build \/app\/(\S+) \.\/(\S+)$/gm)].map((m) => [m[1], m[2]]);
  expect(copied).toContainEqual(['web/dist', 'web/dist']);
  const fromCompiled = path.posix.resolve('/app/dist/services/api', '../../../web/dist');
  expect(read('services/api/dashboard.ts')).toContain("'../../../web/dist'");
  expect(fromCompiled).toBe('/app/web/dist');
  expect(read('package.json')).toContain('npm run build:web');
  const ignored = read('.dockerignore').split('\n');
  for (const entry of ['node_modules', 'dist', '.git', '.stack']) expect(ignored).toContain(entry);
});
