// ESLint (flat config): typescript-eslint's recommended rules for all TypeScript, React's hooks
// rules and jsx-a11y for the web, and eslint-config-prettier last so formatting is Prettier's alone.
// `npm run lint` runs it (and Prettier's check); `npm test` runs `npm run lint` first.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.data/**',
      'dist/**',
      'web/dist/**',
      'web/dist-ssr/**',
      'storage/**',
      'public/**',
      'coverage/**',
      'docs/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mts}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused names are errors, except the `_`-prefixed ones a signature needs.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      // React Compiler's diagnostic (the project does not use the compiler): it flags every reset of a
      // dialog's form when it opens and every "loading" flag set as a request starts, which are deliberate.
      'react-hooks/set-state-in-effect': 'off',
      ...jsxA11y.flatConfigs.recommended.rules,
    },
  },
  {
    // Tests and benches read untyped JSON answers and browser globals (`page.evaluate`): `any` is allowed there.
    files: ['tests/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.{cjs,js}'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  prettier,
);
