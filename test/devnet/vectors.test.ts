import { utils } from 'tronweb';
import { parseAddress, toBase58 } from '../../infra/devnet/src/crypto/address';
import { addressOfKey } from '../../infra/devnet/src/crypto/keys';
import { SignatureVerifier } from '../../infra/devnet/src/crypto/verify';
import { parseSignedTx } from '../../infra/devnet/src/tx/transaction';

/**
 * Public test vectors: key → address pairs from wallet test suites (Trust Wallet core, Trezor
 * firmware) and transactions printed by java-tron nodes in TRON's documentation and SDK sources.
 * The devnet's codec must give the very txid and raw_data_hex a real node gives.
 */
const KEYS = [
  { key: '0000000000000000000000000000000000000000000000000000000000000001', base58: 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC', hex: '417e5f4552091a69125d5dfcb7b8c2659029395bdf' },
  { key: '2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54', base58: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC' },
  { key: '8d596057e510b14cbb9bf24f88803a6d6dbd138dd303a62b175b9e6cc0f3f941', base58: 'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT' },
];

const transfer = (owner: string, to: string, amount: number, ref: [string, string], expiration: number, timestamp: number, permission?: number) => ({
  contract: [
    {
      parameter: { value: { amount, owner_address: owner, to_address: to }, type_url: 'type.googleapis.com/protocol.TransferContract' },
      type: 'TransferContract',
      ...(permission ? { Permission_id: permission } : {}),
    },
  ],
  ref_block_bytes: ref[0],
  ref_block_hash: ref[1],
  expiration,
  timestamp,
});

const TXS = [
  {
    // java-tron HTTP API docs (multi-signature example, active permission 2), printed with visible=true.
    txID: '0ae84a8439f5aa8fd2c458879a4031a7452aebed8e6e99ffbccd26842d4323c4',
    raw_data: transfer('TRGhNNfnmgLegT4zHNjEqDSADjgmnHvubJ', 'TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW', 1000000, ['163d', '77ef4ace148b05ba'], 1555664823000, 1555664763418, 2),
    raw_data_hex:
      '0a02163d220877ef4ace148b05ba40d8c5e5a6a32d5a69080112630a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412320a1541a7d8a35b260395c14aa456297662092ba3b76fc01215415a523b449890854c8fc460ab602df9f31fe4293f18c0843d2802709af4e1a6a32d',
  },
  {
    // TRON developer docs, "send TRX with the HTTP API" walkthrough.
    txID: 'c558bd35978267d8999baf6148703cbc94786f3f2e22893637588ca05437d7f0',
    raw_data: transfer('TPswDDCAWhJAZGdHPidFg5nEf8TkNToDX1', 'TUznHJfHe6gdYY7gvWmf6bNZHuPHDZtowf', 10000000, ['193b', 'aaecd88e4e0e7528'], 1656580476000, 1656580418228),
    raw_data_hex:
      '0a02193b2208aaecd88e4e0e752840e098909f9b305a68080112640a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412330a154198927ffb9f554dc4a453c64b2e553a02d6df514b121541d0b69631440f0a494bb51f7eee68ff5c593c00f01880ade20470b4d58c9f9b30',
  },
  {
    // imToken token-core's TRON signer fixture (a createtransaction answer).
    txID: '88817b9c6276e3c535e4f8f15baf546292ca6ad9d44a7d97857bd6f8909d63d4',
    raw_data: transfer('415c68cc82c87446f602f019e5fd797437f5b79cc2', '4156a6076cd1537fa317c2606e4edfa4acd3e8e92e', 100000, ['02a2', 'e216e254e43ee108'], 1571898861000, 1571898802704),
    raw_data_hex:
      '0a0202a22208e216e254e43ee10840c8cbe4e3df2d5a67080112630a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412320a15415c68cc82c87446f602f019e5fd797437f5b79cc212154156a6076cd1537fa317c2606e4edfa4acd3e8e92e18a08d06709084e1e3df2d',
  },
];

/** A signed TRC-20 transfer as a node returned it (Go TRON client fixtures), signature included. */
const SIGNED_TRIGGER = {
  signature: ['1788bf0281f67c42f5a09322523edee9969e808a863776f21ab6543de9dd42ca0e4955577879df8074086c620eb96709ba9a95d60a166de190a081e8d69801da00'],
  txID: 'c70b20da8cb8d96a99c1aceb283412acb9dea313a9e467178431a3c6ae8b9f08',
  raw_data: {
    contract: [
      {
        parameter: {
          value: {
            data: 'a9059cbb00000000000000000000004150125bea243a640bf85348873b6c4f3c517aee7a0000000000000000000000000000000000000000000000000000000000000001',
            owner_address: '41495511a493d8c362be4267224e6d81013a6862ee',
            contract_address: '41eca9bc828a3005b9a3b909f2cc5c2a54794de05f',
          },
          type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
        },
        type: 'TriggerSmartContract',
      },
    ],
    ref_block_bytes: '8ad9',
    ref_block_hash: 'eaef69105495eb15',
    expiration: 1773182914544,
    fee_limit: 100000000,
    timestamp: 1773182854544,
  },
  raw_data_hex:
    '0a028ad92208eaef69105495eb1540f09fc0cfcd335aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a1541495511a493d8c362be4267224e6d81013a6862ee121541eca9bc828a3005b9a3b909f2cc5c2a54794de05f2244a9059cbb00000000000000000000004150125bea243a640bf85348873b6c4f3c517aee7a00000000000000000000000000000000000000000000000000000000000000017090cbbccfcd33900180c2d72f',
};

describe('address vectors', () => {
  it.each(KEYS)('derives $base58 from its key and converts both ways', ({ key, base58, hex }) => {
    const derived = addressOfKey(key);
    expect(toBase58(derived)).toBe(base58);
    expect(parseAddress(base58)).toBe(derived);
    if (hex) expect(derived).toBe(hex);
  });

  it('knows mainnet USDT in both forms', () => {
    expect(parseAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe('41a614f803b6fd780986a42c78ec9c7f77e6ded13c');
    expect(parseAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBeUndefined();
  });
});

describe('transaction id vectors', () => {
  it.each([...TXS, SIGNED_TRIGGER])('re-encodes $txID from its JSON', (fixture) => {
    const tx = parseSignedTx({ raw_data: fixture.raw_data, signature: [] });
    expect(tx.rawBytes.toString('hex')).toBe(fixture.raw_data_hex);
    expect(tx.txid).toBe(fixture.txID);
    // TronWeb's own builder agrees, so what TronWeb signs is what the devnet verifies.
    const pb = utils.transaction.txJsonToPb({ raw_data: fixture.raw_data, visible: false } as never);
    expect(utils.transaction.txPbToTxID(pb).replace(/^0x/, '')).toBe(fixture.txID);
  });

  it('recovers the signer of a real signed transaction', () => {
    const tx = parseSignedTx(SIGNED_TRIGGER);
    const result = new SignatureVerifier().check({ rawBytes: tx.rawBytes, txid: tx.txid, signature: tx.signatures[0], owner: tx.raw.contract.owner });
    expect(result).toEqual({ signer: '41495511a493d8c362be4267224e6d81013a6862ee' });
  });
});
