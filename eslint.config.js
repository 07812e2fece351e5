// Lint limits that keep functions and files small and promises handled (modelled on Pepr's lint rules).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test-output/', 'scratch/', '.edgeshifu/', 'eslint.config.js', 'ava-realnode.config.mjs'] },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // optional chaining and ?? count as branches here: 15 is about Pepr's 10 without them
      complexity: ['error', 15],
      'max-depth': ['error', 3],
      'max-params': ['error', 4],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      // a file a reader takes in whole: split along the domain's seams, not in halves
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      'no-console': 'off',
      // client-node's models are classes but are plain JSON on the wire: literals are the norm.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': ['error', { allow: [{ from: 'package', package: '@kubernetes/client-node', name: ['V1Lease', 'V1LeaseSpec'] }] }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'max-lines-per-function': 'off',
      complexity: 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
