import type { Router } from 'express';
import { buildTx } from '../chain/build';
import { selector } from '../contracts/abi';
import { dryRun } from '../actuators/trigger';
import type { NativeContract } from '../contracts/contract';
import { energyFactor } from '../state/energy-factor';
import { parseAddress } from '../crypto/address';
import type { DevnetNode } from '../node';
import { parseContract } from '../tx/contracts';
import { FormatError, readInt64 } from '../tx/json-values';
import { isVisible, paramsOf, sendJson, type Params } from './params';
import { serveRead, type Reads } from './reads';
import { shownAddress, unsignedTxJson } from './views';

const hexMessage = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const NO_CONTRACT = 'Contract validate error : No contract or not a valid smart contract';

/** The call data java-tron builds: selector of function_selector + parameter, or raw data. */
function callData(p: Params): string {
  if (typeof p.function_selector === 'string' && p.function_selector !== '') {
    return selector(p.function_selector.replace(/\s+/g, '')) + String(p.parameter ?? '').replace(/^0x/, '');
  }
  return String(p.data ?? '').replace(/^0x/, '');
}

export function contractRoutes(router: Router, reads: Reads, node: DevnetNode): void {
  /** Parses a trigger request into an unsigned transaction, or answers the error. */
  const trigger = (p: Params) => {
    const contract = parseContract('TriggerSmartContract', { ...p, data: callData(p) });
    if (contract.type !== 'TriggerSmartContract') throw new FormatError('not a trigger');
    const tx = buildTx(node.chain, contract, { permissionId: Number(readInt64(p.Permission_id, 'Permission_id')), feeLimit: readInt64(p.fee_limit, 'fee_limit') });
    return { contract, tx };
  };
  const failure = (message: string) => ({ result: { code: 'CONTRACT_VALIDATE_ERROR', message: hexMessage(message) } });

  router.post('/wallet/triggersmartcontract', (req, res) => {
    const p = paramsOf(req);
    const { contract, tx } = trigger(p);
    if (!node.chain.contracts.get(contract.contract)) return sendJson(res, p, failure(NO_CONTRACT));
    sendJson(res, p, { result: { result: true }, transaction: unsignedTxJson(tx.raw, tx.txid, tx.rawBytes.toString('hex'), isVisible(p)) });
  });

  // Simulations are reads: on the fast path too (http/reads.ts), POST only as java-tron serves them; an
  // estimate of 100 transfers makes a hundred of them at once.
  for (const [path, solidity] of [['/wallet/triggerconstantcontract', false], ['/walletsolidity/triggerconstantcontract', true], ['/wallet/estimateenergy', false]] as const) {
    const simulate = (p: Params): unknown => {
      const { contract, tx } = trigger(p);
      const view = solidity ? node.chain.solidView() : node.chain.pendingView();
      const result = dryRun(node.chain.context(view), contract);
      if (!result) return failure(NO_CONTRACT);
      if (path.endsWith('estimateenergy')) {
        return result.ok ? { result: { result: true }, energy_required: result.energy } : failure('REVERT opcode executed');
      }
      // java-tron Wallet.callConstantContract: energy_used with the penalty in it, energy_penalty its part,
      // a revert answered result true with "REVERT opcode executed" and its reason in constant_result.
      const status = result.ok ? { result: true } : { result: true, message: hexMessage('REVERT opcode executed') };
      return {
        result: status,
        energy_used: result.energy,
        ...(result.penalty > 0n ? { energy_penalty: result.penalty } : {}),
        constant_result: [result.returnData.toString('hex')],
        transaction: { ret: [result.ok ? {} : { ret: 'FAILED' }], ...unsignedTxJson(tx.raw, tx.txid, tx.rawBytes.toString('hex'), isVisible(p)) },
      };
    };
    serveRead(router, reads, path, simulate, 'post');
  }

  const smartContract = (contract: NativeContract, visible: boolean) => ({
    // Native contracts have no TVM code; a marker stands in for the bytecode.
    bytecode: Buffer.from('devnet-native:' + contract.name, 'utf8').toString('hex'),
    name: contract.name,
    origin_address: shownAddress(contract.origin, visible),
    abi: { entrys: contract.abi },
    origin_energy_limit: 10_000_000n,
    contract_address: shownAddress(contract.address, visible),
  });
  const contractOf = (p: Params) => {
    const address = parseAddress(p.value);
    return address ? node.chain.contracts.get(address) : undefined;
  };

  router.all('/wallet/getcontract', (req, res) => {
    const p = paramsOf(req);
    const contract = contractOf(p);
    sendJson(res, p, contract ? smartContract(contract, isVisible(p)) : {});
  });

  // java-tron GetContractInfoServlet: SmartContractDataWrapper {smart_contract, runtimecode, contract_state}
  // (smart_contract.proto); ContractState's zero fields are left out, as JsonFormat prints defaults.
  router.all('/wallet/getcontractinfo', (req, res) => {
    const p = paramsOf(req);
    const contract = contractOf(p);
    if (!contract) return sendJson(res, p, {});
    const factor = energyFactor(node.chain.pendingView(), contract.address);
    sendJson(res, p, {
      smart_contract: smartContract(contract, isVisible(p)),
      runtimecode: smartContract(contract, false).bytecode,
      contract_state: factor > 0n ? { energy_factor: factor } : {},
    });
  });
}
