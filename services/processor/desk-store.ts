/**
 * Desk payments inside the processor's transaction: loads the rows a slice's desk commands name, serves
 * them to the pure handlers as a DeskView with the slice's own changes on top, and writes the changes back.
 */
import type { Command } from '../domain/commands';
import type { DeskPayment } from '../domain/desk/rules';
import type { DeskView, Effects } from '../domain/outcome';
import { upsertRows } from '../platform/db/bulk';
import type { PoolClient } from '../platform/db/pool';
import { deskPaymentColumns, deskPaymentFromRow, deskPaymentToRow } from '../desk/rows';
import type { FeatureState } from './feature-state';
import { KeyedRows } from './keyed-rows';

export class DeskState implements DeskView, FeatureState {
  private readonly rows = new KeyedRows<DeskPayment>((p) => p.paymentId);

  static async load(client: PoolClient, commands: Command[]): Promise<DeskState> {
    const state = new DeskState();
    const ids = [...new Set(commands.flatMap((c) => (c.type === 'desk.payment' || c.type === 'desk.return' ? [c.paymentId] : [])))];
    if (ids.length === 0) return state;
    const { rows } = await client.query(`SELECT ${deskPaymentColumns.join(', ')} FROM desk_payments WHERE payment_id = ANY($1::text[])`, [ids]);
    for (const r of rows) state.rows.load(deskPaymentFromRow(r));
    return state;
  }

  payment(paymentId: string): DeskPayment | undefined {
    return this.rows.get(paymentId);
  }

  absorb(effects: Effects): void {
    for (const p of effects.deskPayments ?? []) this.rows.put(p);
  }

  async write(client: PoolClient): Promise<void> {
    const changed = this.rows.changed();
    if (changed.length === 0) return;
    await upsertRows(client, 'desk_payments', deskPaymentColumns, changed.map(deskPaymentToRow), { key: 'payment_id' });
  }
}
