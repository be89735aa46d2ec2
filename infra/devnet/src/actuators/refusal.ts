/** java-tron's broadcast response codes for refusals (GrpcAPI.Return.response_code). */
export type RefusalCode =
  | 'SIGERROR'
  | 'CONTRACT_VALIDATE_ERROR'
  | 'BANDWITH_ERROR'
  | 'DUP_TRANSACTION_ERROR'
  | 'TAPOS_ERROR'
  | 'TRANSACTION_EXPIRATION_ERROR'
  | 'TOO_BIG_TRANSACTION_ERROR'
  | 'OTHER_ERROR';

/**
 * A transaction the node will not accept. `message` is the text java-tron's
 * Wallet.broadcastTransaction puts in the answer (hex-encoded on the wire).
 */
export class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    /** What java-tron's create endpoints print after the exception class name. */
    readonly detail: string = message,
  ) {
    super(message);
  }
}

export const invalid = (detail: string) => new Refusal('CONTRACT_VALIDATE_ERROR', 'Contract validate error : ' + detail, detail);
export const badSignature = (detail: string) => new Refusal('SIGERROR', 'Validate signature error: ' + detail, detail);
export const noResource = (detail: string) => new Refusal('BANDWITH_ERROR', 'Account resource insufficient error.', detail);
export const expired = (detail: string) => new Refusal('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired', detail);
export const tapos = (detail: string) => new Refusal('TAPOS_ERROR', 'Tapos check error.', detail);
export const duplicate = () => new Refusal('DUP_TRANSACTION_ERROR', 'Dup transaction.');
