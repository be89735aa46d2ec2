/**
 * GET /v1/account/stats (API key orders.read, or session viewer and above). Answers from the stats
 * projection of order-events (services/stats), never from the orders table; format=csv gives the series
 * with the orders export's cell rules (formula-injection prefix, RFC 4180 quoting).
 */
import { Router } from 'express';
import type { Runtime } from '../../chain/clients';
import { accountStats, planFor, resolveRange, toOutOfRange } from '../../stats/account-stats';
import { readStatsInput } from '../../stats/store';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { ApiError, sendJson } from '../errors';
import type { RequestValidator } from '../validate';
import { csvCell } from '../views/orders-csv';

const seriesColumns = ['date', 'orders', 'energy', 'spent_sun'] as const;

export function statsRouter(deps: { rt: Runtime; validator: RequestValidator }): Router {
  const { rt, validator } = deps;
  const router = Router();

  router.get('/v1/account/stats', requireAuth({ apiKey: { scope: 'orders.read' }, session: { minRole: 'viewer' } }), validator.for('getAccountStats'), async (_req, res) => {
    const accountId = accountIdOf(res);
    const q = res.locals.query as { from?: string; to?: string; utc_offset_minutes?: number; format?: 'json' | 'csv' };
    const asked = { from: q.from === undefined ? undefined : Date.parse(q.from), to: q.to === undefined ? undefined : Date.parse(q.to), utcOffsetMinutes: q.utc_offset_minutes };
    const now = rt.clock.now();
    if (toOutOfRange(asked, now)) throw new ApiError('invalid_request', '`to` may be at most one day after now.', { field: 'to' });
    const range = resolveRange(asked, now);
    if (range === 'invalid_range') throw new ApiError('invalid_range', '`to` must be after `from`.', { field: 'to' });
    const plan = planFor(range);
    const stats = accountStats(range, await readStatsInput(rt.pool, accountId, plan, range.utcOffsetMinutes));
    if (q.format === 'csv') {
      const rows = stats.series as Array<Record<string, unknown>>;
      res.status(200).type('text/csv; charset=utf-8').setHeader('content-disposition', 'attachment; filename="account-stats.csv"');
      res.send([seriesColumns.join(','), ...rows.map((r) => seriesColumns.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n');
      return;
    }
    sendJson(res, 200, stats);
  });

  return router;
}
