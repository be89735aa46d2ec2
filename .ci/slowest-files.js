#!/usr/bin/env node
/**
 * Prints the slowest test files of jest --json result files (the CI budget: which files to shorten next).
 *   node .ci/slowest-files.js COUNT [--cpu DIR] results.json...
 * One line per file: wall seconds, status, path; a header per result file with its file count and their sum.
 * With --cpu DIR (the TEST_CPU_DIR that test/support/cpu-environment.js wrote to), each line also gives the CPU
 * seconds of the file's jest worker loading its modules ("load") and running it ("run"), and of the child
 * processes it waited for ("children"); the header sums them, so a phase reads as CPU per file, not only wall.
 * It also gives the wall seconds of the file's beforeAll hooks, its tests and its afterAll hooks ("before tests
 * after"): whether a slow file waits in its setup, its cases or its teardown.
 */
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const count = Number(args.shift());
let cpuDir;
if (args[0] === '--cpu') {
  args.shift();
  cpuDir = args.shift();
}

/** file path (relative to the repository) -> its CPU line; the last one wins should a file run twice. */
const cpu = new Map();
if (cpuDir && fs.existsSync(cpuDir)) {
  for (const name of fs.readdirSync(cpuDir)) {
    for (const line of fs.readFileSync(path.join(cpuDir, name), 'utf8').split('\n')) {
      if (line) cpu.set(JSON.parse(line).file, JSON.parse(line));
    }
  }
}

const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);

for (const file of args) {
  let results;
  try {
    results = JSON.parse(fs.readFileSync(file, 'utf8')).testResults;
  } catch {
    continue; // a phase that crashed before writing its results: its own output says why
  }
  const rows = results.map((r) => {
    const name = r.name.replace(/^.*?\/test\//, 'test/');
    return { ms: r.endTime - r.startTime, status: r.status, name, cpu: cpu.get(name) };
  });
  rows.sort((a, b) => b.ms - a.ms);
  const sum = (pick) => rows.reduce((n, r) => n + (pick(r) ?? 0), 0);
  const phase = file.replace(/^.*\//, '').replace(/\.json$/, '');
  const cpuSums = cpu.size
    ? `; CPU ${(sum((r) => r.cpu?.loadMs) / 1000).toFixed(0)} s loading, ${(sum((r) => r.cpu?.runMs) / 1000).toFixed(0)} s running, ${(sum((r) => r.cpu?.childMs) / 1000).toFixed(0)} s in children`
    : '';
  console.log(`${phase}: ${rows.length} files, ${(sum((r) => r.ms) / 1000).toFixed(0)} s in all${cpuSums}; slowest:`);
  if (cpu.size) console.log('    wall s    load    run  children (CPU s)  before  tests  after (wall s)');
  const span = (ms) => (ms === undefined ? '     -' : seconds(ms));
  for (const r of rows.slice(0, count)) {
    const c = r.cpu
      ? `${seconds(r.cpu.loadMs)} ${seconds(r.cpu.runMs)} ${seconds(r.cpu.childMs)}            ${span(r.cpu.beforeAllMs)} ${span(r.cpu.testsMs)} ${span(r.cpu.afterAllMs)}`
      : cpu.size ? '     -      -      -' : '';
    console.log(`  ${seconds(r.ms)} s  ${c}${c ? '  ' : ''}${r.status.padEnd(6)}  ${r.name}`);
  }
}
