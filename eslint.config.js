// Lint: typescript-eslint's type-checked rules over every TypeScript file; Prettier owns layout.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.local/',
      'coverage/',
      'bench/results/',
      'web/dist/',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Imports say where they go: `#shared/...`, `#test/...`; a relative import stays inside its own folder.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*', '../'],
              message: 'Import across folders with a #subpath (package.json "imports"), e.g. #shared/domain/errors.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // The deployed code reads its environment in shared/config alone: validated once per cold start.
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/config/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read the environment in shared/config (loadConfig, or processEnvironment for the shared modules).',
        },
      ],
    },
  },
  {
    // Tests and benchmarks read untyped JSON bodies and stub async ports; the promise rules above still apply.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
);
