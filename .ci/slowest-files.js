#!/usr/bin/env node
/**
 * Prints the slowest test files of jest --json result files (the CI budget: which files to shorten next).
 *   node .ci/slowest-files.js COUNT results.json...
 * One line per file: wall seconds, status, path; a header per result file with its file count and their sum.
 */
const fs = require('node:fs');

const [count, ...files] = process.argv.slice(2);
for (const file of files) {
  let results;
  try {
    results = JSON.parse(fs.readFileSync(file, 'utf8')).testResults;
  } catch {
    continue; // a phase that crashed before writing its results: its own output says why
  }
  const rows = results.map((r) => ({ s: (r.endTime - r.startTime) / 1000, status: r.status, name: r.name.replace(/^.*?\/test\//, 'test/') }));
  rows.sort((a, b) => b.s - a.s);
  const sum = rows.reduce((n, r) => n + r.s, 0);
  console.log(`${file.replace(/^.*\//, '').replace(/\.json$/, '')}: ${rows.length} files, ${sum.toFixed(0)} s in all; slowest:`);
  for (const r of rows.slice(0, Number(count))) console.log(`  ${r.s.toFixed(1).padStart(6)} s  ${r.status.padEnd(6)}  ${r.name}`);
}
