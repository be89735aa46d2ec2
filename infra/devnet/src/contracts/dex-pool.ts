import type { HexAddress } from '../crypto/address';
import type { StateView } from '../state/accounts';
import { encode, evmAddress, viewFn } from './abi';
import { NativeContract, ok } from './contract';

const Q192 = 1n << 192n;
const POOL_FEE = 3000;
const POOL_LIQUIDITY = 10n ** 15n;
const READ_ENERGY = 600n;

/** floor(sqrt(n)) by Newton's method from a power of two above the root (exact for any size). */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** A positive decimal string as an exact fraction. */
function fraction(decimal: string): { num: bigint; den: bigint } {
  const [whole, frac = ''] = decimal.split('.');
  return { num: BigInt(whole + frac), den: 10n ** BigInt(frac.length) };
}

/**
 * Uniswap v3 price encoding: price = token1 base units per token0 base unit, and
 * sqrtPriceX96 = floor(sqrt(price) × 2^96). USDT and WTRX both have 6 decimals, so the raw
 * price is trx_per_usdt when USDT is token0 and 1 / trx_per_usdt when WTRX is token0.
 */
export function sqrtPriceX96For(trxPerUsdt: string, usdtIsToken0: boolean): bigint {
  const { num, den } = fraction(trxPerUsdt);
  return usdtIsToken0 ? isqrt((num * Q192) / den) : isqrt((den * Q192) / num);
}

/** The tick slot0() reports next to the price: floor(log_1.0001(price)). */
export function tickFor(sqrtPriceX96: bigint): number {
  const sqrt = Number(sqrtPriceX96) / 2 ** 96;
  return Math.floor(Math.log(sqrt * sqrt) / Math.log(1.0001));
}

export function setPoolPrice(view: StateView, pool: HexAddress, sqrtPriceX96: bigint): void {
  view.putProp('dex:sqrtPriceX96:' + pool, sqrtPriceX96);
}

/** A DEX v3 pool reduced to its price views: slot0(), token0(), token1(), fee(), liquidity(). */
export function dexPool(address: HexAddress, origin: HexAddress, token0: HexAddress, token1: HexAddress): NativeContract {
  const addressOut = (a: HexAddress) => ok(encode(['address'], [evmAddress(a)]), READ_ENERGY);
  return new NativeContract(address, 'UniswapV3Pool', origin)
    .fn(
      viewFn('slot0', [], [
        { name: 'sqrtPriceX96', type: 'uint160' },
        { name: 'tick', type: 'int24' },
        { name: 'observationIndex', type: 'uint16' },
        { name: 'observationCardinality', type: 'uint16' },
        { name: 'observationCardinalityNext', type: 'uint16' },
        { name: 'feeProtocol', type: 'uint8' },
        { name: 'unlocked', type: 'bool' },
      ]),
      ({ view }) => {
        const price = view.prop<bigint>('dex:sqrtPriceX96:' + address) ?? 0n;
        const out = encode(['uint160', 'int24', 'uint16', 'uint16', 'uint16', 'uint8', 'bool'], [price, tickFor(price), 0, 1, 1, 0, true]);
        return ok(out, READ_ENERGY);
      },
    )
    .fn(viewFn('token0', [], [{ type: 'address' }]), () => addressOut(token0))
    .fn(viewFn('token1', [], [{ type: 'address' }]), () => addressOut(token1))
    .fn(viewFn('fee', [], [{ type: 'uint24' }]), () => ok(encode(['uint24'], [POOL_FEE]), READ_ENERGY))
    .fn(viewFn('liquidity', [], [{ type: 'uint128' }]), () => ok(encode(['uint128'], [POOL_LIQUIDITY]), READ_ENERGY));
}
