/**
 * Progress of a long ops command a person can watch: done/total, rate and time left. `progressText` is
 * the pure part; `progressReporter` writes it to stderr at most once a second (rewriting one line on a
 * terminal, a line per report otherwise) or, under `--json`, one JSON object per report, so stdout keeps
 * only the command's result.
 */

export interface ProgressState {
  /** What is being counted: "api_keys rows", "compared tables"; or the verb, with `unit` after the count. */
  label: string;
  /** Written after the count: `applied 10/40 records`. */
  unit?: string;
  done: number;
  /** Null while unknown. */
  total: number | null;
  /** ms since the phase started. */
  elapsedMs: number;
}

export interface ProgressFigures {
  label: string;
  done: number;
  total: number | null;
  percent: number | null;
  per_second: number | null;
  seconds_left: number | null;
}

export function progressFigures(s: ProgressState): ProgressFigures {
  const seconds = s.elapsedMs / 1000;
  const rate = seconds > 0 ? s.done / seconds : null;
  const percent = s.total ? Math.min(100, (s.done * 100) / s.total) : s.total === 0 ? 100 : null;
  const left = s.total !== null && rate ? Math.max(0, (s.total - s.done) / rate) : s.total !== null && s.done >= s.total ? 0 : null;
  return {
    label: s.label, done: s.done, total: s.total,
    percent: percent === null ? null : Math.round(percent),
    per_second: rate === null ? null : Math.round(rate * 10) / 10,
    seconds_left: left === null ? null : Math.ceil(left),
  };
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m} min ${seconds % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `api_keys rows 1200/5000 (24 %), 812/s, 5 s left`. */
export function progressText(s: ProgressState): string {
  const f = progressFigures(s);
  const count = `${f.total === null ? f.done : `${f.done}/${f.total}`}${s.unit ? ` ${s.unit}` : ''}`;
  const parts = [`${f.label} ${count}${f.percent === null ? '' : ` (${f.percent} %)`}`];
  if (f.per_second !== null) parts.push(`${f.per_second >= 10 ? Math.round(f.per_second) : f.per_second}/s`);
  if (f.seconds_left !== null) parts.push(f.done === f.total ? 'done' : `${duration(f.seconds_left)} left`);
  return parts.join(', ');
}

export interface ProgressSink {
  write(text: string): void;
  isTTY?: boolean;
}

export interface Progress {
  /** Starts a phase (resets the clock and the count). */
  start(label: string, total: number | null): void;
  /** Moves the count; reports when a second has passed since the last report. */
  advance(by?: number): void;
  /** The phase's last report, always written. */
  finish(): void;
  /** A free line (a phase's own message), in the same form. */
  note(text: string): void;
}

export function progressReporter(options: { json: boolean; sink?: ProgressSink; now?: () => number; everyMs?: number }): Progress {
  const sink = options.sink ?? process.stderr;
  const now = options.now ?? Date.now;
  const every = options.everyMs ?? 1000;
  let state: { label: string; total: number | null; done: number; started: number; lastReport: number; reportedDone: number } | null = null;
  let openLine = false;
  const endLine = () => {
    if (openLine) sink.write('\n');
    openLine = false;
  };
  const report = (final: boolean) => {
    if (!state) return;
    // The phase's end repeats nothing: a last count already shown is not shown again (the open line is ended).
    if (final && state.reportedDone === state.done) return endLine();
    state.reportedDone = state.done;
    const s: ProgressState = { label: state.label, done: state.done, total: state.total, elapsedMs: now() - state.started };
    state.lastReport = now();
    if (options.json) return sink.write(`${JSON.stringify({ progress: progressFigures(s) })}\n`);
    if (sink.isTTY) {
      sink.write(`\r\x1b[2K${progressText(s)}`);
      openLine = true;
      if (final) endLine();
    } else sink.write(`${progressText(s)}\n`);
  };
  return {
    start(label, total) {
      endLine();
      state = { label, total, done: 0, started: now(), lastReport: now(), reportedDone: -1 };
    },
    advance(by = 1) {
      if (!state) return;
      state.done += by;
      if (now() - state.lastReport >= every) report(false);
    },
    finish() {
      report(true);
      state = null;
    },
    note(text) {
      endLine();
      sink.write(options.json ? `${JSON.stringify({ note: text })}\n` : `${text}\n`);
    },
  };
}
