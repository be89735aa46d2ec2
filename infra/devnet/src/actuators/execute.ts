import { delimitedSize } from '../tx/protobuf';
import type { SignedTx } from '../tx/transaction';
import { MAX_RESULT_SIZE_IN_TX } from '../state/params';
import { chargeBandwidth } from './bandwidth';
import { emptyOutcome, type ExecContext, type ExecOutcome } from './context';
import { delegateResource, unDelegateResource } from './delegation';
import { freezeV2, unfreezeV2, withdrawExpireUnfreeze } from './stake';
import { createsAccount, transferTrx } from './transfer';
import { issueAsset, transferAsset } from './asset';
import { triggerContract } from './trigger';

/** Bytes a transaction pays bandwidth for: its serialized size without ret, plus room for the result. */
export function bandwidthBytes(tx: SignedTx): number {
  const signatures = tx.signatures.reduce((sum, s) => sum + delimitedSize(s.length / 2), 0);
  return delimitedSize(tx.rawBytes.length) + signatures + MAX_RESULT_SIZE_IN_TX;
}

/**
 * Applies one transaction to ctx.view the way java-tron's Manager.processTransaction does:
 * bandwidth first, then the contract's actuator. Throws a Refusal (nothing should be kept then:
 * callers run this on a child layer).
 */
export function executeTx(ctx: ExecContext, tx: SignedTx): ExecOutcome {
  const out = emptyOutcome();
  const c = tx.raw.contract;
  chargeBandwidth(ctx, c.owner, bandwidthBytes(tx), createsAccount(ctx, c), out);
  switch (c.type) {
    case 'TransferContract':
      transferTrx(ctx, c, out);
      break;
    case 'TriggerSmartContract':
      triggerContract(ctx, c, tx.raw.feeLimit, tx.txid, out);
      break;
    case 'FreezeBalanceV2Contract':
      freezeV2(ctx, c);
      break;
    case 'UnfreezeBalanceV2Contract':
      unfreezeV2(ctx, c, out);
      break;
    case 'WithdrawExpireUnfreezeContract':
      withdrawExpireUnfreeze(ctx, c, out);
      break;
    case 'DelegateResourceContract':
      delegateResource(ctx, c);
      break;
    case 'UnDelegateResourceContract':
      unDelegateResource(ctx, c);
      break;
    case 'AssetIssueContract':
      issueAsset(ctx, c, out);
      break;
    case 'TransferAssetContract':
      transferAsset(ctx, c, out);
      break;
  }
  return out;
}
