/** GET /v1/balance (API key, balance.read) and GET /v1/ledger (session, viewer or above; cursor paging). */
import { Router } from 'express';
import { ledgerHeldStatuses, usdtDecimal } from '../../domain/deposits';
import { toIso } from '../../platform/clock';
import type { Runtime } from '../../chain/clients';
import { accountIdOf, requireAuth } from '../auth/require-auth';
import { cursorInstant, invalidCursor } from '../cursor';
import { ApiError, sendJson } from '../errors';
import { loadAccount } from '../stores/accounts';
import type { RequestValidator } from '../validate';

interface Cursor {
  createdAt: Date;
  id: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.createdAt.toISOString()}|${c.id}`).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const [at, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (!id || !/^jrn_[0-9a-f]{1,64}$/.test(id)) throw invalidCursor();
  return { createdAt: cursorInstant(at ?? ''), id };
}

function depositJson(d: Record<string, any>, status: string) {
  const usdt = d.asset === 'USDT';
  return {
    txid: d.txid, sender: d.sender, block_number: d.block_number === null ? null : Number(d.block_number), status,
    confirmations_required: d.confirmations_required, asset: d.asset,
    usdt_amount: usdt ? usdtDecimal(BigInt(d.amount)) : null,
    rate: usdt && status === 'credited' && d.rate !== null ? String(d.rate) : null,
    rate_source: usdt && status === 'credited' ? d.rate_source : null,
    spread_bps: usdt ? d.spread_bps : null,
  };
}

export function ledgerRouter(deps: { rt: Runtime; validator: RequestValidator }): Router {
  const { rt, validator } = deps;
  const router = Router();

  router.get('/v1/balance', requireAuth({ apiKey: { scope: 'balance.read' }, session: { minRole: 'viewer' } }), validator.for('getBalance'), async (_req, res) => {
    const account = await loadAccount(rt.pool, accountIdOf(res));
    if (!account) throw new ApiError('not_found');
    sendJson(res, 200, {
      balance_sun: account.balanceSun, balance_usdt: account.balanceUsdt, reserved_sun: account.reservedSun,
      available_sun: account.balanceSun - account.reservedSun, as_of: toIso(rt.clock.now()),
    });
  });

  router.get('/v1/ledger', requireAuth({ session: { minRole: 'viewer' } }), validator.for('listLedger'), async (_req, res) => {
    const accountId = accountIdOf(res);
    const query = res.locals.query as { kind?: 'deposit' | 'all'; limit?: number; cursor?: string };
    const limit = query.limit ?? 50;
    const cursor = query.cursor ? decodeCursor(query.cursor) : null;
    const params: unknown[] = [accountId, limit + 1];
    let where = 'j.account_id = $1';
    if (query.kind === 'deposit') where += " AND j.kind = 'deposit'";
    if (cursor) {
      params.push(cursor.createdAt, cursor.id);
      where += ' AND (j.created_at, j.id) < ($3, $4)';
    }
    const { rows } = await rt.pool.query(
      `SELECT j.id, j.kind, j.amount_sun, j.amount_usdt, j.order_id, j.created_at,
              d.txid, d.sender, d.block_number, d.confirmations_required, d.asset, d.amount, d.rate, d.rate_source, d.spread_bps,
              d.deposit_id IS NOT NULL AS has_deposit
       FROM journals j LEFT JOIN deposits d ON d.journal_id = j.id
       WHERE ${where} ORDER BY j.created_at DESC, j.id DESC LIMIT $2`,
      params,
    );
    const page = rows.slice(0, limit);
    const data: unknown[] = [];
    if (!cursor) {
      // USDT deposits seen but not credited: first page only, ahead of the journals, amount 0; the newest
      // `limit` of them, since anyone can add such rows by sending dust to the account's address.
      const held = await rt.pool.query(
        `SELECT deposit_id, status, txid, sender, block_number, confirmations_required, asset, amount, rate, rate_source, spread_bps, seen_at
         FROM deposits WHERE account_id = $1 AND asset = 'USDT' AND status = ANY($2::text[]) ORDER BY seen_at DESC, deposit_id DESC LIMIT $3`,
        [accountId, ledgerHeldStatuses, limit],
      );
      for (const h of held.rows) {
        data.push({
          id: `dep_${h.deposit_id}`, kind: 'deposit', amount_sun: 0, amount_usdt: 0, order_id: null,
          deposit: depositJson(h, h.status), created_at: (h.seen_at as Date).toISOString(),
        });
      }
    }
    for (const r of page) {
      const deposit = r.kind !== 'deposit' ? null
        : r.has_deposit ? depositJson(r, 'credited')
          : { txid: null, sender: null, block_number: null, status: 'credited', confirmations_required: rt.cfg.DEPOSIT_CONFIRMATIONS, asset: 'TRX', usdt_amount: null, rate: null, rate_source: null, spread_bps: null };
      data.push({
        id: r.id, kind: r.kind, amount_sun: r.amount_sun, amount_usdt: r.amount_usdt, order_id: r.order_id, deposit,
        created_at: (r.created_at as Date).toISOString(),
      });
    }
    const last = page[page.length - 1];
    sendJson(res, 200, { data, next_cursor: rows.length > limit ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null });
  });

  return router;
}
