import type { Router } from 'express';
import { dryValidate } from '../chain/admission';
import { buildTx } from '../chain/build';
import type { DevnetNode } from '../node';
import { Refusal } from '../actuators/refusal';
import { parseContract, type ContractType } from '../tx/contracts';
import { FormatError, readInt64 } from '../tx/json-values';
import { isVisible, paramsOf, sendError, sendJson } from './params';
import { serveRead, type Reads } from './reads';
import { txInfoJson, txJson, unsignedTxJson } from './views';
import { visibleBytesAsHex } from './routes-assets';

/** The create endpoints java-tron offers for the system contracts the devnet runs. */
const CREATE_ENDPOINTS: Record<string, ContractType> = {
  createtransaction: 'TransferContract',
  freezebalancev2: 'FreezeBalanceV2Contract',
  unfreezebalancev2: 'UnfreezeBalanceV2Contract',
  withdrawexpireunfreeze: 'WithdrawExpireUnfreezeContract',
  delegateresource: 'DelegateResourceContract',
  undelegateresource: 'UnDelegateResourceContract',
  transferasset: 'TransferAssetContract',
  createassetissue: 'AssetIssueContract',
};

const VALIDATE_EXCEPTION = 'class org.tron.core.exception.ContractValidateException : ';

export function transactionRoutes(router: Router, reads: Reads, node: DevnetNode): void {
  for (const [endpoint, type] of Object.entries(CREATE_ENDPOINTS)) {
    router.post('/wallet/' + endpoint, (req, res) => {
      const p = visibleBytesAsHex(type, paramsOf(req));
      try {
        const tx = buildTx(node.chain, parseContract(type, p), { permissionId: Number(readInt64(p.Permission_id, 'Permission_id')) });
        dryValidate(node.chain, tx);
        sendJson(res, p, unsignedTxJson(tx.raw, tx.txid, tx.rawBytes.toString('hex'), isVisible(p)));
      } catch (err) {
        if (err instanceof Refusal) sendError(res, VALIDATE_EXCEPTION + err.detail);
        else if (err instanceof FormatError) sendError(res, 'class java.lang.IllegalArgumentException : ' + err.message);
        else throw err;
      }
    });
  }

  for (const solidity of [false, true]) {
    const base = solidity ? '/walletsolidity' : '/wallet';
    /** A solidity node knows only solidified transactions; a full node also its pending ones. */
    const known = (txid: unknown, mustBeInBlock: boolean) => {
      const tx = node.chain.tx(String(txid ?? '').toLowerCase());
      if (!tx) return undefined;
      if (solidity) return tx.blockNumber !== undefined && tx.blockNumber <= node.chain.solidNumber() ? tx : undefined;
      return mustBeInBlock && tx.blockNumber === undefined ? undefined : tx;
    };
    serveRead(router, reads, base + '/gettransactionbyid', (p) => {
      const tx = known(p.value, false);
      return tx ? txJson(tx, isVisible(p)) : {};
    });
    serveRead(router, reads, base + '/gettransactioninfobyid', (p) => {
      const tx = known(p.value, true);
      return tx ? txInfoJson(tx, isVisible(p)) : {};
    });
    // Every transaction info of one block, in block order: a JSON array ([] for a block the view does
    // not have or one without transactions); num <= 0 answers {} (GetTransactionInfoByBlockNumServlet).
    serveRead(router, reads, base + '/gettransactioninfobyblocknum', (p) => {
      const num = Number(readInt64(p.num, 'num'));
      if (num <= 0) return {};
      const head = solidity ? node.chain.solidNumber() : node.chain.head().number;
      const block = num <= head ? node.chain.blocks[num] : undefined;
      return (block?.txs ?? []).map((tx) => txInfoJson(tx, isVisible(p)));
    });
  }
}
