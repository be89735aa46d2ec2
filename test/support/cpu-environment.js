/**
 * Jest's node environment, timing each test file's CPU for the CI budget (.ci/test-phases.sh prints the table):
 * with TEST_CPU_DIR set, it writes one JSON line per file there: the CPU its worker spent loading the file's
 * modules (setup to run_start), running it (to teardown, hooks included), and the CPU of the child processes it
 * waited for (services, bin/ops, devnets: /proc's cutime/cstime). Workers run many files one after the other, so
 * each figure is a difference of readings at this file's own start and end. Without TEST_CPU_DIR it is jest's
 * node environment unchanged.
 *
 * It also notes the wall time of the file's beforeAll hooks, its tests (with their beforeEach/afterEach) and its
 * afterAll hooks (where a slow file's time goes: its setup and teardown, or its cases), from jest-circus's events.
 */
const fs = require('node:fs');
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

const dir = process.env.TEST_CPU_DIR;
const TICK_MS = 10; // /proc's clock ticks (USER_HZ, 100 on Linux)

/** CPU ms of this process and of its reaped children, from /proc/self/stat (fields 14 to 17). */
function cpuMs() {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name the fields start at 3 (state): utime is field 14, so index 11.
  return { self: (Number(f[11]) + Number(f[12])) * TICK_MS, children: (Number(f[13]) + Number(f[14])) * TICK_MS };
}

class CpuEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    if (dir) {
      this.start = cpuMs();
      this.startedAt = Date.now();
    }
  }

  async handleTestEvent(event) {
    if (!dir) return;
    if (event.name === 'run_start') {
      this.loaded = cpuMs();
      this.spans = { beforeAll: 0, tests: 0, afterAll: 0 };
    } else if (event.name === 'hook_start' && (event.hook.type === 'beforeAll' || event.hook.type === 'afterAll')) {
      this.hookStarted = Date.now();
    } else if ((event.name === 'hook_success' || event.name === 'hook_failure') && this.hookStarted !== undefined) {
      this.spans[event.hook.type] += Date.now() - this.hookStarted;
      this.hookStarted = undefined;
    } else if (event.name === 'test_start') {
      this.testStarted = Date.now();
    } else if (event.name === 'test_done' && this.testStarted !== undefined) {
      this.spans.tests += Date.now() - this.testStarted;
      this.testStarted = undefined;
    }
  }

  async teardown() {
    if (dir && this.start) {
      const end = cpuMs();
      const loaded = this.loaded ?? end;
      const line = {
        file: path.relative(process.cwd(), this.testPath),
        wallMs: Date.now() - this.startedAt,
        loadMs: loaded.self - this.start.self,
        runMs: end.self - loaded.self,
        childMs: end.children - this.start.children,
        beforeAllMs: this.spans?.beforeAll, testsMs: this.spans?.tests, afterAllMs: this.spans?.afterAll,
      };
      fs.appendFileSync(path.join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
    }
    await super.teardown();
  }
}

module.exports = CpuEnvironment;
