import { parseAbi, toEventSelector } from 'viem'

// What a Permit2 settle calls and reads (test-fixtures/permit2, test-fixtures/x402-permit2-proxies: the sources these
// signatures come from; test/permit2-call.test.ts checks them against the compiled contracts).

const PERMIT = 'struct Permit { TokenPermissions permitted; uint256 nonce; uint256 deadline; }'
const TOKEN_PERMISSIONS = 'struct TokenPermissions { address token; uint256 amount; }'
const PERMIT_2612 = 'struct Permit2612 { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }'

/** The custom errors a Permit2 settle may revert with: the proxies' and Permit2's own. */
const ERRORS = [
  'error AmountExceedsPermitted()',
  'error InvalidAmount()',
  'error InvalidDestination()',
  'error InvalidOwner()',
  'error PaymentTooEarly()',
  'error Permit2612AmountMismatch()',
  'error ReentrancyGuardReentrantCall()',
  'error UnauthorizedFacilitator()',
  'error InvalidAmount(uint256 maxAmount)',
  'error InvalidContractSignature()',
  'error InvalidNonce()',
  'error InvalidSignature()',
  'error InvalidSignatureLength()',
  'error InvalidSigner()',
  'error SignatureExpired(uint256 signatureDeadline)',
] as const

/** `x402ExactPermit2Proxy`: `settle`, `settleWithPermit` (anyone may call). */
export const exactProxyAbi = parseAbi([
  TOKEN_PERMISSIONS,
  PERMIT,
  PERMIT_2612,
  'struct Witness { address to; uint256 validAfter; }',
  'function settle(Permit permit, address owner, Witness witness, bytes signature)',
  'function settleWithPermit(Permit2612 permit2612, Permit permit, address owner, Witness witness, bytes signature)',
  ...ERRORS,
])

/** `x402UptoPermit2Proxy`: as exact, with the amount and the witness's facilitator (the only sender it accepts). */
export const uptoProxyAbi = parseAbi([
  TOKEN_PERMISSIONS,
  PERMIT,
  PERMIT_2612,
  'struct Witness { address to; address facilitator; uint256 validAfter; }',
  'function settle(Permit permit, uint256 amount, address owner, Witness witness, bytes signature)',
  'function settleWithPermit(Permit2612 p2612, Permit permit, uint256 amount, address owner, Witness witness, bytes sig)',
  ...ERRORS,
])

/** Every error a Permit2 settle's revert data may hold, for its reason. */
export const permit2ErrorsAbi = parseAbi(ERRORS)

/** Permit2's reads and its cancellation event. */
export const permit2ReadsAbi = parseAbi([
  'function nonceBitmap(address owner, uint256 word) view returns (uint256)',
  'event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)',
])

/** ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)`: a Permit2 payment's only proof. */
export const TRANSFER = toEventSelector('Transfer(address,address,uint256)')
export const UNORDERED_NONCE_INVALIDATION = toEventSelector('UnorderedNonceInvalidation(address,uint256,uint256)')
