import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/** EIP-3009, Permit2 and EIP-1559 words: a core file naming one carries an EVM-only field. */
const EVM_WORDS =
  '/^(permit2|Permit2.*|.*Permit2|uptoFacilitators|TransferMethod|authorization|Authorization|authorizationOf|accountNonce|maxFeePerGas|maxPriorityFeePerGas|validAfter|validBefore|nonceSpace|eip3009|eip155|accountNoncesInFlight|noncesFilled)$/'
const EVM_MESSAGE = "An EVM word in the domain's core: it belongs to the EVM mechanism (src/evm/), behind a port."
/** Core files that still name EVM shapes (docs/ARCHITECTURE.md §1): none may be added. */
const coreFilesStillNamingEvm = []

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'packages/adapters-chain/src/generated/**', 'test-fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/domain/src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Take the time from the Clock port.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ThrowStatement', message: 'The domain returns failures, it does not throw.' },
      ],
    },
  },
  {
    // The domain's core speaks of payments any chain family fills (docs/ARCHITECTURE.md §1): EVM words live in src/evm/.
    files: ['packages/domain/src/**/*.ts'],
    ignores: ['packages/domain/src/evm/**', 'packages/domain/src/index.ts', ...coreFilesStillNamingEvm],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ThrowStatement', message: 'The domain returns failures, it does not throw.' },
        { selector: `Identifier[name=${EVM_WORDS}]`, message: EVM_MESSAGE },
        { selector: `Literal[value=${EVM_WORDS}]`, message: EVM_MESSAGE },
        { selector: "TSTemplateLiteralType > TemplateElement[value.raw='0x']", message: EVM_MESSAGE },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
)
