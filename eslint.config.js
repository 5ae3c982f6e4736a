// Lint: typescript-eslint's recommended rules over everything TypeScript; formatting is prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'reports/', '.data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      // Input checks match control characters on purpose, to refuse them.
      'no-control-regex': 'off',
      // `_name` marks a parameter kept for its position.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // A caught value is unknown: `(err as Error).message` reads undefined from a thrown string. errorOf and
    // messageOf (src/domain/errors.ts) narrow it instead.
    files: ['src/**/*.ts', 'jobs/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression > TSTypeReference.typeAnnotation > Identifier.typeName[name='Error']",
          message: 'Cast to Error: use errorOf(x) or messageOf(x) from src/domain/errors.ts.',
        },
        {
          selector: "TSAsExpression > TSIntersectionType > TSTypeReference > Identifier.typeName[name='Error']",
          message: 'Cast to Error: use errorOf(x) or messageOf(x) from src/domain/errors.ts.',
        },
      ],
    },
  },
);
